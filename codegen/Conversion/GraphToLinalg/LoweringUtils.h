// Helpers shared by the dlc_graph -> linalg lowering patterns.
#ifndef DLC_CODEGEN_CONVERSION_GRAPHTOLINALG_LOWERINGUTILS_H
#define DLC_CODEGEN_CONVERSION_GRAPHTOLINALG_LOWERINGUTILS_H

#include "dialects/Graph/IR/ScalarBuilders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace dlc::conversion {

using ScalarBodyFn =
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// tensor.empty of `type`; a type with dynamic dims takes every dim's size from `sizes`
/// (static dims may be given as attributes).
mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
                        llvm::ArrayRef<mlir::OpFoldResult> sizes = {});
/// The sizes of `type`'s dims: static ones as attributes, each dynamic one the size of the
/// same dim of `src` (a convolution's or pool's batch).
llvm::SmallVector<mlir::OpFoldResult> leadingSizes(mlir::OpBuilder &b, mlir::Location loc,
                                                   mlir::RankedTensorType type, mlir::Value src);
/// tensor.empty of `type`, its dynamic dims sized by broadcastSizes over `sources`.
mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
                        mlir::ValueRange sources);
/// The sizes of `type`'s dims: static ones as attributes, each dynamic one the size of the
/// first of `sources` dynamic at the same position from the right (NumPy alignment).
llvm::SmallVector<mlir::OpFoldResult> broadcastSizes(mlir::OpBuilder &b, mlir::Location loc,
                                                     mlir::RankedTensorType type,
                                                     mlir::ValueRange sources);

/// Map from the loop dims of `resultShape` to an operand of `operandShape` under
/// NumPy broadcasting (operand dims align right; size-1 dims read index 0).
mlir::AffineMap broadcastMap(mlir::MLIRContext *ctx, llvm::ArrayRef<int64_t> operandShape,
                             llvm::ArrayRef<int64_t> resultShape);

/// A parallel linalg.generic computing `body(scalars of inputs)` into a new
/// tensor of `resultType`, broadcasting every input to it.
mlir::Value buildElementwise(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::RankedTensorType resultType, mlir::ValueRange inputs,
                             ScalarBodyFn body,
                             llvm::ArrayRef<mlir::OpFoldResult> sizes = {});

using dlc::graph::floatOrInt;
using dlc::graph::scalarConstant;

/// The identity of max (lowest value) or min (highest value) for `elt`.
mlir::Value extremeConstant(mlir::OpBuilder &b, mlir::Location loc, mlir::Type elt, bool lowest);

/// An scf.for over [lo, hi) carrying `inits`; `body` (builder, location, induction
/// variable, carried values) gives the next values. Returns the final ones.
llvm::SmallVector<mlir::Value> buildLoop(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Value lo, mlir::Value hi, mlir::ValueRange inits,
    llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::OpBuilder &, mlir::Location, mlir::Value,
                                                      mlir::ValueRange)>
        body);
/// An scf.if giving `then`'s values when `cond` holds, else `values` unchanged.
llvm::SmallVector<mlir::Value>
buildIfThen(mlir::OpBuilder &b, mlir::Location loc, mlir::Value cond, mlir::ValueRange values,
            llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::OpBuilder &, mlir::Location)> then);

/// Marks `op`'s result `result` as having the computed symbolic dim `symbol` (NonZero's
/// count, ...) at dim `dim`, so that symbolicSize finds its size for the ops that follow.
inline constexpr llvm::StringLiteral kComputedDimMark = "dlc.computed_dim";
void markComputedDim(mlir::Operation *op, llvm::StringRef symbol, unsigned result, int64_t dim);

/// Reshape of a tensor with dynamic dims: one collapse or expand where the dims group,
/// else through 1-D; the target has at most one dynamic dim outside such groups.
mlir::Value reshapeDynamic(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                           mlir::RankedTensorType to);
/// The same with every target dim's size given (any number of dynamic dims).
mlir::Value reshapeDynamic(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                           mlir::RankedTensorType to, llvm::ArrayRef<mlir::OpFoldResult> sizes);

/// Reshape through collapse/expand (handles rank 0; dynamic shapes by reshapeDynamic).
mlir::Value reshapeTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                          mlir::RankedTensorType to);

