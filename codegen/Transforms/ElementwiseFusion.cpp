// dlc-fuse-elementwise: elementwise fusion into elementwise ops and plain reductions, never
// into contractions.
#include "codegen/Transforms/Passes.h"
#include "codegen/Transforms/RewriteConfig.h"

#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dlc::codegen {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "codegen/Transforms/Passes.h.inc"
} // namespace dlc::codegen

using namespace mlir;

namespace {

/// The most payload ops one fused generic may hold. Fusion clones the producer's body
/// into the consumer, so fusing a chain of N ops costs O(N * cap) (whole: a 20,000-node
/// chain took 100 s; at 256, 100,000 nodes spent 10 s here); at 64 payload ops per
/// element a kernel is compute-bound, and writing its result once costs little (bodies
/// are still small here: math ops are expanded later).
constexpr int64_t kMaxFusedBodyOps = 64;

int64_t bodyOps(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp ? static_cast<int64_t>(linalgOp.getBlock()->getOperations().size()) : 0;
}

/// An elementwise generic whose body is at most a few arith ops (no math calls) and
/// that combines a full tensor with a broadcast one (x - mean[row]: the centering in
/// normalizations), so recomputing it in each consumer saves a write and a re-read.
bool isCheapToRecompute(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumLoops() != generic.getNumParallelLoops())
    return false;
  // A bias add on a contraction's result stays whole: it is that kernel's epilogue.
  if (llvm::any_of(generic.getDpsInputOperands(), [](OpOperand *in) {
        auto producer = in->get().getDefiningOp<linalg::LinalgOp>();
        return producer && producer.getNumReductionLoops() > 0 &&
               producer.getNumDpsInputs() > 1;
      }))
    return false;
  bool broadcast = llvm::any_of(generic.getDpsInputOperands(), [&](OpOperand *in) {
    AffineMap map = generic.getMatchingIndexingMap(in);
    return !map.isIdentity() && map.getNumResults() > 0;
  });
  if (!broadcast)
    return false;
  unsigned count = 0;
  for (Operation &inner : generic.getBody()->without_terminator()) {
    if (inner.getDialect()->getNamespace() != "arith" || ++count > 3)
      return false;
  }
  return true;
}

/// A generic reading a tensor.expand_shape that only adds unit dims, through a map
/// that reads those dims at index 0, reads the unexpanded source instead (LayerNorm's
/// statistics [R] viewed as [R, 1]): the consumer then depends on the producer
/// directly, which row-block fusion needs.
struct ReadUnitExpandSource : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op, PatternRewriter &b) const override {
    for (OpOperand *in : op.getDpsInputOperands()) {
      auto expand = in->get().getDefiningOp<tensor::ExpandShapeOp>();
      if (!expand || !expand.getSrcType().hasStaticShape())
        continue;
      AffineMap map = op.getMatchingIndexingMap(in);
      auto shape = expand.getResultType().getShape();
      SmallVector<AffineExpr> exprs;
      // A 0-d source has no groups: every result dim is a dropped unit dim, read at 0.
      bool ok = !expand.getReassociationIndices().empty() ||
                llvm::all_of(map.getResults(), [](AffineExpr e) {
                  auto c = dyn_cast<AffineConstantExpr>(e);
                  return c && c.getValue() == 0;
                });
      for (const ReassociationIndices &group : expand.getReassociationIndices()) {
        int64_t keep = group.front();
        for (int64_t d : group)
          if (shape[d] != 1)
            keep = d;
        for (int64_t d : group) {
          auto c = dyn_cast<AffineConstantExpr>(map.getResult(d));
          if (d != keep && (shape[d] != 1 || !c || c.getValue() != 0))
            ok = false;
        }
        exprs.push_back(map.getResult(keep));
      }
      if (!ok)
        continue;
      SmallVector<AffineMap> maps = op.getIndexingMapsArray();
      maps[in->getOperandNumber()] =
          AffineMap::get(map.getNumDims(), map.getNumSymbols(), exprs, op.getContext());
      b.modifyOpInPlace(op, [&] {
        in->set(expand.getSrc());
        op.setIndexingMapsAttr(b.getAffineMapArrayAttr(maps));
      });
      return success();
    }
    return failure();
  }
};

/// A contraction or convolution, named or a generic of that form.
bool isContractionOrConv(linalg::LinalgOp op) {
  return op.getNumReductionLoops() > 0 &&
         (linalg::isaContractionOpInterface(op) || linalg::isaConvolutionOpInterface(op));
}

/// An op with reduction loops (a contraction, convolution or plain reduction), or an
/// elementwise op or transpose reading one (its epilogue so far, e.g. a conv's bias add).
/// With `strong`, only contractions and convolutions count.
bool isKernelOrEpilogue(linalg::LinalgOp op, bool strong = false) {
  auto isKernel = [&](linalg::LinalgOp k) {
    return k.getNumReductionLoops() > 0 && (!strong || isContractionOrConv(k));
  };
  if (isKernel(op))
    return true;
  if (op.getNumLoops() != op.getNumParallelLoops())
    return false;
  return llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *in) {
    auto producer = in->get().getDefiningOp<linalg::LinalgOp>();
    return producer && isKernel(producer);
  });
}

/// The kernel or epilogue that defines `v`, looking through reshapes.
linalg::LinalgOp kernelThroughReshapes(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto e = dyn_cast<tensor::ExpandShapeOp>(def))
      v = e.getSrc();
    else if (auto c = dyn_cast<tensor::CollapseShapeOp>(def))
      v = c.getSrc();
    else
      break;
  }
  auto producer = v.getDefiningOp<linalg::LinalgOp>();
  return producer && isKernelOrEpilogue(producer) ? producer : linalg::LinalgOp();
}

