// The C++ graph builder: a small API that builds a dlc_graph model without an ONNX file.
//
//   dlc::Compilation c({});
//   dlc::builder::GraphBuilder g(c.context());
//   Tensor x = g.input("x", DType::F32, {1, 784});
//   Tensor w = g.weight("w1", {784, 512}, weights);        // std::vector<float>, copied
//   Tensor b = g.weight("b1", {512}, bias);
//   g.output("logits", g.relu(g.add(g.matmul(x, w), b)));
//   auto m = g.finish();                                   // FailureOr<OwningOpRef<ModuleOp>>
//   if (succeeded(m)) c.setModule(std::move(*m));          // then jit::compile or
//   writeSharedLibrary
//
// The module has the form the ONNX importer produces: one `func.func @main_graph`
// whose arguments and results carry `dlc.name` and `dlc.dtype`, weights as
// `arith.constant`. Every op is created with shape inference and verification
// (dlc::graph::createChecked), so a bad graph never aborts: the first problem
// is emitted as an MLIR error at `NameLoc("<op>_<n>")` (n counts the calls of
// that method, from 0), the builder stops (later calls return an invalid
// Tensor and do nothing) and finish() fails. Inside a dlc::Compilation the
// error appears in errors() as one line, e.g.
//   node 'add_1': shapes [2,3] and [4] are not broadcast-compatible
// Axes may be negative (counted from the end) wherever an axis is taken.
#ifndef DLC_FRONTENDS_BUILDER_BUILDER_H
#define DLC_FRONTENDS_BUILDER_BUILDER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Value.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dlc::builder {

/// Element types, numbered like ONNX TensorProto data types (and dlc_dtype_t).
enum class DType : int32_t { Undefined = 0, F32 = 1, I8 = 3, I32 = 6, I64 = 7, Bool = 9, F64 = 11 };

/// A value of the graph being built: a light, copyable handle on an
/// mlir::Value. A default-constructed Tensor, or one returned by a failed
/// call, is invalid (`!t`); passing it where a tensor is required is an error.
class Tensor {
public:
  Tensor() = default;
  explicit Tensor(mlir::Value value) : v(value) {}

  bool valid() const { return static_cast<bool>(v); }
  explicit operator bool() const { return valid(); }
  mlir::Value value() const { return v; }
  /// Static shape (empty for a scalar or an invalid tensor); owned by the context.
  llvm::ArrayRef<int64_t> shape() const;
  int64_t rank() const { return shape().size(); }
  int64_t numElements() const;
  /// DType::Undefined for an invalid tensor.
  DType dtype() const;

private:
  mlir::Value v;
};

/// conv2d window: NCHW input, FCHW weight.
struct Conv2dOptions {
  std::vector<int64_t> strides = {1, 1};
  /// [h, w] (both sides) or [top, left, bottom, right].
  std::vector<int64_t> pads = {0, 0};
  std::vector<int64_t> dilations = {1, 1};
  int64_t group = 1;
};

/// maxPool / averagePool window over NCHW (the kernel is a separate argument).
struct Pool2dOptions {
  std::vector<int64_t> strides = {1, 1};
  /// [h, w] (both sides) or [top, left, bottom, right].
  std::vector<int64_t> pads = {0, 0};
  std::vector<int64_t> dilations = {1, 1};
  bool ceilMode = false;
  /// averagePool only: count padded cells in the divisor.
  bool countIncludePad = false;
};

/// Builds one model. Not thread-safe; one builder per graph. Tensors from
/// another builder are rejected.
class GraphBuilder {
public:
  /// Loads the dialects it needs into `ctx`, which must outlive the builder
  /// and the finished module.
  explicit GraphBuilder(mlir::MLIRContext &ctx);
  ~GraphBuilder();
  GraphBuilder(const GraphBuilder &) = delete;
  GraphBuilder &operator=(const GraphBuilder &) = delete;

  // --- Graph interface --------------------------------------------------
  /// A runtime input, in declaration order (dims >= 0, unique name).
  Tensor input(llvm::StringRef name, DType dtype, llvm::ArrayRef<int64_t> shape);
  /// Marks `t` as an output named `name` (unique among outputs), in order.
  void output(llvm::StringRef name, Tensor t);

  // --- Constants: data is copied, row-major, one value per element ------
  /// Named constants (the name shows in the IR locations).
  Tensor weight(llvm::StringRef name, llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<float> data);
  Tensor weight(llvm::StringRef name, llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<double> data);
  Tensor weight(llvm::StringRef name, llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int32_t> data);
  Tensor weight(llvm::StringRef name, llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> data);
  /// Unnamed constants (named `constant_<n>`).
  Tensor constant(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<float> data);
  Tensor constant(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<double> data);
  Tensor constant(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int32_t> data);
  Tensor constant(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> data);
  /// A rank-0 constant, e.g. `g.mul(x, g.scalar(0.5))`.
  Tensor scalar(double value, DType dtype = DType::F32);

