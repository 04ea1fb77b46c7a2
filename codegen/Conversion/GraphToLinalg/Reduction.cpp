// Reductions (sum, mean, max, min, prod over axes; arg max/min) -> linalg.generic with reduction iterators.
#include "codegen/Conversion/GraphToLinalg/LoweringUtils.h"
#include "codegen/Conversion/GraphToLinalg/Passes.h"
#include "dialects/Graph/IR/GraphOps.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::conversion {
namespace {

enum class Kind { Sum, Mean, Max, Min, Prod };

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
    SmallVector<OpFoldResult> keptSizes;
    SmallVector<AffineExpr> outExprs;
    SmallVector<utils::IteratorType> iters;
    int64_t count = 1;
    for (int64_t d = 0; d < inType.getRank(); ++d) {
      if (llvm::is_contained(axes, d)) {
        iters.push_back(utils::IteratorType::reduction);
        // (A dynamic dim's size is counted when the model runs, below.)
        if (!inType.isDynamicDim(d))
          count *= inType.getDimSize(d);
      } else {
        iters.push_back(utils::IteratorType::parallel);
        keptShape.push_back(inType.getDimSize(d));
        keptSizes.push_back(tensor::getMixedSize(b, loc, x, d));
        outExprs.push_back(getAffineDimExpr(d, ctx));
      }
    }
    auto keptType = RankedTensorType::get(keptShape, elt);
    // Booleans: max is any (init false), min is all (init true), compared unsigned.
    bool isBool = elt.isInteger(1);
    Value initValue = isBool && (kind == Kind::Max || kind == Kind::Min)
                          ? scalarConstant(b, loc, elt, kind == Kind::Min ? 1 : 0)
                      : kind == Kind::Max ? extremeConstant(b, loc, elt, true)
                      : kind == Kind::Min ? extremeConstant(b, loc, elt, false)
                                          : scalarConstant(b, loc, elt, kind == Kind::Prod ? 1 : 0);
    SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(inType.getRank(), ctx),
                                   AffineMap::get(inType.getRank(), 0, outExprs, ctx)};
    Value r = linalg::GenericOp::create(
                  b, loc, TypeRange{keptType}, ValueRange{x},
                  ValueRange{filledTensor(b, loc, keptType, initValue, keptSizes)}, maps, iters,
                  [&](OpBuilder &nb, Location l, ValueRange a) {
                    Value v;
                    if (kind == Kind::Max)
                      v = isBool ? arith::OrIOp::create(nb, l, a[0], a[1])
                                 : floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(nb, l, a);
                    else if (kind == Kind::Min)
                      v = isBool ? arith::AndIOp::create(nb, l, a[0], a[1])
                                 : floatOrInt<arith::MinimumFOp, arith::MinSIOp>(nb, l, a);
                    else if (kind == Kind::Prod)
                      v = floatOrInt<arith::MulFOp, arith::MulIOp>(nb, l, a);
                    else
                      v = floatOrInt<arith::AddFOp, arith::AddIOp>(nb, l, a);
                    linalg::YieldOp::create(nb, l, v);
                  })
                  .getResult(0);
    if (kind == Kind::Mean) {
      // The count of a dynamic reduction is known when the model runs.
      Value dynamicCount;
      for (int64_t d : axes)
        if (inType.isDynamicDim(d)) {
          Value size = tensor::DimOp::create(b, loc, x, d);
          dynamicCount = dynamicCount ? arith::MulIOp::create(b, loc, dynamicCount, size) : size;
        }
      if (dynamicCount) {
        Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), dynamicCount);
        dynamicCount = isa<FloatType>(elt) ? Value(arith::SIToFPOp::create(b, loc, elt, i64))
                       : elt.getIntOrFloatBitWidth() < 64
                           ? Value(arith::TruncIOp::create(b, loc, elt, i64))
                           : i64;
      }
      r = buildElementwise(b, loc, keptType, {r}, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value n = scalarConstant(nb, l, elt, (double)count);
        if (dynamicCount)
          n = floatOrInt<arith::MulFOp, arith::MulIOp>(nb, l, {n, dynamicCount});
        return floatOrInt<arith::DivFOp, arith::DivSIOp>(nb, l, {a[0], n});
      });
    }
    b.replaceOp(op, reshapeTensor(b, loc, r, outType));
    return success();
  }
};

