// Reductions (sum, mean, max, min over axes) -> linalg.generic with reduction iterators.
#include "codegen/Conversion/GraphToLinalg/LoweringUtils.h"
#include "codegen/Conversion/GraphToLinalg/Passes.h"
#include "dialects/Graph/IR/GraphOps.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::conversion {
namespace {

enum class Kind { Sum, Mean, Max, Min };

template <typename OpTy, Kind kind> struct ReduceLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    Value x = adaptor.getInput();
    auto inType = cast<RankedTensorType>(x.getType());
    auto outType = cast<RankedTensorType>(op.getType());
    Type elt = inType.getElementType();
    auto axes = op.getAxes();
    if (axes.empty()) {
      b.replaceOp(op, x);
      return success();
    }
    SmallVector<int64_t> keptShape;
    SmallVector<AffineExpr> outExprs;
    SmallVector<utils::IteratorType> iters;
    int64_t count = 1;
    for (int64_t d = 0; d < inType.getRank(); ++d) {
      if (llvm::is_contained(axes, d)) {
        iters.push_back(utils::IteratorType::reduction);
        count *= inType.getDimSize(d);
      } else {
        iters.push_back(utils::IteratorType::parallel);
        keptShape.push_back(inType.getDimSize(d));
        outExprs.push_back(getAffineDimExpr(d, ctx));
      }
    }
    auto keptType = RankedTensorType::get(keptShape, elt);
    Value initValue = kind == Kind::Max   ? extremeConstant(b, loc, elt, true)
                      : kind == Kind::Min ? extremeConstant(b, loc, elt, false)
                                          : scalarConstant(b, loc, elt, 0);
    SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(inType.getRank(), ctx),
                                   AffineMap::get(inType.getRank(), 0, outExprs, ctx)};
    Value r = linalg::GenericOp::create(
                  b, loc, TypeRange{keptType}, ValueRange{x},
                  ValueRange{filledTensor(b, loc, keptType, initValue)}, maps, iters,
                  [&](OpBuilder &nb, Location l, ValueRange a) {
                    Value v;
                    if (kind == Kind::Max)
                      v = floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(nb, l, a);
                    else if (kind == Kind::Min)
                      v = floatOrInt<arith::MinimumFOp, arith::MinSIOp>(nb, l, a);
                    else
                      v = floatOrInt<arith::AddFOp, arith::AddIOp>(nb, l, a);
                    linalg::YieldOp::create(nb, l, v);
                  })
                  .getResult(0);
    if (kind == Kind::Mean) {
      r = buildElementwise(b, loc, keptType, {r}, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value n = scalarConstant(nb, l, elt, (double)count);
        return floatOrInt<arith::DivFOp, arith::DivSIOp>(nb, l, {a[0], n});
      });
    }
    b.replaceOp(op, reshapeTensor(b, loc, r, outType));
    return success();
  }
};

} // namespace

void populateReductionLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<ReduceLowering<ReduceSumOp, Kind::Sum>, ReduceLowering<ReduceMeanOp, Kind::Mean>,
               ReduceLowering<ReduceMaxOp, Kind::Max>, ReduceLowering<ReduceMinOp, Kind::Min>>(
      patterns.getContext());
}

} // namespace dlc::conversion
