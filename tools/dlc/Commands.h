// The dlc subcommands and the helpers they share (model loading, tensor summaries).
#ifndef DLC_TOOLS_DLC_COMMANDS_H
#define DLC_TOOLS_DLC_COMMANDS_H

#include "compiler/Compiler.h"
#include "compiler/Quantize/Calibration.h"
#include "compiler/Quantize/QdqModel.h"
#include "runtime/dlc_runtime.h"
#include "tools/dlc/Subcommands.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
}

namespace dlc::cli {

struct Args;
/// What post-training quantization (dlc quantize, dlc compile --quantize=int8) is asked.
struct QuantizeRequest {
  std::string model, calib;
  quantize::CalibrationMethod method;
  quantize::QuantizeOptions options;
  int32_t threads = 0;
  uint64_t maxMemory = 0;
  bool quiet = false;
};
/// Reads --calib, --method, --per-channel, --exclude, --threads, --max-memory and -q of
/// `args` (the model is args.positional[0]; set request.options.dynamic first, which
/// takes no calibration); 0, or 1 after printing the error.
int parseQuantizeRequest(const Args &args, QuantizeRequest &request);
/// Calibrates `request.model` and rewrites it into QDQ form in `model`, the per-node
/// report on stderr; `summary` says how many nodes were quantized. 0, or 1 after
/// printing the error.
int quantizeModel(const QuantizeRequest &request, onnx::ModelProto &model, std::string &summary);
/// The same for `request.options.dynamic` (quantize_dynamic's form) or `int4Weights`
/// (MatMulNBits): no calibration.
int quantizeDynamic(const QuantizeRequest &request, onnx::ModelProto &model, std::string &summary);
/// Quantizes (calibrated or dynamic) into a new temporary .onnx file `path` (beside the
/// model when its directory is writable) that the caller removes. 0, or 1 after the error.
int quantizeToFile(const QuantizeRequest &request, std::string &path);

bool isOnnxPath(const std::string &path);

/// What a JIT compile is specialized to: tensors by runtime input name (`x`,
/// or `x[i]` for the elements of a sequence input `x`), sequence lengths, and
/// optional inputs given without a value.
struct ModelInputs {
  std::map<std::string, const dlc_tensor_t *> tensors;
  std::map<std::string, int64_t> sequenceLengths;
  std::set<std::string> absent;
  /// dlc verify: values to make outputs too, and the LLVM optimization level.
  std::vector<std::string> extraOutputs;
  int optLevel = 3;
  /// --max-memory of a JIT compile (0: CompileOptions' default).
  uint64_t maxMemory = 0;
};

/// Loads a compiled .so, or JIT-compiles a .onnx specialized to `inputs`: their
/// shapes fix symbolic dims, and small ones are values the compiler may
/// specialize to where it needs a constant (axes, shapes, ...). Null with
/// `error` set on failure.
dlc_module_t *loadModel(const std::string &path, const ModelInputs &inputs, std::string &error);

/// Inputs up to this many elements may be specialized to their values.
constexpr int64_t kMaxSpecializedElements = 4096;
/// A tensor's dtype, shape and bytes, for CompileOptions::inputValues.
TensorValue tensorValue(const dlc_tensor_t *t);

/// Reads FILE.pb (ONNX TensorProto) or FILE.npy; null with `error` on failure.
dlc_tensor_t *loadTensorFile(const std::string &file, std::string &error);

/// Parses "1x3x224x224" (or "" for a scalar) into dims.
bool parseShape(const std::string &text, std::vector<int64_t> &dims);
/// "NAME=VALUE" option values -> (name, value); false if malformed.
bool splitAssignment(const std::string &text, std::string &name, std::string &value);
struct Args;
/// Every `--input-shape NAME=DxDx..` of `args` into `shapes`; false with `error` if malformed.
/// With `symbols`, the comma form NAME=D,D,.. may also name symbols (--dims): such a dim is
/// -1 in `shapes` and its name at its position in (*symbols)[NAME] (others empty).
bool parseInputShapes(const Args &args, std::map<std::string, std::vector<int64_t>> &shapes,
                      std::string &error,
                      std::map<std::string, std::vector<std::string>> *symbols = nullptr);
/// The range a training step's symbolic dims get without --dims: any batch up to this.
constexpr int64_t kDefaultTrainingDimMax = 65536;
/// --dims NAME=MIN..MAX[,NAME=MIN..MAX...] (repeatable): symbolic dims kept dynamic.
bool parseDynamicDims(const Args &args, std::map<std::string, std::pair<int64_t, int64_t>> &dims,
                      std::string &error);
std::string shapeString(int32_t rank, const int64_t *shape);
/// A module tensor's declared shape, symbolic dims by name: "[batch,784]".
std::string infoShapeString(const dlc_module_t *module, const dlc_tensor_info_t &info);

} // namespace dlc::cli

#endif
