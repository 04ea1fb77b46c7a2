// dlc: the command-line driver (compile, run, bench, info). Thin: parses flags, calls the library.
#include "tools/dlc/Args.h"
#include "tools/dlc/Subcommands.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

static const char *kUsage =
    "dlc - a graph-mode deep-learning compiler (ONNX -> native x86 code)\n"
    "\n"
    "usage: dlc <command> [options]\n"
    "\n"
    "commands:\n"
    "  compile MODEL.onnx -o OUT.so   compile a model to a shared library (or --emit IR)\n"
    "  run MODEL.onnx|OUT.so          run a model on .npy inputs (.onnx is JIT-compiled)\n"
    "  bench MODEL.onnx|OUT.so        time a model: min / median / p90 latency\n"
    "  info MODEL.onnx|OUT.so         list inputs and outputs with dtypes and shapes\n"
    "  check MODEL.onnx               list what in a model dlc does not support\n"
    "  train STEP.so --data DATA.npz  run a training step (compile --train) over a dataset\n"
    "  verify MODEL.onnx --input ...  compare every unfused node output with ONNX Runtime\n"
    "\n"
    "Run 'dlc <command> --help' for a command's options.\n"
    "Errors are one line starting 'error:'; the exit code is 1 for bad input.\n";

static int dispatch(int argc, char **argv) {
  if (argc < 2)
    return dlc::cli::fail("no command given (dlc --help lists them)");
  if (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  std::string cmd = argv[1];
  if (cmd == "compile")
    return dlc::cli::compileCommand(argc, argv);
  if (cmd == "run")
    return dlc::cli::runCommand(argc, argv);
  if (cmd == "bench")
    return dlc::cli::benchCommand(argc, argv);
  if (cmd == "info")
    return dlc::cli::infoCommand(argc, argv);
  if (cmd == "check")
    return dlc::cli::checkCommand(argc, argv);
  if (cmd == "train")
    return dlc::cli::trainCommand(argc, argv);
  if (cmd == "verify")
    return dlc::cli::verifyCommand(argc, argv);
  if (cmd == "quantize")
    return dlc::cli::quantizeCommand(argc, argv);
  return dlc::cli::fail("unknown command '" + cmd +
                        "' (expected compile, run, bench, info, check, train, verify or quantize)");
}

int main(int argc, char **argv) {
  int rc = dispatch(argc, argv);
  // What went to stdout (IR, listings, reports) must have arrived: a full disk or a
  // closed pipe is an error, not a silent success.
  errno = 0;
  if ((std::fflush(stdout) != 0 || std::ferror(stdout)) && rc == 0)
    return dlc::cli::fail(std::string("cannot write to standard output: ") +
                          std::strerror(errno ? errno : EIO));
  return rc;
}
