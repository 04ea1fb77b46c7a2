// Loading a model and binding its inputs, shared by `dlc run`, `dlc bench` and `dlc verify`.
#ifndef DLC_TOOLS_DLC_RUNNER_H
#define DLC_TOOLS_DLC_RUNNER_H

#include "compiler/Compiler.h"
#include "tools/dlc/Commands.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dlc::cli {

struct Args;

struct TensorDeleter {
  void operator()(dlc_tensor_t *t) const { dlc_tensor_free(t); }
};
using TensorPtr = std::unique_ptr<dlc_tensor_t, TensorDeleter>;

/// Everything a run needs: module, session, inputs and outputs in ABI order.
struct Runner {
  dlc_module_t *module = nullptr;
  dlc_session_t *session = nullptr;
  std::vector<TensorPtr> inputs, outputs;
  ~Runner();
  bool run(std::string &error);
};

/// The declared graph inputs and outputs of an ONNX model (empty for a .so).
struct Interface {
  std::vector<TensorSummary> inputs, outputs;
  const TensorSummary *input(const std::string &name) const;
};

/// How prepare() loads and binds a model.
struct PrepareOptions {
  /// Inputs not given are random (dlc bench) instead of an error.
  bool randomFill = false;
  /// JIT only: extra outputs and optimization level (dlc verify).
  std::vector<std::string> extraOutputs;
  int optLevel = 3;
  /// Threads, overriding --threads.
  std::optional<int> threads;
};

/// Reads the --input files of `args` for the model args.positional[0] into `known`
/// (what a JIT compile is specialized to) and `given` (by runtime input name).
/// `so` is the loaded module of a .so model (null for .onnx). Returns 0, or the
/// exit code after printing the error.
int readInputs(const Args &args, const Interface &iface, dlc_module_t *so, ModelInputs &known,
               std::map<std::string, TensorPtr> &given);

/// Loads the model and binds inputs: from --input files, or random when `randomFill`.
/// A sequence input `x` (SequenceProto .pb) binds its elements to `x[0]`, `x[1]`, ...;
/// an optional input (OptionalProto .pb) its value, or nothing when it has none.
int prepare(const Args &args, Runner &r, Interface &iface, const PrepareOptions &options = {});

/// The options a JIT compile of `inputs` uses.
CompileOptions jitCompileOptions(const ModelInputs &inputs);

std::string elementName(const std::string &name, size_t i);
/// Element `i` of a tensor as a double (NaN for dtypes without a conversion here:
/// bfloat16, float8, sub-byte floats, strings).
double elementAsDouble(const dlc_tensor_t *t, int64_t i);
/// An output name as a file name: characters outside [A-Za-z0-9_.-] become '_'.
std::string sanitize(const std::string &name);

} // namespace dlc::cli

#endif