/// Whether `consumer` reads a kernel other than `producer` (a contraction or convolution
/// when `strong`) or its epilogue, directly or through reshapes.
bool readsOtherKernel(linalg::GenericOp consumer, linalg::LinalgOp producer, bool strong) {
  return llvm::any_of(consumer.getDpsInputOperands(), [&](OpOperand *in) {
    linalg::LinalgOp other = kernelThroughReshapes(in->get());
    return other && other != producer && isKernelOrEpilogue(other, strong);
  });
}

/// Reshapes are pulled through `consumer` toward the shape of `producer`, a kernel or
/// epilogue read through a reshape. The two patterns below pull in opposite directions, so
/// a consumer reading kernels of two shapes (a LayerNorm's mean and the matmul it
/// normalizes; a ReduceSum added to a generic matmul) was expanded and collapsed in turn
/// until the driver gave up. A contraction or convolution pulls; a plain reduction only
/// where the consumer reads no other kernel.
bool mayPullReshape(linalg::GenericOp consumer, linalg::LinalgOp producer) {
  if (consumer.getNumLoops() != consumer.getNumParallelLoops() || !producer->hasOneUse() ||
      !isKernelOrEpilogue(producer))
    return false;
  return isKernelOrEpilogue(producer, /*strong=*/true) ||
         !readsOtherKernel(consumer, producer, /*strong=*/false);
}

/// A consumer the collapsing pattern below already collapsed reads
/// collapse_shape(expand_shape(kernel)); expanding it again would undo that.
bool readsCollapsedKernelView(linalg::GenericOp consumer) {
  return llvm::any_of(consumer.getDpsInputOperands(), [](OpOperand *in) {
    auto collapse = in->get().getDefiningOp<tensor::CollapseShapeOp>();
    auto expand = collapse ? collapse.getSrc().getDefiningOp<tensor::ExpandShapeOp>() : nullptr;
    return expand && expand.getSrc().getDefiningOp<linalg::LinalgOp>();
  });
}

struct FuseElementwisePass : dlc::codegen::impl::FuseElementwiseBase<FuseElementwisePass> {
  using FuseElementwiseBase::FuseElementwiseBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::ControlFusionFn control = [](OpOperand *operand) {
      auto consumer = dyn_cast<linalg::LinalgOp>(operand->getOwner());
      Operation *producer = operand->get().getDefiningOp();
      if (!consumer || !producer)
        return false;
      // Into elementwise ops, and into plain reductions of one input (sum of squares,
      // LayerNorm's variance), never into contractions (two inputs) that KernelConfig
      // must see whole.
      bool allParallel = consumer.getNumLoops() == consumer.getNumParallelLoops();
      bool plainReduction = !allParallel && consumer.getNumDpsInputs() == 1;
      if (!allParallel && !plainReduction)
        return false;
      // A producer the consumer reads broadcast (a per-row statistic's 1/sqrt) would be
      // recomputed for every element it is broadcast to; its small result is cheaper.
      if (!consumer.getMatchingIndexingMap(operand).isPermutation())
        return false;
      if (bodyOps(producer) + bodyOps(consumer) > kMaxFusedBodyOps)
        return false;
      // A producer with other users is recomputed in each consumer: only when it is a
      // few arithmetic ops (x - mean), cheaper than writing and re-reading its tensor.
      return producer->hasOneUse() || isCheapToRecompute(producer);
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    patterns.add<ReadUnitExpandSource>(&getContext());
    // An elementwise consumer of a collapsed contraction result (an implicit-GEMM
    // conv's [.., F/FB, FB] blocks) is expanded to the uncollapsed shape instead,
    // so it reads the contraction directly and can become its epilogue.
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, [](OpOperand *operand) {
      // (Pads of such results are expanded too: the producer then writes its blocked
      // result into the padded buffer.)
      auto consumer = dyn_cast<linalg::GenericOp>(operand->getOwner());
      auto collapse = operand->get().getDefiningOp<tensor::CollapseShapeOp>();
      if (!collapse)
        return false;
      auto producer = collapse.getSrc().getDefiningOp<linalg::LinalgOp>();
      if (!producer || !producer->hasOneUse())
        return false;
      if (isa<tensor::PadOp>(operand->getOwner()))
        return true;
      return consumer && !readsCollapsedKernelView(consumer) &&
             mayPullReshape(consumer, producer);
    });
    // Likewise an elementwise consumer of an expanded contraction result (a matmul
    // over [B*S, K] viewed as [B, S, N]) is collapsed to the matmul's shape.
    linalg::populateFoldReshapeOpsByCollapsingPatterns(patterns, [](OpOperand *operand) {
      auto consumer = dyn_cast<linalg::GenericOp>(operand->getOwner());
      auto expand = operand->get().getDefiningOp<tensor::ExpandShapeOp>();
      if (!consumer || !expand)
        return false;
      auto producer = expand.getSrc().getDefiningOp<linalg::LinalgOp>();
      return producer && mayPullReshape(consumer, producer);
    });
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    // Dynamic dims: the sizes a rewrite reads from a result (an expanded consumer's) are
    // read from the operands instead, so the result keeps its single use and fuses.
    memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
    tensor::DimOp::getCanonicalizationPatterns(patterns, &getContext());
    // Every rewrite leaves valid IR, so a pattern cycle the rules above missed costs only
    // some fusion: stop it after a bounded number of rewrites rather than fail the model.
    GreedyRewriteConfig config = dlc::codegen::patternPassConfig();
    int64_t ops = 0;
    getOperation()->walk([&](Operation *) { ++ops; });
    config.setMaxNumRewrites(64 * ops + 1024);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)) && strict) {
      getOperation().emitError("dlc-fuse-elementwise: rewrites did not converge");
      signalPassFailure();
    }
  }
};
} // namespace
