// Helpers shared by the dlc_graph -> linalg lowering patterns.
#ifndef DLC_CODEGEN_CONVERSION_GRAPHTOLINALG_LOWERINGUTILS_H
#define DLC_CODEGEN_CONVERSION_GRAPHTOLINALG_LOWERINGUTILS_H

#include "dialects/Graph/IR/ScalarBuilders.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace dlc::conversion {

using ScalarBodyFn =
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// tensor.empty of a static type.
mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type);

/// Map from the loop dims of `resultShape` to an operand of `operandShape` under
/// NumPy broadcasting (operand dims align right; size-1 dims read index 0).
mlir::AffineMap broadcastMap(mlir::MLIRContext *ctx, llvm::ArrayRef<int64_t> operandShape,
                             llvm::ArrayRef<int64_t> resultShape);

/// A parallel linalg.generic computing `body(scalars of inputs)` into a new
/// tensor of `resultType`, broadcasting every input to it.
mlir::Value buildElementwise(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::RankedTensorType resultType, mlir::ValueRange inputs,
                             ScalarBodyFn body);

using dlc::graph::floatOrInt;
using dlc::graph::scalarConstant;

/// The identity of max (lowest value) or min (highest value) for `elt`.
mlir::Value extremeConstant(mlir::OpBuilder &b, mlir::Location loc, mlir::Type elt, bool lowest);

/// Reshape through collapse/expand (static shapes; handles rank 0).
mlir::Value reshapeTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                          mlir::RankedTensorType to);

/// `v` with dims permuted (result dim i is dim perm[i] of `v`): a new constant for
/// dense constants (weights packed at compile time), else a linalg.transpose.
mlir::Value permuteTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                          llvm::ArrayRef<int64_t> perm);

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

/// A tensor of `type` filled with `value`.
mlir::Value filledTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
                         mlir::Value value);

/// A parallel linalg.generic over `type` whose body computes each element from
/// its indices and the scalars of `inputs` (read through `inputMaps`):
/// `body(builder, loc, indices, scalars)`.
mlir::Value buildIndexed(
    mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type, mlir::ValueRange inputs,
    llvm::ArrayRef<mlir::AffineMap> inputMaps,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location, mlir::ValueRange,
                                   mlir::ValueRange)>
        body);

/// An integer index scalar as `index`: negative values wrapped once by `size`,
/// then clamped to [0, size - 1] (ONNX gathers).
mlir::Value wrapAndClampIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value i, int64_t size);

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
