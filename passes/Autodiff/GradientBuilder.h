// Helpers the gradient rules share: constants, zeros, undoing a broadcast.
#ifndef DLC_PASSES_AUTODIFF_GRADIENTBUILDER_H
#define DLC_PASSES_AUTODIFF_GRADIENTBUILDER_H

#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/IR/Builders.h"

namespace dlc::autodiff {

inline mlir::RankedTensorType tensorTypeOf(mlir::Value v) {
  return mlir::cast<mlir::RankedTensorType>(v.getType());
}

/// A rank-0 constant of `elt` (broadcasts against anything).
mlir::Value scalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Type elt, double v);

/// A constant of `type` with every element `v`.
mlir::Value splat(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type, double v);

/// The gradient `grad` of a broadcast result, summed back to the operand's `type`:
/// over the leading dims the operand lacks and the dims it has as 1.
mlir::Value unbroadcast(mlir::OpBuilder &b, mlir::Location loc, mlir::Value grad,
                        mlir::RankedTensorType type);

/// `v` broadcast to `type` (NumPy rules), or `v` when it already has that shape.
mlir::Value broadcastTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                        mlir::Value like);

/// where(cond, v, 0) with `v` broadcast to cond's shape where needed.
mlir::Value selectOrZero(mlir::OpBuilder &b, mlir::Location loc, mlir::Value cond,
                         mlir::Value v);

/// Registers the gradient rules of dlc_graph ops (external models of the
/// Differentiable interface).
void registerGradientRules(mlir::DialectRegistry &registry);

} // namespace dlc::autodiff

#endif
