// Autodiff passes.
#ifndef DLC_PASSES_AUTODIFF_PASSES_TD
#define DLC_PASSES_AUTODIFF_PASSES_TD

include "mlir/Pass/PassBase.td"

def Autodiff : Pass<"dlc-autodiff", "::mlir::func::FuncOp"> {
  let summary = "Append the gradients of a loss output with respect to inputs";
  let description = [{
    Reverse-mode autodiff as a graph transformation: one reverse walk over the
    function body asks each op's `DifferentiableOpInterface` for the
    gradients of its operands (vector-Jacobian products built from ordinary
    dlc_graph ops), adding the contributions of values used several times and
    summing broadcast operands back to their shapes. The function gets one
    more result per differentiated argument, `grad_<name>`: the gradient of
    the sum of the loss output (the loss itself when it is a scalar). An op
    the loss depends on through float values without the interface is an
    error naming it. Run after `dlc-decompose` (composite ops are
    differentiated through their primitives).
  }];
  let options = [
    Option<"loss", "loss", "std::string", /*default=*/"\"\"",
           "the output (by name) to differentiate; default: the first">,
    ListOption<"wrt", "wrt", "std::string",
               "inputs (by name) to differentiate with respect to; default: every float input">,
  ];
  let dependentDialects = ["::dlc::graph::GraphDialect", "::mlir::arith::ArithDialect"];
}

#endif