/// ArgMax/ArgMin: one reduction carrying (best value, its index) along the axis.
template <typename OpTy, bool isMax> struct ArgReduceLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    Value x = adaptor.getInput();
    auto inType = cast<RankedTensorType>(x.getType());
    Type elt = inType.getElementType();
    int64_t axis = op.getAxis();
    bool last = op.getSelectLastIndex();
    SmallVector<int64_t> keptShape;
    SmallVector<OpFoldResult> keptSizes;
    SmallVector<AffineExpr> outExprs;
    SmallVector<utils::IteratorType> iters;
    for (int64_t d = 0; d < inType.getRank(); ++d) {
      bool reduced = d == axis;
      iters.push_back(reduced ? utils::IteratorType::reduction : utils::IteratorType::parallel);
      if (!reduced) {
        keptShape.push_back(inType.getDimSize(d));
        keptSizes.push_back(tensor::getMixedSize(b, loc, x, d));
        outExprs.push_back(getAffineDimExpr(d, ctx));
      }
    }
    auto valType = RankedTensorType::get(keptShape, elt);
    auto idxType = RankedTensorType::get(keptShape, b.getI64Type());
    AffineMap outMap = AffineMap::get(inType.getRank(), 0, outExprs, ctx);
    SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(inType.getRank(), ctx), outMap,
                                   outMap};
    Value initVal = filledTensor(b, loc, valType, extremeConstant(b, loc, elt, isMax), keptSizes);
    Value initIdx =
        filledTensor(b, loc, idxType, scalarConstant(b, loc, b.getI64Type(), -1), keptSizes);
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{valType, idxType}, ValueRange{x}, ValueRange{initVal, initIdx}, maps,
        iters, [&](OpBuilder &nb, Location l, ValueRange a) {
          Value i = arith::IndexCastOp::create(nb, l, nb.getI64Type(),
                                               linalg::IndexOp::create(nb, l, axis));
          // Better: strictly (first index) or also on ties (last index); the
          // first element always wins so all-equal extremes still get an index.
          Value better;
          if (isa<FloatType>(elt))
            better = arith::CmpFOp::create(
                nb, l, isMax ? (last ? arith::CmpFPredicate::OGE : arith::CmpFPredicate::OGT)
                             : (last ? arith::CmpFPredicate::OLE : arith::CmpFPredicate::OLT),
                a[0], a[1]);
          else
            better = arith::CmpIOp::create(
                nb, l, isMax ? (last ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sgt)
                             : (last ? arith::CmpIPredicate::sle : arith::CmpIPredicate::slt),
                a[0], a[1]);
          Value none = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, a[2],
                                             scalarConstant(nb, l, nb.getI64Type(), 0));
          Value take = arith::OrIOp::create(nb, l, better, none);
          linalg::YieldOp::create(nb, l,
                                  ValueRange{arith::SelectOp::create(nb, l, take, a[0], a[1]),
                                             arith::SelectOp::create(nb, l, take, i, a[2])});
        });
    b.replaceOp(op, reshapeTensor(b, loc, generic.getResult(1),
                                  cast<RankedTensorType>(op.getType())));
    return success();
  }
};

} // namespace

void populateReductionLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<ReduceLowering<ReduceSumOp, Kind::Sum>, ReduceLowering<ReduceMeanOp, Kind::Mean>,
               ReduceLowering<ReduceMaxOp, Kind::Max>, ReduceLowering<ReduceMinOp, Kind::Min>,
               ReduceLowering<ReduceProdOp, Kind::Prod>, ArgReduceLowering<ArgMaxOp, true>,
               ArgReduceLowering<ArgMinOp, false>>(patterns.getContext());
}

} // namespace dlc::conversion
