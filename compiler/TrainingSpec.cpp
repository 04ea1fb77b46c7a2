// The textual forms of a training step's settings (see TrainingSpec.h).
#include "compiler/TrainingSpec.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cmath>

using llvm::StringRef;

namespace dlc {

bool parseLossSpec(const std::string &spec, TrainingOptions &out, std::string &error) {
  auto [kind, output] = StringRef(spec).split(':');
  if ((kind != "mse" && kind != "xent") || output.empty()) {
    error = "expected mse:OUTPUT or xent:OUTPUT";
    return false;
  }
  out.loss = kind == "mse" ? LossKind::MeanSquaredError : LossKind::SoftmaxCrossEntropy;
  out.output = output.str();
  return true;
}

bool parseOptimizerSpec(const std::string &spec, TrainingOptions &out, std::string &error) {
  auto [kind, params] = StringRef(spec).split(':');
  if (kind != "sgd" && kind != "adam" && kind != "adamw") {
    error = "expected sgd:lr=.., adam:lr=.. or adamw:lr=..";
    return false;
  }
  out.optimizer = kind == "sgd"    ? OptimizerKind::SGD
                  : kind == "adam" ? OptimizerKind::Adam
                                   : OptimizerKind::AdamW;
  out.lr = autodiff::defaultLearningRate(out.optimizer);
  bool sgd = out.optimizer == OptimizerKind::SGD;
  llvm::SmallVector<StringRef> items;
  params.split(items, ',', -1, /*KeepEmpty=*/false);
  for (StringRef item : items) {
    auto [key, value] = item.split('=');
    double v;
    if (value.trim().getAsDouble(v) || !std::isfinite(v)) {
      error = "setting '" + item.str() + "' is not KEY=NUMBER";
      return false;
    }
    key = key.trim();
    double *slot = key == "lr"                   ? &out.lr
                   : key == "weight_decay"       ? &out.weightDecay
                   : key == "momentum" && sgd    ? &out.momentum
                   : key == "beta1" && !sgd      ? &out.beta1
                   : key == "beta2" && !sgd      ? &out.beta2
                   : key == "eps" && !sgd        ? &out.eps
                                                 : nullptr;
    if (!slot) {
      error = "unknown " + kind.str() + " setting '" + key.str() + "' (expected " +
              (sgd ? "lr, momentum, weight_decay" : "lr, beta1, beta2, eps, weight_decay") + ")";
      return false;
    }
    *slot = v;
  }
  if (out.lr <= 0) {
    error = "lr must be > 0";
    return false;
  }
  return true;
}

void parseFreezeList(const std::string &list, TrainingOptions &out) {
  llvm::SmallVector<StringRef> names;
  StringRef(list).split(names, ',', -1, /*KeepEmpty=*/false);
  for (StringRef n : names)
    out.frozen.insert(n.trim().str());
}

bool parseRematSpec(const std::string &spec, TrainingOptions &out, std::string &error) {
  auto [kind, budget] = StringRef(spec).split(':');
  double mib = 0;
  if ((kind == "store-all" || kind == "recompute-all") && budget.empty()) {
    out.remat = kind == "store-all" ? RematPolicy::StoreAll : RematPolicy::RecomputeAll;
    return true;
  }
  if (kind == "auto" && !budget.getAsDouble(mib) && mib >= 0 && mib < 1e12) {
    out.remat = RematPolicy::Auto;
    out.rematBudget = int64_t(mib * (1 << 20));
    return true;
  }
  error = "expected store-all, recompute-all or auto:MIB";
  return false;
}

} // namespace dlc
