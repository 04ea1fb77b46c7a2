// dlc-flatten-constants: rank-N tensor constants as flat data + expand_shape (fast LLVM emission).
#include "codegen/Transforms/Passes.h"
#include "codegen/Transforms/RewriteConfig.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dlc::codegen {
#define GEN_PASS_DEF_FLATTENCONSTANTS
#include "codegen/Transforms/Passes.h.inc"
} // namespace dlc::codegen

using namespace mlir;

namespace {
struct FlattenConstant : OpRewritePattern<arith::ConstantOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ConstantOp op, PatternRewriter &b) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    // Splats stay splats (they fold into fills); small ones are not worth it.
    if (!type || type.getRank() < 2 || !dense || dense.isSplat() || type.getNumElements() < 64)
      return failure();
    auto flatType = RankedTensorType::get({type.getNumElements()}, type.getElementType());
    Value flat = arith::ConstantOp::create(b, op.getLoc(), dense.reshape(flatType));
    SmallVector<ReassociationIndices> reassoc(1);
    for (int64_t d = 0; d < type.getRank(); ++d)
      reassoc[0].push_back(d);
    b.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, type, flat, reassoc);
    return success();
  }
};

struct FlattenConstantsPass : dlc::codegen::impl::FlattenConstantsBase<FlattenConstantsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FlattenConstant>(&getContext());
    // No folding: canonicalization would fold the reshape straight back.
    GreedyRewriteConfig config = dlc::codegen::patternPassConfig();
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};
} // namespace
