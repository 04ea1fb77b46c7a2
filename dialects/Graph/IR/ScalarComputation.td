// The ScalarComputation op interface: an elementwise op's semantics on one element.
#ifndef DLC_GRAPH_SCALAR_COMPUTATION_TD
#define DLC_GRAPH_SCALAR_COMPUTATION_TD

include "mlir/IR/OpBase.td"

def Graph_ScalarComputation : OpInterface<"ScalarComputationOpInterface"> {
  let cppNamespace = "::dlc::graph";
  let description = [{
    An elementwise op's computation on one element of each operand (operands
    broadcast to the result), built from `arith` and `math` ops: the one
    source of the op's scalar semantics (ScalarSemantics.cpp). The linalg
    lowering uses it as the body of the op's `linalg.generic`; the op's
    constant folder evaluates the same body with the `arith`/`math` folders
    (IEEE arithmetic: 0/0 is NaN, max(NaN, x) is NaN, x mod 0 is NaN), so a
    folded value is what the compiled op computes. Where a body op cannot be
    folded (integer division by zero, log of a negative number) the op is not
    folded and computes at run time.
  }];
  let methods = [
    InterfaceMethod<[{
        Builds the result element from `args`, one element of each operand in
        operand order, at the builder's insertion point.
      }], "::mlir::Value", "buildScalar",
      (ins "::mlir::OpBuilder &":$b, "::mlir::Location":$loc, "::mlir::ValueRange":$args)>,
  ];
}

#endif
