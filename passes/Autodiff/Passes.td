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

class TrainingPass<string name, string summaryText> : Pass<name, "::mlir::ModuleOp"> {
  let summary = summaryText;
  let options = [
    Option<"loss", "loss", "std::string", /*default=*/"\"\"", "mse:OUTPUT or xent:OUTPUT">,
    Option<"optimizer", "optimizer", "std::string", /*default=*/"\"sgd:lr=0.01\"",
           "sgd:lr=..[,momentum=..,weight_decay=..] or adam|adamw:lr=..[,beta1=..,beta2=..,eps=..,weight_decay=..]">,
    Option<"freeze", "freeze", "std::string", /*default=*/"\"\"",
           "comma-separated float initializers to keep constant">,
    Option<"remat", "remat", "std::string", /*default=*/"\"store-all\"",
           "store-all, recompute-all or auto:MIB (saved-activation budget)">,
  ];
  let dependentDialects = ["::dlc::graph::GraphDialect", "::mlir::arith::ArithDialect",
                           "::mlir::ml_program::MLProgramDialect"];
}

def ParamsToArgs : TrainingPass<"dlc-params-to-args",
    "Trainable float initializers become arguments of @main_graph (before folding)"> {
  let description = [{
    First step of `dlc compile --train`: every float initializer constant (a
    constant at a bare NameLoc, as the ONNX importer leaves them) that is not
    frozen becomes an argument marked `dlc.param`, its value kept in
    `dlc.param_init`, so that canonicalization cannot fold a parameter into
    the ops that use it (a transposed Gemm weight, say).
  }];
}

def TrainingStep : TrainingPass<"dlc-training-step",
    "Loss, gradients and optimizer update of the dlc.param arguments, as one step"> {
  let description = [{
    Second step of `dlc compile --train`, after `dlc-decompose`: appends the
    `labels` input and the loss (mse: mean squared error; xent: mean softmax
    cross-entropy of [N, C] logits against int64 classes), differentiates it
    with respect to the `dlc.param` arguments (`dlc-autodiff`'s reverse walk),
    and makes the parameters and the optimizer's state (momentum; Adam's
    moments and step count) mutable `ml_program.global`s read at the start of
    the step and stored at its end. @main_graph then maps (inputs..., labels)
    to `loss`; the module attribute `dlc.state` names each parameter global.
  }];
}

#endif
