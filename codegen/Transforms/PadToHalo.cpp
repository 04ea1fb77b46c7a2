// dlc-pad-to-halo: tensor.pad as a filled halo plus the source inserted in place.
#include "codegen/Transforms/Passes.h"
#include "codegen/Transforms/RewriteConfig.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dlc::codegen {
#define GEN_PASS_DEF_PADTOHALO
#define GEN_PASS_DEF_READPADDEDINTERIOR
#include "codegen/Transforms/Passes.h.inc"
} // namespace dlc::codegen

using namespace mlir;

namespace {

/// pad(x) = insert_slice(x, fill(halo slabs of an empty tensor)). Each slab is the
/// low or high band of one dim, restricted to the interior in the dims before it
/// and whole in the dims after it, so the slabs cover the halo exactly once. After
/// `eliminate-empty-tensors` the producer of `x` writes straight into the interior.
struct PadToHalo : OpRewritePattern<tensor::PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::PadOp pad, PatternRewriter &b) const override {
    Value value = pad.getConstantPaddingValue();
    auto type = pad.getResultType();
    if (!value || !pad.getLow().empty() || !pad.getHigh().empty())
      return failure(); // dynamic pads stay
    auto lo = pad.getStaticLow(), hi = pad.getStaticHigh();
    int64_t rank = type.getRank();
    // Dynamic dims (dlc compile --dims: a batch) are not padded; their size is the source's.
    for (int64_t d = 0; d < rank; ++d)
      if (type.isDynamicDim(d) && (lo[d] || hi[d]))
        return failure();
    Location loc = pad.getLoc();
    // The halo goes before the source's producer: the producer's output can then
    // become a slice of the padded tensor (eliminate-empty-tensors needs it to dominate).
    // Dynamic sizes are then the producer's, computed from its operands.
    OpBuilder::InsertionGuard guard(b);
    Operation *producer = pad.getSource().getDefiningOp();
    Operation *valueDef = value.getDefiningOp();
    SmallVector<OpFoldResult> srcSizes;
    if (producer && producer->getBlock() == pad->getBlock() &&
        (!valueDef || valueDef->getBlock() != producer->getBlock() ||
         valueDef->isBeforeInBlock(producer))) {
      b.setInsertionPoint(producer);
      ReifiedRankedShapedTypeDims reified;
      if (type.hasStaticShape())
        srcSizes = getAsIndexOpFoldResult(b.getContext(), pad.getSourceType().getShape());
      else if (succeeded(reifyResultShapes(b, producer, reified)))
        srcSizes = reified[cast<OpResult>(pad.getSource()).getResultNumber()];
      else
        b.setInsertionPoint(pad);
    }
    if (srcSizes.empty())
      srcSizes = tensor::getMixedSizes(b, loc, pad.getSource());
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < rank; ++d)
      if (type.isDynamicDim(d))
        dynamicSizes.push_back(getValueOrCreateConstantIndexOp(b, loc, srcSizes[d]));
    // An alloc_tensor, not a tensor.empty: CSE would merge the halos of equal-shaped
    // pads into one tensor that bufferization then has to copy.
    Value acc = bufferization::AllocTensorOp::create(b, loc, type, dynamicSizes);
    SmallVector<OpFoldResult> ones(rank, b.getIndexAttr(1));
    auto index = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
    for (int64_t d = 0; d < rank; ++d) {
      for (bool low : {true, false}) {
        int64_t width = low ? lo[d] : hi[d];
        if (width == 0)
          continue;
        // (A padded dim is static.)
        int64_t srcDim = pad.getSourceType().getDimSize(d);
        SmallVector<OpFoldResult> off, size;
        for (int64_t e = 0; e < rank; ++e) {
          if (e < d) {
            off.push_back(index(lo[e]));
            size.push_back(srcSizes[e]);
          } else if (e == d) {
            off.push_back(index(low ? 0 : lo[d] + srcDim));
            size.push_back(index(width));
          } else {
            off.push_back(index(0));
            size.push_back(type.isDynamicDim(e) ? srcSizes[e] : index(type.getDimSize(e)));
          }
        }
        // Filled in place (a fill of its own slab, which CSE cannot merge with another).
        Value slab = tensor::ExtractSliceOp::create(b, loc, acc, off, size, ones);
        Value filled = linalg::FillOp::create(b, loc, value, slab).getResult(0);
        acc = tensor::InsertSliceOp::create(b, loc, filled, acc, off, size, ones);
      }
    }
    b.setInsertionPoint(pad);
    b.replaceOpWithNewOp<tensor::InsertSliceOp>(
        pad, pad.getSource(), acc, getAsIndexOpFoldResult(b.getContext(), lo), srcSizes, ones);
    return success();
  }
};

