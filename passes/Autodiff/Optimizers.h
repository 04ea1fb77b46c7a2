// Optimizers: each builds the update of one parameter from its gradient, keeping its
// state (momentum, Adam's moments and step count) in mutable globals.
#ifndef DLC_PASSES_AUTODIFF_OPTIMIZERS_H
#define DLC_PASSES_AUTODIFF_OPTIMIZERS_H

#include "passes/Autodiff/TrainingOptions.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <memory>

namespace dlc::autodiff {

/// A training step's state: `ml_program.global`s read at the start of the step (`entry`)
/// and stored together at its end (`flush`), after every read of the old values. Update
/// ops are built with `update`.
struct StateBuilder {
  mlir::OpBuilder globals, entry, update;
  mlir::Location loc;
  unsigned count = 0;
  llvm::SmallVector<std::pair<mlir::FlatSymbolRefAttr, mlir::Value>> pending;

  /// A new mutable global `dlc_<prefix>_<n>` holding `init`, read at the step's start;
  /// returns its symbol and the value read.
  std::pair<mlir::FlatSymbolRefAttr, mlir::Value> create(llvm::StringRef prefix,
                                                         mlir::Attribute init,
                                                         mlir::RankedTensorType type);
  /// The global's new value, stored at `flush`.
  void store(mlir::FlatSymbolRefAttr ref, mlir::Value v) { pending.push_back({ref, v}); }
  void flush();
};

/// One optimizer kind's update rule.
class Optimizer {
public:
  explicit Optimizer(const TrainingOptions &options) : options(options) {}
  virtual ~Optimizer() = default;
  /// Before the first parameter: state shared by all of them.
  virtual void begin(StateBuilder &state) {}
  /// The new value of parameter `p` (current value) from its gradient `g`.
  virtual mlir::Value update(StateBuilder &state, mlir::Value p, mlir::Value g) = 0;

protected:
  const TrainingOptions &options;
};

/// The update rule of `options.optimizer`.
std::unique_ptr<Optimizer> createOptimizer(const TrainingOptions &options);

} // namespace dlc::autodiff

#endif
