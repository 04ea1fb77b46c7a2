// The memory a training step holds (dlc compile --train prints it): an analysis of the
// step's function, recorded on the module as `dlc.memory_report`.
#ifndef DLC_PASSES_AUTODIFF_MEMORYREPORT_H
#define DLC_PASSES_AUTODIFF_MEMORYREPORT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>

namespace dlc::autodiff {

/// Bytes (and the count of saved activations) of a training step at graph level, before
/// fusion removes intermediates.
struct MemoryReport {
  int64_t parameterBytes = 0, gradientBytes = 0, optimizerStateBytes = 0;
  /// Forward results the backward graph reads.
  int64_t savedActivationBytes = 0, savedActivations = 0;
  /// The peak of live tensors over the step plus all the state.
  int64_t peakBytes = 0;
};

/// The module attribute holding the report.
inline constexpr llvm::StringLiteral kMemoryReportAttr = "dlc.memory_report";

/// Counts the results of `forward` ops (constants aside) that other ops read.
void countSavedActivations(const llvm::DenseSet<mlir::Operation *> &forward, MemoryReport &report);

/// Fills the parameter, gradient, state and peak figures of the step `func` whose
/// parameters `params` are (still) arguments and whose state lives in `module`'s globals.
void measureTrainingStep(mlir::ModuleOp module, mlir::func::FuncOp func,
                         llvm::ArrayRef<unsigned> params, MemoryReport &report);

/// Records `report` on `module` / reads it back (none for an inference module).
void setMemoryReport(mlir::ModuleOp module, const MemoryReport &report);
std::optional<MemoryReport> getMemoryReport(mlir::ModuleOp module);

} // namespace dlc::autodiff

#endif