/// `v` with dims permuted (result dim i is dim perm[i] of `v`): a new constant for
/// dense constants (weights packed at compile time), else a linalg.transpose.
mlir::Value permuteTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                          llvm::ArrayRef<int64_t> perm);

/// A constant of `shape` and element type `elt` holding `values`, row-major, as stored
/// (weights packed at compile time: bf16 bit patterns, integer codes, floats).
template <typename T>
mlir::Value rawConstant(mlir::OpBuilder &b, mlir::Location loc, llvm::ArrayRef<int64_t> shape,
                        mlir::Type elt, llvm::ArrayRef<T> values) {
  llvm::ArrayRef<char> bytes(reinterpret_cast<const char *>(values.data()),
                             values.size() * sizeof(T));
  return mlir::arith::ConstantOp::create(
      b, loc,
      mlir::DenseElementsAttr::getFromRawBuffer(mlir::RankedTensorType::get(shape, elt), bytes));
}

/// tensor.pad with a constant value; pads are [lo_0.., hi_0..], non-negative.
mlir::Value padConstant(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                        llvm::ArrayRef<int64_t> lo, llvm::ArrayRef<int64_t> hi, mlir::Value pad);

/// Activations `lhs` [..., M, K] (already in the operand type) times `weights` packed as
/// [NP/L][KG/G][L][G] (K padded with zero rows to KG, a multiple of the group G; N with
/// zero columns to NP, a multiple of the lanes L) into `type` ([..., M, N] of `accType`):
/// `lhs` padded with zeros to KG and viewed [..., M, KG/G, G], then a linalg.generic over
/// loops (rows..., n1, n0, k1, k0) whose body is `body(a, w, acc)`, viewed back as
/// [..., M, NP] and sliced to N. The dot-group form of integer and bf16 products
/// (QUANT-NOTES.md §3.1), which the x86 dot-product rewrites match.
mlir::Value groupedContraction(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::RankedTensorType type, mlir::Value lhs,
                               mlir::Value weights, int64_t k, int64_t lanes, int64_t group,
                               mlir::Type accType, ScalarBodyFn body);

/// Weights [K, N] (row-major `w`) packed for groupedContraction: [NP/L][KG/G][L][G], zero
/// beyond K and N.
template <typename T>
std::vector<T> packGroupedRows(llvm::ArrayRef<T> w, int64_t k, int64_t n, int64_t lanes,
                               int64_t group) {
  int64_t kg = llvm::alignTo(k, group), np = llvm::alignTo(n, lanes);
  std::vector<T> packed(np * kg, T(0));
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t c = 0; c < n; ++c)
      packed[(((c / lanes) * (kg / group) + kk / group) * lanes + c % lanes) * group +
             kk % group] = w[kk * n + c];
  return packed;
}

/// Conv weights [KH, KW, C, F] (row-major `w`) packed for groupedConvolution:
/// [FP/L][KH][KW][CG/G][L][G], zero beyond C and F.
template <typename T>
std::vector<T> packGroupedFilters(llvm::ArrayRef<T> w, llvm::ArrayRef<int64_t> ws, int64_t lanes,
                                  int64_t group) {
  int64_t kh = ws[0], kw = ws[1], c = ws[2], f = ws[3];
  int64_t cg = llvm::alignTo(c, group), fp = llvm::alignTo(f, lanes);
  std::vector<T> packed(fp * kh * kw * cg, T(0));
  for (int64_t i = 0; i < kh; ++i)
    for (int64_t j = 0; j < kw; ++j)
      for (int64_t ch = 0; ch < c; ++ch)
        for (int64_t o = 0; o < f; ++o) {
          int64_t at = ((((o / lanes) * kh + i) * kw + j) * (cg / group) + ch / group) * lanes;
          packed[(at + o % lanes) * group + ch % group] = w[((i * kw + j) * c + ch) * f + o];
        }
  return packed;
}

