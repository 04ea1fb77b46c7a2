// Marking the tile loop that the runtime's threads split (dlc.parallel).
#ifndef DLC_CODEGEN_TARGET_X86_PARALLELMARK_H
#define DLC_CODEGEN_TARGET_X86_PARALLELMARK_H

#include "codegen/Target/X86/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <optional>
#include <utility>

namespace dlc::x86 {

/// Marks the outermost of `loops` (outermost first) that runs more than one
/// iteration with `dlc.parallel`; returns its position and trip count.
inline std::optional<std::pair<size_t, int64_t>>
markParallelLoop(llvm::ArrayRef<mlir::LoopLikeOpInterface> loops) {
  for (size_t i = 0; i < loops.size(); ++i) {
    auto forOp = llvm::dyn_cast<mlir::scf::ForOp>(mlir::LoopLikeOpInterface(loops[i]).getOperation());
    std::optional<llvm::APInt> trips = forOp ? forOp.getStaticTripCount() : std::nullopt;
    if (trips && trips->getSExtValue() > 1) {
      forOp->setAttr(kParallelLoopAttr, mlir::UnitAttr::get(forOp.getContext()));
      return std::make_pair(i, trips->getSExtValue());
    }
  }
  return std::nullopt;
}

} // namespace dlc::x86

#endif