  // --- Elementwise (binary ops broadcast like NumPy) --------------------
  Tensor add(Tensor a, Tensor b);
  Tensor sub(Tensor a, Tensor b);
  Tensor mul(Tensor a, Tensor b);
  Tensor div(Tensor a, Tensor b);
  Tensor pow(Tensor a, Tensor b);
  Tensor max(Tensor a, Tensor b);
  Tensor min(Tensor a, Tensor b);
  Tensor neg(Tensor x);
  Tensor abs(Tensor x);
  Tensor exp(Tensor x);
  Tensor log(Tensor x);
  Tensor sqrt(Tensor x);
  Tensor erf(Tensor x);
  Tensor relu(Tensor x);
  Tensor sigmoid(Tensor x);
  Tensor tanh(Tensor x);
  Tensor leakyRelu(Tensor x, float alpha = 0.01f);
  /// x/2 * (1 + erf(x/sqrt 2)), or the tanh approximation.
  Tensor gelu(Tensor x, bool tanhApproximation = false);
  /// Converts the element type (float to int truncates toward zero).
  Tensor cast(Tensor x, DType to);

  // --- Contractions and NN ops ------------------------------------------
  /// [..., M, K] x [..., K, N] -> [..., M, N]; ranks >= 2, batch dims broadcast.
  Tensor matmul(Tensor a, Tensor b);
  /// alpha * op(A) * op(B) + beta * C, A and B rank 2; `c` optional (broadcast to [M, N]).
  Tensor gemm(Tensor a, Tensor b, Tensor c = {}, float alpha = 1.0f, float beta = 1.0f,
              bool transA = false, bool transB = false);
  /// x [N, C, H, W], w [F, C/group, KH, KW], optional bias [F].
  Tensor conv2d(Tensor x, Tensor w, Tensor bias = {}, const Conv2dOptions &options = {});
  /// `kernel` is [KH, KW].
  Tensor maxPool(Tensor x, llvm::ArrayRef<int64_t> kernel, const Pool2dOptions &options = {});
  Tensor averagePool(Tensor x, llvm::ArrayRef<int64_t> kernel, const Pool2dOptions &options = {});
  /// Mean over all spatial dims of [N, C, ...], kept as size 1.
  Tensor globalAveragePool(Tensor x);
  Tensor softmax(Tensor x, int64_t axis = -1);
  Tensor logSoftmax(Tensor x, int64_t axis = -1);
  /// Normalizes over dims [axis, rank); scale and optional bias broadcast to them.
  Tensor layerNorm(Tensor x, Tensor scale, Tensor bias = {}, int64_t axis = -1,
                   float epsilon = 1e-5f);
  /// Inference batch norm over axis 1 with per-channel [C] parameters.
  Tensor batchNorm(Tensor x, Tensor scale, Tensor bias, Tensor mean, Tensor variance,
                   float epsilon = 1e-5f);

  // --- Reductions: empty `axes` reduces all dims ------------------------
  Tensor reduceSum(Tensor x, llvm::ArrayRef<int64_t> axes = {}, bool keepdims = true);
  Tensor reduceMean(Tensor x, llvm::ArrayRef<int64_t> axes = {}, bool keepdims = true);
  Tensor reduceMax(Tensor x, llvm::ArrayRef<int64_t> axes = {}, bool keepdims = true);
  Tensor reduceMin(Tensor x, llvm::ArrayRef<int64_t> axes = {}, bool keepdims = true);

  // --- Shape and data movement ------------------------------------------
  /// New shape with the same element count; at most one dim may be -1 (inferred).
  Tensor reshape(Tensor x, llvm::ArrayRef<int64_t> shape);
  /// [d0 .. d(axis-1), d(axis) .. d(rank-1)] -> 2-D [prod(before), prod(after)].
  Tensor flatten(Tensor x, int64_t axis = 1);
  /// Output dim i is input dim perm[i]; an empty perm reverses the dims.
  Tensor transpose(Tensor x, llvm::ArrayRef<int64_t> perm = {});
  Tensor concat(llvm::ArrayRef<Tensor> inputs, int64_t axis);

  // --- Result -------------------------------------------------------------
  /// Returns the module, or failure if any call failed or there are no
  /// outputs. The builder is done afterwards: later calls are errors.
  mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>> finish();

  /// False once a call has failed.
  bool ok() const;
  /// The first error as one line (`node 'add_1': ...`), or "" when ok().
  const std::string &error() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace dlc::builder

#endif
