// Index-driven data movement (GatherElements, ...) -> linalg.generic reading with tensor.extract.
#include "codegen/Conversion/GraphToLinalg/LoweringUtils.h"
#include "codegen/Conversion/GraphToLinalg/Passes.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

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

Value wrapAndClampIndex(OpBuilder &b, Location loc, Value i, Value size) {
  i = arith::IndexCastOp::create(b, loc, b.getIndexType(), i);
  Value zero = indexConst(b, loc, 0);
  Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
  i = arith::SelectOp::create(b, loc, neg, arith::AddIOp::create(b, loc, i, size), i);
  i = arith::MaxSIOp::create(b, loc, i, zero);
  Value last = arith::MaxSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, size, indexConst(b, loc, 1)), zero);
  return arith::MinSIOp::create(b, loc, i, last);
}

namespace {

struct GatherElementsLowering : OpConversionPattern<GatherElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(GatherElementsOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    auto type = op.getType();
    Value data = adaptor.getData();
    int64_t axis = op.getAxis();
    // Dynamic dims (dlc compile --dims): the result has the indices' sizes; a dynamic axis
    // wraps and clamps to its size when the model runs.
    int64_t n = cast<RankedTensorType>(data.getType()).getDimSize(axis);
    Value dynamicN = ShapedType::isDynamic(n)
                         ? tensor::DimOp::create(b, op.getLoc(), data, axis).getResult()
                         : Value();
    AffineMap id = AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
    Value r = buildIndexed(b, op.getLoc(), type, {adaptor.getIndices()}, {id},
                           [&](OpBuilder &nb, Location l, ValueRange idx, ValueRange a) {
                             SmallVector<Value> src(idx);
                             src[axis] = dynamicN ? wrapAndClampIndex(nb, l, a[0], dynamicN)
                                                  : wrapAndClampIndex(nb, l, a[0], n);
                             return tensor::ExtractOp::create(nb, l, data, src).getResult();
                           },
                           broadcastSizes(b, op.getLoc(), type, adaptor.getIndices()));
    b.replaceOp(op, r);
    return success();
  }
};

struct GatherNDLowering : OpConversionPattern<GatherNDOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(GatherNDOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    auto type = op.getType();
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto dt = cast<RankedTensorType>(data.getType());
    auto it = cast<RankedTensorType>(indices.getType());
    int64_t bd = op.getBatchDims(), ri = it.getRank(), k = it.getDimSize(ri - 1);
    Location loc = op.getLoc();
    // Dynamic dims (dlc compile --dims): the result has the indices' leading sizes, then
    // the data's trailing ones; a dynamic addressed dim clamps to its size at run time.
    SmallVector<OpFoldResult> sizes;
    for (int64_t o = 0; o < type.getRank(); ++o)
      sizes.push_back(o < ri - 1 ? tensor::getMixedSize(b, loc, indices, o)
                                 : tensor::getMixedSize(b, loc, data, bd + k + o - (ri - 1)));
    SmallVector<Value> dynamicDims;
    for (int64_t j = 0; j < k; ++j)
      dynamicDims.push_back(dt.isDynamicDim(bd + j)
                                ? tensor::DimOp::create(b, loc, data, bd + j).getResult()
                                : Value());
    Value r = buildIndexed(b, loc, type, {}, {},
                           [&](OpBuilder &nb, Location l, ValueRange idx, ValueRange) {
                             SmallVector<Value> src(idx.take_front(bd));
                             SmallVector<Value> at(idx.take_front(ri - 1));
                             at.push_back(Value());
                             for (int64_t j = 0; j < k; ++j) {
                               at.back() = indexConst(nb, l, j);
                               Value v = tensor::ExtractOp::create(nb, l, indices, at);
                               src.push_back(dynamicDims[j]
                                                 ? wrapAndClampIndex(nb, l, v, dynamicDims[j])
                                                 : wrapAndClampIndex(nb, l, v, dt.getDimSize(bd + j)));
                             }
                             llvm::append_range(src, idx.drop_front(ri - 1));
                             return tensor::ExtractOp::create(nb, l, data, src).getResult();
                           },
                           sizes);
    b.replaceOp(op, r);
    return success();
  }
};

/// The sizes of `v`'s dims [first, last) as `index` values (read when dynamic).
SmallVector<Value> dimSizes(OpBuilder &b, Location loc, Value v, int64_t first, int64_t last) {
  SmallVector<Value> sizes;
  for (int64_t d = first; d < last; ++d)
    sizes.push_back(getValueOrCreateConstantIndexOp(b, loc, tensor::getMixedSize(b, loc, v, d)));
  return sizes;
}

/// The product of `sizes`.
Value productOf(OpBuilder &b, Location loc, ArrayRef<Value> sizes) {
  Value p = indexConst(b, loc, 1);
  for (Value s : sizes)
    p = b.createOrFold<arith::MulIOp>(loc, p, s);
  return p;
}

/// Row-major coordinates of flat index `i` in `sizes`.
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value i, ArrayRef<Value> sizes) {
  SmallVector<Value> c(sizes.size());
  for (int64_t d = (int64_t)sizes.size() - 1; d >= 0; --d) {
    Value n = arith::MaxUIOp::create(b, loc, sizes[d], indexConst(b, loc, 1));
    c[d] = arith::RemUIOp::create(b, loc, i, n);
    i = arith::DivUIOp::create(b, loc, i, n);
  }
  return c;
}

