// Minimal command-line parsing for the dlc subcommands: exact flags, one-line errors.
#ifndef DLC_TOOLS_DLC_ARGS_H
#define DLC_TOOLS_DLC_ARGS_H

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace dlc::cli {

struct OptionSpec {
  std::string name;  // "--threads", "-o"
  bool takesValue;
  bool repeatable = false; // --input, --input-shape: one value per use (Args::all)
};

struct Args {
  std::vector<std::string> positional;
  std::multimap<std::string, std::string> values;
  std::set<std::string> flags;
  bool has(const std::string &f) const { return flags.count(f) || values.count(f); }
  std::string get(const std::string &name, const std::string &dflt = "") const {
    auto it = values.find(name);
    return it == values.end() ? dflt : it->second;
  }
  std::vector<std::string> all(const std::string &name) const;
};

/// Parses argv[first..]; accepts `--opt=value`, `--opt value`, `-o value`, `-O3`.
/// Returns false with `error` set on an unknown option, a missing value, or an option
/// given twice that is not `repeatable`.
bool parseArgs(int argc, char **argv, int first, const std::vector<OptionSpec> &spec, Args &out,
               std::string &error);

/// Prints `error: <msg>` on stderr and returns 1 (the exit code for bad input).
int fail(const std::string &msg);

/// Parses a byte count: digits with an optional K, M, G or T suffix (powers of 1024),
/// e.g. 512M or 8G; false and an error message otherwise.
bool parseBytes(const std::string &opt, const std::string &text, uint64_t &out, std::string &error);

/// Parses a positive integer option; false and an error message otherwise.
bool parseCount(const std::string &opt, const std::string &text, long long &out, std::string &error);

} // namespace dlc::cli

#endif
