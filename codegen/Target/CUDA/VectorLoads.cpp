// dlc-cuda-vector-loads: a thread's 4-element vectors as 1-D, 16-byte aligned loads/stores.
#include "codegen/Target/CUDA/Passes.h"

#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dlc::cuda {
#define GEN_PASS_DEF_VECTORLOADS
#include "codegen/Target/CUDA/Passes.h.inc"
} // namespace dlc::cuda

using namespace mlir;

namespace {

/// A read of one element broadcast over the vector (every result of its map the constant
/// 0: a 0-d buffer, or a dim the op broadcasts) -> memref.load + vector.broadcast. The
/// transfer lowering patterns do not take it, and LLVM has no lowering of the transfer.
struct ScalarBroadcastRead : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    if (read.getMask() || !isa<MemRefType>(read.getBase().getType()) ||
        !llvm::all_of(read.getPermutationMap().getResults(),
                      [](AffineExpr e) {
                        auto c = dyn_cast<AffineConstantExpr>(e);
                        return c && c.getValue() == 0;
                      }) ||
        llvm::any_of(read.getInBoundsValues(), [](bool b) { return !b; }))
      return failure();
    Value element =
        memref::LoadOp::create(rewriter, read.getLoc(), read.getBase(), read.getIndices());
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(read, read.getVectorType(), element);
    return success();
  }
};

struct VectorLoads : dlc::cuda::impl::VectorLoadsBase<VectorLoads> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    // vector<1x1x4xf32> transfers and arithmetic -> vector<4xf32>; transfers -> loads.
    vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
    vector::populateVectorTransferDropUnitDimsPatterns(patterns);
    vector::populateVectorTransferLoweringPatterns(patterns, /*maxTransferRank=*/1);
    vector::populateVectorShapeCastLoweringPatterns(patterns);
    patterns.add<ScalarBroadcastRead>(ctx);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // 16 bytes at a time: the schedule made them aligned (Passes.td).
    auto wide = [](VectorType type) {
      return type.getRank() == 1 && type.getNumElements() * type.getElementTypeBitWidth() == 128;
    };
    auto sixteen = IntegerAttr::get(IntegerType::get(ctx, 64), 16);
    getOperation().walk([&](Operation *op) {
      if (auto load = dyn_cast<vector::LoadOp>(op); load && wide(load.getVectorType()))
        load.setAlignmentAttr(sixteen);
      else if (auto store = dyn_cast<vector::StoreOp>(op); store && wide(store.getVectorType()))
        store.setAlignmentAttr(sixteen);
    });
  }
};

} // namespace
