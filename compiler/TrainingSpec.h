// The textual forms of a training step's settings (`dlc compile --train`'s --loss,
// --optimizer, --freeze and --remat values; also for embedders reading such strings)
// parsed into autodiff::TrainingOptions. Errors say what was expected without naming
// a flag: the CLI adds that.
#ifndef DLC_COMPILER_TRAININGSPEC_H
#define DLC_COMPILER_TRAININGSPEC_H

#include "passes/Autodiff/TrainingOptions.h"

#include <string>

namespace dlc {

using autodiff::LossKind;
using autodiff::OptimizerKind;
using autodiff::RematPolicy;
using autodiff::TrainingOptions;

/// `mse:OUTPUT` or `xent:OUTPUT` into out.loss and out.output; false with `error`
/// ("expected mse:OUTPUT or xent:OUTPUT").
bool parseLossSpec(const std::string &spec, TrainingOptions &out, std::string &error);

/// `sgd[:lr=..,momentum=..,weight_decay=..]` or `adam|adamw[:lr=..,beta1=..,beta2=..,
/// eps=..,weight_decay=..]` into out.optimizer and its settings (an unset lr is the
/// optimizer's default); false with a one-line `error`.
bool parseOptimizerSpec(const std::string &spec, TrainingOptions &out, std::string &error);

/// A comma-separated list of initializer names into out.frozen.
void parseFreezeList(const std::string &list, TrainingOptions &out);

/// `store-all`, `recompute-all` or `auto:MIB` into out.remat and out.rematBudget; false
/// with `error`.
bool parseRematSpec(const std::string &spec, TrainingOptions &out, std::string &error);

} // namespace dlc

#endif
