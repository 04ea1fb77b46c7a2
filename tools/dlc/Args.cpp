// Minimal command-line parsing for the dlc subcommands.
#include "tools/dlc/Args.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace dlc::cli {

std::vector<std::string> Args::all(const std::string &name) const {
  std::vector<std::string> r;
  auto range = values.equal_range(name);
  for (auto it = range.first; it != range.second; ++it)
    r.push_back(it->second);
  return r;
}

bool parseArgs(int argc, char **argv, int first, const std::vector<OptionSpec> &spec, Args &out,
               std::string &error) {
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (a.size() < 2 || a[0] != '-') {
      out.positional.push_back(a);
      continue;
    }
    if (a == "--") {
      for (++i; i < argc; ++i)
        out.positional.push_back(argv[i]);
      break;
    }
    std::string name = a, value;
    bool inlineValue = false;
    if (auto eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      inlineValue = true;
    } else if (a.size() > 2 && a[1] == 'O' && a[0] == '-') {
      name = "-O";
      value = a.substr(2);
      inlineValue = true;
    }
    const OptionSpec *s = nullptr;
    for (const auto &o : spec)
      if (o.name == name)
        s = &o;
    if (!s) {
      error = "unknown option '" + name + "' (see --help)";
      return false;
    }
    if (!s->repeatable && out.has(name)) {
      error = "flag " + name + " given twice";
      return false;
    }
    if (!s->takesValue) {
      if (inlineValue) {
        error = "option '" + name + "' takes no value";
        return false;
      }
      out.flags.insert(name);
      continue;
    }
    if (!inlineValue) {
      if (i + 1 >= argc) {
        error = "option '" + name + "' needs a value";
        return false;
      }
      value = argv[++i];
    }
    out.values.emplace(name, value);
  }
  return true;
}

int fail(const std::string &msg) {
  std::fprintf(stderr, "error: %s\n", msg.c_str());
  return 1;
}

bool parseCount(const std::string &opt, const std::string &text, long long &out,
                std::string &error) {
  char *end = nullptr;
  out = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end || out < 1 || out > 1000000000) {
    error = opt + " expects a positive integer, got '" + text + "'";
    return false;
  }
  return true;
}

bool parseBytes(const std::string &opt, const std::string &text, uint64_t &out,
                std::string &error) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit((unsigned char)text[digits]))
    ++digits;
  std::string suffix = text.substr(digits);
  int shift = suffix.empty() ? 0 : suffix == "K" ? 10 : suffix == "M" ? 20 : suffix == "G" ? 30
                                   : suffix == "T" ? 40 : -1;
  uint64_t n = 0;
  bool ok = digits > 0 && digits <= 15 && shift >= 0;
  if (ok) {
    n = std::strtoull(text.substr(0, digits).c_str(), nullptr, 10);
    ok = n > 0 && n <= (uint64_t(1) << (62 - shift));
  }
  if (!ok) {
    error = opt + " expects a size in bytes with an optional K, M, G or T suffix (e.g. 8G), "
                  "got '" + text + "'";
    return false;
  }
  out = n << shift;
  return true;
}

} // namespace dlc::cli
