// dlc-run-batch: `dlc run` for many command lines in one process, for the conformance
// runner (test/conformance/conformance.py). A short `dlc run` of an ONNX node test spends
// about half its time loading libLLVM, libMLIR and ONNX's schemas; here the ~1900 cases
// pay for that once per process.
//
// Reads one command per line from stdin: a log file, then `dlc run`'s arguments, separated
// by tabs. Runs `dlc run` (dlc::cli::runCommand, what the dlc binary runs) with its
// stdout and stderr going to the log file, then prints "rc <exit code>" on stdout. The
// command's own stdin is /dev/null. A case that crashes takes the process down with it:
// the runner then reruns that case with dlc alone.
#include "tools/dlc/Subcommands.h"

#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <vector>

static std::vector<std::string> splitTabs(const std::string &line) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    size_t tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab == std::string::npos ? tab : tab - start));
    if (tab == std::string::npos)
      return fields;
    start = tab + 1;
  }
}

static void flushAll() {
  llvm::outs().flush();
  llvm::errs().flush();
  std::fflush(stdout);
  std::fflush(stderr);
}

int main() {
  // The control channel: commands in on the original stdin, "rc N" lines out on the
  // original stdout. Between commands fd 0 and 1 are /dev/null, fd 2 the original stderr.
  int controlIn = dup(0), controlOut = dup(1), origErr = dup(2);
  int devNull = open("/dev/null", O_RDWR);
  if (controlIn < 0 || controlOut < 0 || origErr < 0 || devNull < 0) {
    std::perror("dlc-run-batch");
    return 2;
  }
  dup2(devNull, 0);
  dup2(devNull, 1);
  FILE *in = fdopen(controlIn, "r");
  FILE *out = fdopen(controlOut, "w");
  char *buffer = nullptr;
  size_t capacity = 0;
  ssize_t length;
  while ((length = getline(&buffer, &capacity, in)) > 0) {
    std::string line(buffer, static_cast<size_t>(length));
    if (!line.empty() && line.back() == '\n')
      line.pop_back();
    std::vector<std::string> fields = splitTabs(line);
    int log = open(fields[0].c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (log < 0) {
      std::fprintf(stderr, "dlc-run-batch: cannot open %s: %s\n", fields[0].c_str(),
                   std::strerror(errno));
      std::fprintf(out, "rc 2\n");
      std::fflush(out);
      continue;
    }
    flushAll();
    dup2(log, 1);
    dup2(log, 2);
    close(log);
    std::vector<char *> argv = {const_cast<char *>("dlc"), const_cast<char *>("run")};
    for (size_t i = 1; i < fields.size(); ++i)
      argv.push_back(fields[i].data());
    argv.push_back(nullptr);
    int rc = dlc::cli::runCommand(static_cast<int>(argv.size() - 1), argv.data());
    flushAll();
    dup2(devNull, 1);
    dup2(origErr, 2);
    std::fprintf(out, "rc %d\n", rc);
    std::fflush(out);
  }
  std::free(buffer);
  return 0;
}
