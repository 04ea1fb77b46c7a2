// `dlc info`: a model's inputs and outputs (names, dtypes, shapes) from .onnx or compiled .so.
#include "compiler/Compiler.h"
#include "tools/dlc/Args.h"
#include "tools/dlc/Commands.h"

#include <cstdio>
#include <cstring>

namespace dlc::cli {

static const char *kHelp =
    "usage: dlc info MODEL.onnx|OUT.so\n"
    "\n"
    "Lists the model's inputs and outputs with names, dtypes and shapes. For .onnx\n"
    "files symbolic dims are shown by name (dlc specializes them to 1 unless\n"
    "--input-shape or the run inputs say otherwise). Sequence inputs and outputs\n"
    "(marked `sequence`) compile to one tensor per element, named NAME[0], NAME[1], ...\n";

static void printTensor(const char *kind, const std::string &name, int dtype,
                        const std::string &shape) {
  std::printf("  %s '%s' %s%s\n", kind, name.c_str(), dlc_dtype_name(dtype), shape.c_str());
}

int infoCommand(int argc, char **argv) {
  Args args;
  std::string error;
  if (!parseArgs(argc, argv, 2, {{"--help", false}, {"-h", false}}, args, error))
    return fail(error);
  if (args.has("--help") || args.has("-h")) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (args.positional.size() != 1)
    return fail("expected exactly one model (dlc info MODEL.onnx|OUT.so)");
  const std::string &path = args.positional[0];
  if (isOnnxPath(path)) {
    Compilation c({});
    c.setSourceName(path);
    auto s = summarizeOnnxFile(c.context(), path);
    if (failed(s)) {
      for (const auto &e : c.errors())
        std::fprintf(stderr, "error: %s\n", e.c_str());
      return 1;
    }
    std::printf("%s: ONNX opset %d, %d nodes%s%s\n", path.c_str(), s->opset, s->numNodes,
                s->producer.empty() ? "" : ", produced by ", s->producer.c_str());
    for (auto [kind, list] : {std::pair{"input", &s->inputs}, std::pair{"output", &s->outputs}}) {
      for (const auto &t : *list) {
        std::string shape = "[";
        for (size_t i = 0; i < t.dims.size(); ++i)
          shape += (i ? "," : "") + t.dims[i];
        std::string type = t.unknownRank ? "[?]" : shape + "]";
        // Sequences and optionals (flattened to name[0], name[1], ... when compiled).
        if (t.sequence)
          type += " sequence";
        if (t.optional)
          type += " optional";
        printTensor(kind, t.name, t.dtype, type);
      }
    }
    return 0;
  }
  dlc_module_t *m = loadModel(path, {}, error);
  if (!m)
    return fail(error);
  std::printf("%s: compiled dlc module\n", path.c_str());
  // A GPU module: its architecture and kernel table.
  const char *kernels = nullptr;
  int cubin = 0;
  if (const char *chip = dlc_module_cuda_chip(m, &kernels, &cubin)) {
    size_t count = 0;
    for (const char *p = kernels; *p; ++p)
      count += *p == '\n';
    std::printf("  target cuda %s: %zu kernels (PTX%s)\n", chip, count,
                cubin ? " and cubin" : "; no cubin, the driver compiles the PTX");
    for (const char *line = kernels; *line;) {
      const char *eol = std::strchr(line, '\n');
      std::printf("    kernel %.*s\n", (int)(eol - line), line);
      line = eol + 1;
    }
  }
  // Symbolic dims: the sizes each accepts (dlc compile --dims).
  for (size_t i = 0; i < dlc_module_num_dims(m); ++i) {
    dlc_dim_info_t dim;
    if (dlc_module_dim_info(m, i, &dim) == DLC_OK)
      std::printf("  dim '%s' %lld..%lld%s\n", dim.name, (long long)dim.min, (long long)dim.max,
                  dlc_module_dim_is_computed(m, i) ? " (computed by the model: set by the run)"
                                                   : "");
  }
  for (size_t i = 0; i < dlc_module_num_inputs(m); ++i) {
    dlc_tensor_info_t info;
    dlc_module_input_info(m, i, &info);
    printTensor("input", info.name, info.dtype, infoShapeString(m, info));
  }
  for (size_t i = 0; i < dlc_module_num_outputs(m); ++i) {
    dlc_tensor_info_t info;
    dlc_module_output_info(m, i, &info);
    printTensor("output", info.name, info.dtype, infoShapeString(m, info));
  }
  // A training step's parameters (dlc compile --train).
  for (size_t i = 0; i < dlc_module_num_states(m); ++i) {
    dlc_tensor_info_t info;
    void *data = nullptr;
    if (dlc_module_state_info(m, i, &info, &data) == DLC_OK)
      printTensor("trained", info.name, info.dtype, shapeString(info.rank, info.shape));
  }
  dlc_module_free(m);
  return 0;
}

} // namespace dlc::cli
