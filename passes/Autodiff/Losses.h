// The losses a training step can minimize, as graph ops on the model's output.
#ifndef DLC_PASSES_AUTODIFF_LOSSES_H
#define DLC_PASSES_AUTODIFF_LOSSES_H

#include "passes/Autodiff/TrainingOptions.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace dlc::autodiff {

/// The labels input the loss compares `output` with: shaped like it (mean squared error)
/// or int64 [N] class indices (cross-entropy over [N, C] logits).
mlir::RankedTensorType labelsType(LossKind kind, mlir::RankedTensorType output);

/// Whether `kind` can be computed on `output` (the model output named `name`); false
/// with a one-line `error` naming it.
bool checkLossOutput(LossKind kind, mlir::RankedTensorType output, llvm::StringRef name,
                     std::string &error);

/// The loss of `output` against `labels`, a scalar: the mean squared error, or the mean
/// over the batch of -log softmax(output)[label].
mlir::Value buildLoss(mlir::OpBuilder &b, mlir::Location loc, LossKind kind, mlir::Value output,
                      mlir::Value labels);

} // namespace dlc::autodiff

#endif
