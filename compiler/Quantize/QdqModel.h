// Post-training quantization of an ONNX model into the standard QDQ form (`dlc quantize`):
// which contractions (Conv, MatMul, Gemm) are quantized and why not, and the rewrite
// that inserts QuantizeLinear/DequantizeLinear pairs on their activations and stores
// their weights as int8 (bias as int32) behind DequantizeLinear. ONNX Runtime runs the
// result with its int8 kernels, dlc through dlc-quantize-contractions.
#ifndef DLC_COMPILER_QUANTIZE_QDQMODEL_H
#define DLC_COMPILER_QUANTIZE_QDQMODEL_H

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
}

namespace dlc::quantize {

struct QuantizeOptions {
  /// Weights per output channel (opset >= 13), else one scale per tensor.
  bool perChannel = false;
  /// Nodes (by name, or <OpType>_<index> when unnamed) left in float.
  std::set<std::string> exclude;
  /// Dynamic quantization (writeDynamic): MatMul and Gemm only, no calibration.
  bool dynamic = false;
  /// Weight-only int4 (writeInt4Weights): MatMul or Gemm (not transA; C a 1-D constant)
  /// of a 2-D weight of at least
  /// kInt4MinElements elements.
  bool int4Weights = false;
};

/// writeInt4Weights' blocks along K, and the smallest weight it quantizes.
constexpr int64_t kInt4Block = 32;
constexpr int64_t kInt4MinElements = 4096;

/// What became of one contraction of the model.
struct NodeDecision {
  std::string node, opType;
  size_t index = 0;        // in graph.node
  bool quantized = false;  // after planning: a candidate; after writeQdq: quantized
  std::string why;         // kept float: why
  std::string activation;  // the activation tensor it reads (candidates)
  std::string weightNote;  // "per channel" / "per tensor", set by writeQdq
};

struct QuantizationPlan {
  std::vector<NodeDecision> nodes;      // graph order
  std::vector<std::string> activations; // tensors to calibrate, first-use order
};

/// A calibrated activation: its range, or why it cannot be quantized.
struct ActivationRange {
  bool ok = false;
  double lo = 0, hi = 0;
  std::string why; // when !ok
};

/// Picks the contractions to quantize: Conv, MatMul and Gemm of a float activation
/// and a float initializer weight, not excluded. False with `error` for a model that
/// cannot be quantized at all (opset below 10, or below 13 with per-channel weights,
/// an --exclude name that is no node).
bool planQuantization(const onnx::ModelProto &model, const QuantizeOptions &options,
                      QuantizationPlan &plan, std::string &error);

/// Rewrites `model` into QDQ form for the candidates of `plan` whose activation has
/// a range in `ranges` (the others are kept float, `plan` says why): u8 activations
/// (asymmetric, per tensor), s8 symmetric weights, int32 bias. Updates `plan`.
void writeQdq(onnx::ModelProto &model, QuantizationPlan &plan,
              const std::map<std::string, ActivationRange> &ranges, const QuantizeOptions &options);

/// Rewrites the candidates of `plan` (planned with `options.dynamic`) into ONNX Runtime's
/// quantize_dynamic form: the activation quantized per call (DynamicQuantizeLinear, u8),
/// the weight s8 symmetric (per output column with `perChannel`), MatMulInteger, and the
/// i32 result scaled by `s_x * s_w` (Gemm: times alpha, plus beta * C). Updates `plan`.
void writeDynamic(onnx::ModelProto &model, QuantizationPlan &plan, const QuantizeOptions &options);

/// Rewrites the candidates of `plan` (planned with `options.int4Weights`) into
/// com.microsoft MatMulNBits: 4-bit codes in blocks of kInt4Block along K, each block
/// asymmetric (a float scale and a 4-bit zero point), the activation stays float.
void writeInt4Weights(onnx::ModelProto &model, QuantizationPlan &plan);

} // namespace dlc::quantize

#endif