/// The sizes of a conv's or pool's result `type` (or a view of it): static dims as
/// attributes; a dynamic dim `spatial` + i (i < 2) the number of windows of `spans[i]`
/// elements at `strides[i]` along dim `xSpatial` + i of the padded input `x`; another
/// dynamic dim (the batch, a pool's channels) that of the same dim of `x`.
llvm::SmallVector<mlir::OpFoldResult> windowSizes(mlir::OpBuilder &b, mlir::Location loc,
                                                  mlir::RankedTensorType type, mlir::Value x,
                                                  int64_t spatial, int64_t xSpatial,
                                                  llvm::ArrayRef<int64_t> spans,
                                                  llvm::ArrayRef<int64_t> strides);

/// The pixels a strided 1x1 conv reads from NHWC `x`: rows and columns stepped by
/// `strides`, `oh` x `ow` of them (`x` itself for stride 1).
mlir::Value stridedPixels(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x, int64_t oh,
                          int64_t ow, llvm::ArrayRef<int64_t> strides);

/// im2col: the windows of the padded NHWC input `x` for an output of `out` ([N, OH, OW, *])
/// copied out as [N, OH, OW, KH, KW, C] (C: `x`'s channels), window (oh, ow) at
/// (oh * stride + kh * dilation, ow * stride + kw * dilation).
mlir::Value im2colWindows(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                          llvm::ArrayRef<int64_t> out, int64_t kh, int64_t kw,
                          llvm::ArrayRef<int64_t> strides, llvm::ArrayRef<int64_t> dilations);

/// The implicit GEMM of the grouped form (QUANT-NOTES.md §6): the padded input `x`
/// [N, Hp, Wp, CG] (channels padded to a multiple of G, already in the operand type; a
/// strided 1x1 conv passes its strided pixels) viewed [N, Hp, Wp, CG/G, G], times
/// `weights` packed [FP/L][KH][KW][CG/G][L][G] (packGroupedFilters), into `type` ([N, OH,
/// OW, F] of `accType`): a linalg.generic over loops (n, oh, ow, f1, f0, kh, kw, c1, c0)
/// whose body is `body(x, w, acc)`, viewed back as [N, OH, OW, FP] and sliced to F.
mlir::Value groupedConvolution(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::RankedTensorType type, mlir::Value x, mlir::Value weights,
                               llvm::ArrayRef<int64_t> dilations, int64_t lanes, int64_t group,
                               mlir::Type accType, ScalarBodyFn body);

/// A tensor of `type` filled with `value` (`sizes`: as emptyTensor's).
mlir::Value filledTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
                         mlir::Value value, llvm::ArrayRef<mlir::OpFoldResult> sizes = {});

/// A parallel linalg.generic over `type` whose body computes each element from
/// its indices and the scalars of `inputs` (read through `inputMaps`):
/// `body(builder, loc, indices, scalars)`.
mlir::Value buildIndexed(
    mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type, mlir::ValueRange inputs,
    llvm::ArrayRef<mlir::AffineMap> inputMaps,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location, mlir::ValueRange,
                                   mlir::ValueRange)>
        body,
    llvm::ArrayRef<mlir::OpFoldResult> sizes = {});

/// An integer index scalar as `index`: negative values wrapped once by `size`,
/// then clamped to [0, size - 1] (ONNX gathers).
mlir::Value wrapAndClampIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value i, int64_t size);
/// The same with a size known when the model runs (an `index`).
mlir::Value wrapAndClampIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value i,
                              mlir::Value size);

/// A size of the symbolic dims ("12*batch*seq", "(seq+2)", dlc_graph.reshape's `dims`) as
/// an `index` computed from the model function's arguments that have those dims
/// (`dlc.dims`), the computed dims and the derived sizes' parts; null when some symbol is
/// none of theirs or the text is malformed.
mlir::Value symbolicSize(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *in,
                         llvm::StringRef size);

/// [..., M, K] x [..., K, N] -> `type` ([..., M, N], batch dims broadcast) as one
/// linalg.generic over loops (batch..., m, n, k) from a zero init; `body(a, b, acc)`
/// returns the new accumulator.
mlir::Value batchedMatmulGeneric(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::RankedTensorType type, mlir::Value lhs, mlir::Value rhs,
                                 ScalarBodyFn body);

/// An index constant.
mlir::Value indexConst(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

} // namespace dlc::conversion

#endif