struct PadToHaloPass : dlc::codegen::impl::PadToHaloBase<PadToHaloPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<PadToHalo>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     dlc::codegen::patternPassConfig())))
      signalPassFailure();
  }
};

/// `insert_slice %r into %d[offsets]` where %r was computed in place in that very
/// slice (its destination-passing init is `extract_slice %d[offsets]`, as
/// eliminate-empty-tensors leaves a padded conv input): the insertion is a no-op,
/// but one-shot bufferization sees it as a write to %r's buffer and resolves any
/// later read of %r (a residual add) with a copy out and a copy back. Later readers
/// read `extract_slice` of the insertion's result instead: the same interior, with
/// no write in between. No folding may run between this and bufferization (it
/// would fold the extract of the insert back to %r).
struct ReadPaddedInteriorPass
    : dlc::codegen::impl::ReadPaddedInteriorBase<ReadPaddedInteriorPass> {
  void runOnOperation() override {
    SmallVector<tensor::InsertSliceOp> inserts;
    getOperation()->walk([&](tensor::InsertSliceOp insert) {
      auto result = dyn_cast<OpResult>(insert.getSource());
      if (!result || result.hasOneUse())
        return;
      // The tensor the producer computes into: a DPS init or a tile loop's init.
      Value dest;
      if (auto dps = dyn_cast<DestinationStyleOpInterface>(result.getOwner()))
        dest = dps.getDpsInitOperand(result.getResultNumber())->get();
      else if (auto loop = dyn_cast<scf::ForOp>(result.getOwner()))
        dest = loop.getInitArgs()[result.getResultNumber()];
      auto init = dest ? dest.getDefiningOp<tensor::ExtractSliceOp>() : nullptr;
      if (init && init.getSource() == insert.getDest() &&
          init.getMixedOffsets() == insert.getMixedOffsets() &&
          init.getMixedSizes() == insert.getMixedSizes() &&
          init.getMixedStrides() == insert.getMixedStrides())
        inserts.push_back(insert);
    });
    IRRewriter b(&getContext());
    DominanceInfo dom(getOperation());
    for (tensor::InsertSliceOp insert : inserts) {
      Value source = insert.getSource();
      // Right after the producer where its operands allow, so that readers placed
      // between the two (a reshape of the result) read the interior too.
      Operation *producer = source.getDefiningOp();
      if (producer->getBlock() == insert->getBlock() &&
          llvm::all_of(insert->getOperands(), [&](Value v) {
            return v == source || dom.properlyDominates(v, producer);
          }))
        b.moveOpAfter(insert, producer);
      b.setInsertionPointAfter(insert);
      Value interior = tensor::ExtractSliceOp::create(
          b, insert.getLoc(), insert.getSourceType(), insert.getResult(),
          insert.getMixedOffsets(), insert.getMixedSizes(), insert.getMixedStrides());
      b.replaceUsesWithIf(source, interior, [&](OpOperand &use) -> bool {
        return use.getOwner() != insert && dom.properlyDominates(insert.getOperation(), use.getOwner());
      });
      if (interior.use_empty())
        b.eraseOp(interior.getDefiningOp());
    }
  }
};

} // namespace
