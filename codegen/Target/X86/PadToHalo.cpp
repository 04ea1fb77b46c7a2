// dlc-pad-to-halo: tensor.pad as a filled halo plus the source inserted in place.
#include "codegen/Target/X86/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dlc::x86 {
#define GEN_PASS_DEF_PADTOHALO
#include "codegen/Target/X86/Passes.h.inc"
} // namespace dlc::x86

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
    auto srcShape = pad.getSourceType().getShape();
    if (!value || !type.hasStaticShape() || !pad.getSourceType().hasStaticShape() ||
        !pad.getLow().empty() || !pad.getHigh().empty())
      return failure(); // dynamic pads stay
    auto lo = pad.getStaticLow(), hi = pad.getStaticHigh();
    Location loc = pad.getLoc();
    int64_t rank = type.getRank();
    // The halo goes before the source's producer: the producer's output can then
    // become a slice of the padded tensor (eliminate-empty-tensors needs it to dominate).
    OpBuilder::InsertionGuard guard(b);
    Operation *producer = pad.getSource().getDefiningOp();
    Operation *valueDef = value.getDefiningOp();
    if (producer && producer->getBlock() == pad->getBlock() &&
        (!valueDef || valueDef->getBlock() != producer->getBlock() ||
         valueDef->isBeforeInBlock(producer)))
      b.setInsertionPoint(producer);
    // An alloc_tensor, not a tensor.empty: CSE would merge the halos of equal-shaped
    // pads into one tensor that bufferization then has to copy.
    Value acc = bufferization::AllocTensorOp::create(b, loc, type, ValueRange{});
    SmallVector<OpFoldResult> ones(rank, b.getIndexAttr(1));
    for (int64_t d = 0; d < rank; ++d) {
      for (bool low : {true, false}) {
        int64_t width = low ? lo[d] : hi[d];
        if (width == 0)
          continue;
        SmallVector<int64_t> offsets, sizes;
        for (int64_t e = 0; e < rank; ++e) {
          if (e < d) {
            offsets.push_back(lo[e]);
            sizes.push_back(srcShape[e]);
          } else if (e == d) {
            offsets.push_back(low ? 0 : lo[d] + srcShape[d]);
            sizes.push_back(width);
          } else {
            offsets.push_back(0);
            sizes.push_back(type.getDimSize(e));
          }
        }
        // Filled in place (a fill of its own slab, which CSE cannot merge with another).
        auto off = getAsIndexOpFoldResult(b.getContext(), offsets);
        auto size = getAsIndexOpFoldResult(b.getContext(), sizes);
        Value slab = tensor::ExtractSliceOp::create(b, loc, acc, off, size, ones);
        Value filled = linalg::FillOp::create(b, loc, value, slab).getResult(0);
        acc = tensor::InsertSliceOp::create(b, loc, filled, acc, off, size, ones);
      }
    }
    b.setInsertionPoint(pad);
    SmallVector<int64_t> srcSizes(srcShape);
    b.replaceOpWithNewOp<tensor::InsertSliceOp>(
        pad, pad.getSource(), acc, getAsIndexOpFoldResult(b.getContext(), lo),
        getAsIndexOpFoldResult(b.getContext(), srcSizes), ones);
    return success();
  }
};

struct PadToHaloPass : dlc::x86::impl::PadToHaloBase<PadToHaloPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<PadToHalo>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
