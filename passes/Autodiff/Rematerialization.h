// Rematerialization: recompute cheap forward values in the backward pass instead of
// keeping them alive across the step.
#ifndef DLC_PASSES_AUTODIFF_REMATERIALIZATION_H
#define DLC_PASSES_AUTODIFF_REMATERIALIZATION_H

#include "passes/Autodiff/TrainingOptions.h"

#include "mlir/IR/Block.h"
#include "llvm/ADT/DenseSet.h"

namespace dlc::autodiff {

/// Recomputes saved forward values of cheap ops (elementwise, data movement) for the
/// backward ops of `block` that read them: each is cloned, with the cheap forward values
/// it needs, right before its first backward use. `forward` holds the forward ops; with
/// RematPolicy::Auto only the largest are recomputed, until the values still saved fit
/// `budgetBytes`. RematPolicy::StoreAll changes nothing.
void rematerialize(mlir::Block &block, const llvm::DenseSet<mlir::Operation *> &forward,
                   RematPolicy policy, int64_t budgetBytes);

} // namespace dlc::autodiff

#endif
