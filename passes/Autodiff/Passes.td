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

def ParamsToArgs : Pass<"dlc-params-to-args", "::mlir::ModuleOp"> {
  let summary = "Trainable float initializers become arguments of @main_graph (before folding)";
  let description = [{
    First step of `dlc compile --train`: every float initializer constant (a
    constant at a bare NameLoc, as the ONNX importer leaves them) that is not
    frozen becomes an argument marked `dlc.param`, its value kept in
    `dlc.param_init`, so that canonicalization cannot fold a parameter into
    the ops that use it (a transposed Gemm weight, say).
  }];
  let options = [
    ListOption<"freeze", "freeze", "std::string", "float initializers to keep constant">,
  ];
  let dependentDialects = ["::dlc::graph::GraphDialect", "::mlir::arith::ArithDialect"];
}

def TrainingStep : Pass<"dlc-training-step", "::mlir::ModuleOp"> {
  let summary = "Loss, gradients and optimizer update of the dlc.param arguments, as one step";
  let description = [{
    Second step of `dlc compile --train`, after `dlc-decompose`: appends the
    `labels` input and the loss (mse: mean squared error; xent: mean softmax
    cross-entropy of [N, C] logits against int64 classes), differentiates it
    with respect to the `dlc.param` arguments (`dlc-autodiff`'s reverse walk),
    and makes the parameters and the optimizer's state (momentum; Adam's
    moments and step count) mutable `ml_program.global`s read at the start of
    the step and stored at its end. @main_graph then maps (inputs..., labels)
    to `loss`; the module attribute `dlc.state` names each parameter global and
    `dlc.memory_report` holds the step's memory (passes/Autodiff/MemoryReport.h).
  }];
  let options = [
    Option<"loss", "loss", "::dlc::autodiff::LossKind",
           "::dlc::autodiff::LossKind::MeanSquaredError", "the loss", [{::llvm::cl::values(
      clEnumValN(::dlc::autodiff::LossKind::MeanSquaredError, "mse", "mean squared error"),
      clEnumValN(::dlc::autodiff::LossKind::SoftmaxCrossEntropy, "xent",
                 "softmax cross-entropy of [N, C] logits against int64 classes"))}]>,
    Option<"output", "output", "std::string", /*default=*/"\"\"",
           "the model output the loss reads (default: the first)">,
    Option<"optimizer", "optimizer", "::dlc::autodiff::OptimizerKind",
           "::dlc::autodiff::OptimizerKind::SGD", "the optimizer", [{::llvm::cl::values(
      clEnumValN(::dlc::autodiff::OptimizerKind::SGD, "sgd", "SGD with momentum"),
      clEnumValN(::dlc::autodiff::OptimizerKind::Adam, "adam", "Adam, weight decay as L2"),
      clEnumValN(::dlc::autodiff::OptimizerKind::AdamW, "adamw", "Adam, decoupled weight decay"))}]>,
    Option<"lr", "lr", "double", /*default=*/"0",
           "learning rate (0: the optimizer's default, 0.01 for sgd and 0.001 for adam)">,
    Option<"momentum", "momentum", "double", /*default=*/"0", "SGD momentum">,
    Option<"beta1", "beta1", "double", /*default=*/"0.9", "Adam's first-moment decay">,
    Option<"beta2", "beta2", "double", /*default=*/"0.999", "Adam's second-moment decay">,
    Option<"eps", "eps", "double", /*default=*/"1e-8", "Adam's denominator term">,
    Option<"weightDecay", "weight-decay", "double", /*default=*/"0", "weight decay">,
    Option<"remat", "remat", "::dlc::autodiff::RematPolicy",
           "::dlc::autodiff::RematPolicy::StoreAll", "activations for the backward pass",
           [{::llvm::cl::values(
      clEnumValN(::dlc::autodiff::RematPolicy::StoreAll, "store-all", "keep all"),
      clEnumValN(::dlc::autodiff::RematPolicy::RecomputeAll, "recompute-all",
                 "recompute those of cheap ops"),
      clEnumValN(::dlc::autodiff::RematPolicy::Auto, "auto",
                 "recompute the largest until the saved ones fit remat-budget-mib"))}]>,
    Option<"rematBudgetMiB", "remat-budget-mib", "double", /*default=*/"0",
           "with remat=auto: the saved-activation budget in MiB">,
  ];
  let dependentDialects = ["::dlc::graph::GraphDialect", "::mlir::arith::ArithDialect",
                           "::mlir::ml_program::MLProgramDialect"];
}

#endif
