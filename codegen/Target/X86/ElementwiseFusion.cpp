// dlc-fuse-elementwise: elementwise fusion that never fuses into contractions or reductions.
#include "codegen/Target/X86/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dlc::x86 {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "codegen/Target/X86/Passes.h.inc"
} // namespace dlc::x86

using namespace mlir;

namespace {
struct FuseElementwisePass : dlc::x86::impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::ControlFusionFn control = [](OpOperand *operand) {
      auto consumer = dyn_cast<linalg::LinalgOp>(operand->getOwner());
      Operation *producer = operand->get().getDefiningOp();
      // A producer with other users would be recomputed: fuse only single-use ones.
      return consumer && producer && producer->hasOneUse() &&
             consumer.getNumLoops() == consumer.getNumParallelLoops();
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
