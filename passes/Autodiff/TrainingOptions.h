// What a training step is built from: the loss, the optimizer, frozen parameters and
// the rematerialization policy, as typed values (the CLI's textual forms are parsed by
// compiler/TrainingSpec.h).
#ifndef DLC_PASSES_AUTODIFF_TRAININGOPTIONS_H
#define DLC_PASSES_AUTODIFF_TRAININGOPTIONS_H

#include <cstdint>
#include <set>
#include <string>

namespace dlc::autodiff {

/// MeanSquaredError: labels shaped like the output. SoftmaxCrossEntropy: [N, C] logits
/// against int64 class indices [N]. Both are averaged over the batch.
enum class LossKind { MeanSquaredError, SoftmaxCrossEntropy };

/// SGD (momentum, weight_decay), Adam (L2 weight_decay, as PyTorch's Adam) or AdamW
/// (decoupled weight_decay).
enum class OptimizerKind { SGD, Adam, AdamW };

/// StoreAll keeps every forward value the backward graph reads; RecomputeAll recomputes
/// those made by cheap ops (elementwise, data movement) from the nearest stored ones
/// (contraction, convolution, pooling and reduction results, inputs, parameters) right
/// before their first backward use; Auto recomputes the largest of them until the saved
/// bytes fit the budget.
enum class RematPolicy { StoreAll, RecomputeAll, Auto };

struct TrainingOptions {
  LossKind loss = LossKind::MeanSquaredError;
  /// The model output the loss reads.
  std::string output;
  OptimizerKind optimizer = OptimizerKind::SGD;
  double lr = 0.01, momentum = 0.0, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weightDecay = 0.0;
  /// Float initializers kept constant.
  std::set<std::string> frozen;
  RematPolicy remat = RematPolicy::StoreAll;
  /// With RematPolicy::Auto: the saved-activation budget in bytes.
  int64_t rematBudget = 0;
};

/// The learning rate an optimizer gets when none is given (0.01 for SGD, 0.001 for Adam).
inline double defaultLearningRate(OptimizerKind kind) {
  return kind == OptimizerKind::SGD ? 0.01 : 0.001;
}

} // namespace dlc::autodiff

#endif
