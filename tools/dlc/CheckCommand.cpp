// `dlc check`: every (op, opset, dtype, attribute) in a model dlc does not support, without compiling.
#include "compiler/Compiler.h"
#include "tools/dlc/Args.h"
#include "tools/dlc/Commands.h"

#include <cstdio>
#include <map>

namespace dlc::cli {

static const char *kHelp =
    "usage: dlc check MODEL.onnx [--input-shape NAME=DxDx..]...\n"
    "\n"
    "Imports the model without compiling it and lists every node dlc cannot take,\n"
    "grouped by (op, opset, what is unsupported: the op itself, a dtype, an\n"
    "attribute value, ...) with the node names, one group per line on stdout.\n"
    "Exit code 0 when every node is supported, 1 otherwise.\n"
    "Nodes that consume an unsupported node's outputs are checked fully when the\n"
    "model declares those outputs' types (value_info), else for op support only.\n"
    "\n"
    "options:\n"
    "  --input-shape NAME=DxDx..  fix the shape of input NAME (repeatable); symbolic dims\n"
    "                             default to 1\n"
    "  -h, --help                 show this help\n";

int checkCommand(int argc, char **argv) {
  Args args;
  std::string error;
  if (!parseArgs(argc, argv, 2, {{"--input-shape", true, true}, {"--help", false}, {"-h", false}}, args,
                 error))
    return fail(error);
  if (args.has("--help") || args.has("-h")) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (args.positional.size() != 1)
    return fail("expected exactly one model (dlc check MODEL.onnx)");
  const std::string &path = args.positional[0];
  ImportOptions options;
  options.maxTensorBytes = defaultMaxMemory();
  if (!parseInputShapes(args, options.inputShapes, error))
    return fail(error);
  Compilation c({});
  c.setSourceName(path);
  auto result = checkOnnxFile(c.context(), path, options);
  if (failed(result)) {
    for (const std::string &e : c.errors())
      std::fprintf(stderr, "error: %s\n", e.c_str());
    if (c.errors().empty())
      return fail(path + ": cannot be checked");
    return 1;
  }
  if (result->issues.empty()) {
    std::printf("%s: all %d nodes supported (opset %d)\n", path.c_str(), result->numNodes,
                result->opset);
    return 0;
  }
  // Group identical problems: "Conv, opset 17: unsupported auto_pad 'SAME_LOWER'".
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  std::map<std::string, size_t> index;
  for (const auto &issue : result->issues) {
    std::string key = issue.op + ": " + issue.message;
    for (char &ch : key) // names come from the file: keep one line per group
      if ((unsigned char)ch < 0x20 || ch == 0x7f)
        ch = '?';
    auto [it, inserted] = index.emplace(key, groups.size());
    if (inserted)
      groups.push_back({key, {}});
    groups[it->second].second.push_back(issue.node);
  }
  std::printf("%s: %zu of %d nodes unsupported (opset %d):\n", path.c_str(), result->issues.size(),
              result->numNodes, result->opset);
  for (const auto &[what, nodes] : groups) {
    std::string list;
    for (size_t i = 0; i < nodes.size(); ++i)
      list += (i ? ", " : "") + nodes[i];
    for (char &ch : list)
      if ((unsigned char)ch < 0x20 || ch == 0x7f)
        ch = '?';
    std::printf("  %s [%zu node%s: %s]\n", what.c_str(), nodes.size(), nodes.size() == 1 ? "" : "s",
                list.c_str());
  }
  return fail(path + ": " + std::to_string(result->issues.size()) + " unsupported node" +
              (result->issues.size() == 1 ? "" : "s") + " (listed on stdout)");
}

} // namespace dlc::cli
