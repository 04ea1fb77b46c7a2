// Reverse-mode autodiff of a dlc_graph function over the Differentiable interface.
#ifndef DLC_PASSES_AUTODIFF_AUTODIFF_H
#define DLC_PASSES_AUTODIFF_AUTODIFF_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace dlc::autodiff {

/// Appends to `func` one result per argument in `wrt`: the gradient of the sum of
/// result `loss` (the loss itself when it is a scalar) with respect to that
/// argument, named `grad_<argument name>`. Built by one reverse walk over the
/// body: each op's Differentiable interface gives its operands' gradients,
/// gradients of a value used several times are added. An argument the loss does
/// not depend on gets zeros. Fails, with an error naming the op, where a gradient
/// must pass through an op that is not differentiable.
mlir::LogicalResult appendGradients(mlir::func::FuncOp func, unsigned loss,
                                    llvm::ArrayRef<unsigned> wrt);

} // namespace dlc::autodiff

#endif
