// Training steps: a model, a loss on one of its outputs and an optimizer, as one function.
#ifndef DLC_PASSES_AUTODIFF_TRAINING_H
#define DLC_PASSES_AUTODIFF_TRAINING_H

#include "passes/Autodiff/TrainingOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace dlc::autodiff {

/// Step 1, on the imported module before any folding: every float initializer
/// constant not in `options.frozen` (named by its `NameLoc`) becomes an argument of
/// @main_graph marked `dlc.param`, its value kept in `dlc.param_init`, so that
/// canonicalization cannot fold it into the ops that use it.
mlir::LogicalResult parametersToArguments(mlir::ModuleOp module, const TrainingOptions &options);

/// Step 2, after composite ops are decomposed: appends the `labels` input and the
/// loss, differentiates the loss with respect to the `dlc.param` arguments, and
/// turns them into mutable `ml_program.global`s updated in place by the
/// optimizer (its state in more globals). @main_graph then takes the model's
/// inputs plus `labels` and returns `loss`. The module's `dlc.state` attribute
/// lists the parameter globals and their ONNX names; `dlc.memory_report` holds the
/// step's MemoryReport.
mlir::LogicalResult buildTrainingStep(mlir::ModuleOp module, const TrainingOptions &options);

/// The two steps as passes (dlc-params-to-args, dlc-training-step) from typed options.
std::unique_ptr<mlir::Pass> createParamsToArgs(const std::set<std::string> &frozen);
std::unique_ptr<mlir::Pass> createTrainingStep(const TrainingOptions &options);

} // namespace dlc::autodiff

#endif
