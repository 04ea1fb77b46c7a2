// Training steps: a model, a loss on one of its outputs and an optimizer, as one function.
#ifndef DLC_PASSES_AUTODIFF_TRAINING_H
#define DLC_PASSES_AUTODIFF_TRAINING_H

#include "mlir/IR/BuiltinOps.h"

#include <set>
#include <string>

namespace dlc::autodiff {

struct TrainingOptions {
  /// "mse" (labels shaped like the output) or "xent" (softmax cross-entropy of
  /// [N, C] logits against int64 class indices [N]); both averaged over the batch.
  std::string loss = "mse";
  /// The model output the loss reads.
  std::string output;
  /// "sgd" (momentum, weight_decay), "adam" (L2 weight_decay, as PyTorch's Adam)
  /// or "adamw" (decoupled weight_decay).
  std::string optimizer = "sgd";
  double lr = 0.01, momentum = 0.0, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weightDecay = 0.0;
  /// Float initializers kept constant.
  std::set<std::string> frozen;
  /// Rematerialization: "store-all" keeps every forward value the backward graph
  /// reads; "recompute-all" recomputes those made by cheap ops (elementwise, data
  /// movement) from the nearest stored ones (contraction, convolution, pooling and
  /// reduction results, inputs, parameters) right before their first backward use;
  /// "auto" recomputes the largest of them until the saved bytes fit `rematBudget`.
  std::string remat = "store-all";
  int64_t rematBudget = 0;
};

/// Parses `store-all`, `recompute-all` or `auto:MIB` into `out`; false with `error`.
bool parseRemat(const std::string &spec, TrainingOptions &out, std::string &error);

/// Parses the CLI forms `mse:OUTPUT` / `xent:OUTPUT`, `sgd:lr=0.1[,momentum=..]`,
/// `adam:lr=..[,beta1=..,beta2=..,eps=..,weight_decay=..]` (also `adamw:`) and a
/// comma-separated freeze list into `out`; false with a one-line `error`.
bool parseTrainingOptions(const std::string &loss, const std::string &optimizer,
                          const std::string &freeze, TrainingOptions &out, std::string &error);

/// Step 1, on the imported module before any folding: every float initializer
/// constant not in `frozen` (named by its `NameLoc`) becomes an argument of
/// @main_graph marked `dlc.param`, its value kept in `dlc.param_init`, so that
/// canonicalization cannot fold it into the ops that use it.
mlir::LogicalResult parametersToArguments(mlir::ModuleOp module, const TrainingOptions &options);

/// Step 2, after composite ops are decomposed: appends the `labels` input and the
/// loss, differentiates the loss with respect to the `dlc.param` arguments, and
/// turns them into mutable `ml_program.global`s updated in place by the
/// optimizer (its state in more globals). @main_graph then takes the model's
/// inputs plus `labels` and returns `loss`. The module's `dlc.state` attribute
/// lists the parameter globals and their ONNX names.
mlir::LogicalResult buildTrainingStep(mlir::ModuleOp module, const TrainingOptions &options);

} // namespace dlc::autodiff

#endif