Value combine(OpBuilder &b, Location loc, StringRef reduction, Value old, Value upd) {
  bool f = isa<FloatType>(old.getType());
  if (reduction == "add")
    return f ? Value(arith::AddFOp::create(b, loc, old, upd)) : Value(arith::AddIOp::create(b, loc, old, upd));
  if (reduction == "mul")
    return f ? Value(arith::MulFOp::create(b, loc, old, upd)) : Value(arith::MulIOp::create(b, loc, old, upd));
  if (reduction == "max")
    return f ? Value(arith::MaximumFOp::create(b, loc, old, upd)) : Value(arith::MaxSIOp::create(b, loc, old, upd));
  if (reduction == "min")
    return f ? Value(arith::MinimumFOp::create(b, loc, old, upd)) : Value(arith::MinSIOp::create(b, loc, old, upd));
  return upd;
}

/// An scf.for over `count` updates, in order (later writes win), each computing
/// its target coordinates and update coordinates from the flat iteration index.
template <typename OpTy>
Value scatterLoop(ConversionPatternRewriter &b, OpTy op, Value data, Value updates, Value count,
                  function_ref<void(OpBuilder &, Location, Value, SmallVectorImpl<Value> &,
                                    SmallVectorImpl<Value> &)>
                      coords) {
  Location loc = op.getLoc();
  Value lb = indexConst(b, loc, 0), one = indexConst(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, lb, count, one, ValueRange{data},
      [&](OpBuilder &nb, Location l, Value i, ValueRange acc) {
        SmallVector<Value> target, updateAt;
        coords(nb, l, i, target, updateAt);
        Value u = tensor::ExtractOp::create(nb, l, updates, updateAt);
        Value old = tensor::ExtractOp::create(nb, l, acc[0], target);
        Value v = combine(nb, l, op.getReduction(), old, u);
        Value next = tensor::InsertOp::create(nb, l, v, acc[0], target);
        scf::YieldOp::create(nb, l, next);
      });
  return loop.getResult(0);
}

struct ScatterElementsLowering : OpConversionPattern<ScatterElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ScatterElementsOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    int64_t axis = op.getAxis();
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    SmallVector<Value> shape = dimSizes(b, loc, indices, 0, op.getIndices().getType().getRank());
    Value axisSize = getValueOrCreateConstantIndexOp(b, loc, tensor::getMixedSize(b, loc, data, axis));
    Value r = scatterLoop(b, op, data, adaptor.getUpdates(), productOf(b, loc, shape),
                          [&](OpBuilder &nb, Location l, Value i, SmallVectorImpl<Value> &target,
                              SmallVectorImpl<Value> &at) {
                            at = delinearize(nb, l, i, shape);
                            Value v = tensor::ExtractOp::create(nb, l, indices, at);
                            target.assign(at.begin(), at.end());
                            target[axis] = wrapAndClampIndex(nb, l, v, axisSize);
                          });
    b.replaceOp(op, r);
    return success();
  }
};

struct ScatterNDLowering : OpConversionPattern<ScatterNDOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ScatterNDOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto it = op.getIndices().getType();
    int64_t ri = it.getRank(), k = it.getDimSize(ri - 1);
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    int64_t dr = op.getData().getType().getRank();
    SmallVector<Value> outer = dimSizes(b, loc, indices, 0, ri - 1),
                       rest = dimSizes(b, loc, data, k, dr), addressed = dimSizes(b, loc, data, 0, k);
    Value restCount = productOf(b, loc, rest);
    Value count = b.createOrFold<arith::MulIOp>(loc, productOf(b, loc, outer), restCount);
    Value r = scatterLoop(b, op, data, adaptor.getUpdates(), count,
                          [&](OpBuilder &nb, Location l, Value i, SmallVectorImpl<Value> &target,
                              SmallVectorImpl<Value> &at) {
                            Value rc = arith::MaxUIOp::create(nb, l, restCount, indexConst(nb, l, 1));
                            auto oc = delinearize(nb, l, arith::DivUIOp::create(nb, l, i, rc), outer);
                            auto tail = delinearize(nb, l, arith::RemUIOp::create(nb, l, i, rc), rest);
                            SmallVector<Value> tupleAt(oc);
                            tupleAt.push_back(Value());
                            for (int64_t j = 0; j < k; ++j) {
                              tupleAt.back() = indexConst(nb, l, j);
                              Value v = tensor::ExtractOp::create(nb, l, indices, tupleAt);
                              target.push_back(wrapAndClampIndex(nb, l, v, addressed[j]));
                            }
                            llvm::append_range(target, tail);
                            at.assign(oc.begin(), oc.end());
                            llvm::append_range(at, tail);
                          });
    b.replaceOp(op, r);
    return success();
  }
};

} // namespace

void populateIndexingLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<GatherElementsLowering, GatherNDLowering, ScatterElementsLowering,
               ScatterNDLowering>(patterns.getContext());
}

} // namespace dlc::conversion
