// The Differentiable op interface: an op states its vector-Jacobian product as graph ops.
#ifndef DLC_INTERFACES_DIFFERENTIABLE_TD
#define DLC_INTERFACES_DIFFERENTIABLE_TD

include "mlir/IR/OpBase.td"

def DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::dlc";
  let description = [{
    An op that reverse-mode autodiff (`dlc-autodiff`) can walk through. Given
    the gradient of a scalar loss with respect to each of its results, the op
    builds the gradients with respect to its operands (the vector-Jacobian
    product) out of ordinary graph ops, so backward graphs fuse and lower like
    any other graph. Broadcast operands get gradients reduced back to their
    own shape. An operand that carries no gradient (an index, a condition, a
    piecewise-constant input) gets a null value. Ops without the interface
    (integer, shape and comparison ops) are non-differentiable.
  }];
  let methods = [
    InterfaceMethod<[{
        Builds, with `b` (its insertion point already set), the gradient of
        every operand from `resultGrads` (one per result; null for a result
        the loss does not depend on). Fills `operandGrads` with one value or
        null per operand. Fails, with an error on the op, for a configuration
        it cannot differentiate.
      }],
      "::llvm::LogicalResult", "buildVjp",
      (ins "::mlir::OpBuilder &":$b, "::mlir::ArrayRef<::mlir::Value>":$resultGrads,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGrads)>,
  ];
}

#endif // DLC_INTERFACES_DIFFERENTIABLE_TD
