// Index-driven data movement (GatherElements, ...) -> linalg.generic reading with tensor.extract.
#include "codegen/Conversion/GraphToLinalg/LoweringUtils.h"
#include "codegen/Conversion/GraphToLinalg/Passes.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::conversion {

/// An index scalar of any integer type as `index`, negative values wrapped once
/// by `size` and the result clamped to [0, size - 1].
Value wrapAndClampIndex(OpBuilder &b, Location loc, Value i, int64_t size) {
  i = arith::IndexCastOp::create(b, loc, b.getIndexType(), i);
  Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, indexConst(b, loc, 0));
  i = arith::SelectOp::create(b, loc, neg, arith::AddIOp::create(b, loc, i, indexConst(b, loc, size)), i);
  i = arith::MaxSIOp::create(b, loc, i, indexConst(b, loc, 0));
  return arith::MinSIOp::create(b, loc, i, indexConst(b, loc, std::max<int64_t>(0, size - 1)));
}

namespace {

struct GatherElementsLowering : OpConversionPattern<GatherElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(GatherElementsOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    auto type = op.getType();
    Value data = adaptor.getData();
    int64_t axis = op.getAxis();
    int64_t n = cast<RankedTensorType>(data.getType()).getDimSize(axis);
    AffineMap id = AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
    Value r = buildIndexed(b, op.getLoc(), type, {adaptor.getIndices()}, {id},
                           [&](OpBuilder &nb, Location l, ValueRange idx, ValueRange a) {
                             SmallVector<Value> src(idx);
                             src[axis] = wrapAndClampIndex(nb, l, a[0], n);
                             return tensor::ExtractOp::create(nb, l, data, src).getResult();
                           });
    b.replaceOp(op, r);
    return success();
  }
};

} // namespace

void populateIndexingLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<GatherElementsLowering>(patterns.getContext());
}

} // namespace dlc::conversion
