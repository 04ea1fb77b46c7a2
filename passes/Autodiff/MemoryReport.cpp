// A training step's memory (see MemoryReport.h).
#include "passes/Autodiff/MemoryReport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"

using namespace mlir;

namespace dlc::autodiff {

static int64_t bytesOf(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  return t && t.hasStaticShape() ? t.getNumElements() * t.getElementTypeBitWidth() / 8 : 0;
}

void countSavedActivations(const llvm::DenseSet<Operation *> &forward, MemoryReport &report) {
  for (Operation *op : forward) {
    if (isa<arith::ConstantOp>(op))
      continue;
    for (Value r : op->getResults())
      if (llvm::any_of(r.getUsers(), [&](Operation *u) { return !forward.contains(u); }))
        if (auto t = dyn_cast<RankedTensorType>(r.getType()); t && t.hasStaticShape()) {
          report.savedActivationBytes += bytesOf(t);
          ++report.savedActivations;
        }
  }
}

void measureTrainingStep(ModuleOp module, func::FuncOp func, ArrayRef<unsigned> params,
                         MemoryReport &report) {
  int64_t paramBytes = 0, stateBytes = 0;
  for (unsigned a : params)
    paramBytes += bytesOf(func.getArgument(a).getType());
  module.walk([&](ml_program::GlobalOp g) { stateBytes += bytesOf(g.getType()); });
  report.parameterBytes = report.gradientBytes = paramBytes;
  report.optimizerStateBytes = stateBytes - paramBytes;
  // Live bytes in program order: a value is born at its op and dies at its last use;
  // constants and global loads are the state, counted once.
  Block &block = func.getBody().front();
  auto isState = [](Operation *op) { return isa<arith::ConstantOp, ml_program::GlobalLoadOp>(op); };
  int64_t live = 0, peak = 0;
  llvm::DenseMap<Value, Operation *> lastUse;
  for (Operation &op : block)
    for (Value v : op.getOperands())
      lastUse[v] = &op;
  for (Operation &op : block) {
    if (!isState(&op))
      for (Value r : op.getResults())
        live += bytesOf(r.getType());
    peak = std::max(peak, live);
    for (Value v : op.getOperands())
      if (lastUse.lookup(v) == &op && v.getDefiningOp() && !isState(v.getDefiningOp()))
        live -= bytesOf(v.getType());
  }
  report.peakBytes = peak + stateBytes;
}

static constexpr std::pair<const char *, int64_t MemoryReport::*> kFields[] = {
    {"parameter_bytes", &MemoryReport::parameterBytes},
    {"gradient_bytes", &MemoryReport::gradientBytes},
    {"optimizer_state_bytes", &MemoryReport::optimizerStateBytes},
    {"saved_activation_bytes", &MemoryReport::savedActivationBytes},
    {"saved_activations", &MemoryReport::savedActivations},
    {"peak_bytes", &MemoryReport::peakBytes},
};

void setMemoryReport(ModuleOp module, const MemoryReport &report) {
  Builder b(module.getContext());
  SmallVector<NamedAttribute> fields;
  for (auto [key, field] : kFields)
    fields.push_back(b.getNamedAttr(key, b.getI64IntegerAttr(report.*field)));
  module->setAttr(kMemoryReportAttr, b.getDictionaryAttr(fields));
}

std::optional<MemoryReport> getMemoryReport(ModuleOp module) {
  auto dict = module->getAttrOfType<DictionaryAttr>(kMemoryReportAttr);
  if (!dict)
    return std::nullopt;
  MemoryReport report;
  for (auto [key, field] : kFields)
    if (auto v = dict.getAs<IntegerAttr>(key))
      report.*field = v.getInt();
  return report;
}

} // namespace dlc::autodiff
