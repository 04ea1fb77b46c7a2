// 2-D max/average pooling -> tensor.pad + linalg.pooling_{nchw,nhwc}_{max,sum}.
#include "codegen/Conversion/GraphToLinalg/LoweringUtils.h"
#include "codegen/Conversion/GraphToLinalg/Passes.h"
#include "dialects/Graph/IR/GraphOps.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::conversion {
namespace {

/// Extra end padding so that every (ceil-mode) window lies inside the padded input.
int64_t extraEndPad(int64_t in, int64_t out, int64_t k, int64_t s, int64_t d, int64_t lo,
                    int64_t hi) {
  int64_t needed = (out - 1) * s + (k - 1) * d + 1;
  return std::max<int64_t>(0, needed - (in + lo + hi));
}

/// Number of elements each output position of one dim averages over.
SmallVector<int64_t> windowCounts(int64_t in, int64_t out, int64_t k, int64_t s, int64_t d,
                                  int64_t lo, int64_t hi, bool includePad) {
  SmallVector<int64_t> counts;
  for (int64_t o = 0; o < out; ++o) {
    int64_t n = 0;
    for (int64_t i = 0; i < k; ++i) {
      int64_t pos = o * s - lo + i * d;
      n += includePad ? (pos >= -lo && pos < in + hi) : (pos >= 0 && pos < in);
    }
    counts.push_back(n);
  }
  return counts;
}

/// A dynamic image dim's windows (dlc compile --dims), from its size `in` when the model
/// runs: the number `out` and the end padding `hi` that holds every (ceil-mode) window.
struct DynamicWindows {
  Value out, hi;
};
DynamicWindows dynamicWindows(OpBuilder &b, Location loc, Value in, int64_t k, int64_t s,
                              int64_t d, int64_t lo, int64_t hi, bool ceilMode) {
  auto c = [&](int64_t v) { return indexConst(b, loc, v); };
  int64_t span = (k - 1) * d + 1;
  // floor: (in + lo + hi - span + s) / s; ceil: the same rounded up, at most the windows
  // that start before the end padding ((in + lo + s - 1) / s). The window fits (checked
  // before the run), so every operand is non-negative.
  Value room = b.createOrFold<arith::AddIOp>(loc, in, c(lo + hi - span + s + (ceilMode ? s - 1 : 0)));
  Value out = b.createOrFold<arith::DivUIOp>(loc, room, c(s));
  if (ceilMode) {
    Value starts = arith::DivUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, in, c(lo + s - 1)), c(s));
    out = arith::MinUIOp::create(b, loc, out, starts);
  }
  if (!ceilMode) // every window ends inside the padded input
    return {out, c(hi)};
  // needed = (out - 1) * s + span; hi + max(0, needed - (in + lo + hi)).
  Value needed = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, out, c(s)),
                                       c(span - s - lo - hi));
  Value extra = arith::MaxSIOp::create(b, loc, arith::SubIOp::create(b, loc, needed, in), c(0));
  return {out, arith::AddIOp::create(b, loc, extra, c(hi))};
}

/// The number of taps of a window (position `o`, kernel `k`, stride `s`, dilation `d`,
/// begin padding `lo`) that read inside [first, end): an `index`.
Value tapsInside(OpBuilder &b, Location loc, Value o, int64_t k, int64_t s, int64_t d,
                 int64_t lo, Value first, Value end) {
  auto c = [&](int64_t v) { return indexConst(b, loc, v); };
  // Tap i reads t + i*d, t = o*s - lo: i from ceil((first - t) / d) to floor((end-1-t) / d).
  Value t = arith::SubIOp::create(b, loc, arith::MulIOp::create(b, loc, o, c(s)), c(lo));
  Value iMin = arith::MaxSIOp::create(
      b, loc, c(0), arith::CeilDivSIOp::create(b, loc, arith::SubIOp::create(b, loc, first, t), c(d)));
  Value last = arith::SubIOp::create(b, loc, arith::SubIOp::create(b, loc, end, c(1)), t);
  Value iMax = arith::MinSIOp::create(b, loc, c(k - 1), arith::FloorDivSIOp::create(b, loc, last, c(d)));
  Value n = arith::AddIOp::create(b, loc, arith::SubIOp::create(b, loc, iMax, iMin), c(1));
  return arith::MaxSIOp::create(b, loc, n, c(0));
}

template <typename PoolOp, typename NchwPool, typename NhwcPool, bool isMax>
struct PoolLowering : OpConversionPattern<PoolOp> {
  using OpConversionPattern<PoolOp>::OpConversionPattern;
  LogicalResult matchAndRewrite(PoolOp op, typename PoolOp::Adaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type elt = type.getElementType();
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    auto inShape = inType.getShape();
    auto k = op.getKernel(), s = op.getStrides(), p = op.getPads(), d = op.getDilations();
    bool nhwc = op.getChannelsLast();
    int sp = nhwc ? 1 : 2; // first spatial dim
    SmallVector<OpFoldResult> lo(4, b.getIndexAttr(0)), hi(4, b.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes;
    for (int64_t i = 0; i < 4; ++i)
      sizes.push_back(i == sp || i == sp + 1 ? OpFoldResult()
                                             : tensor::getMixedSize(b, loc, input, i));
    // Each image dim's size, its number of windows and end padding: static, or (a
    // dynamic dim) computed when the model runs.
    SmallVector<Value> inSize(2);
    for (int i = 0; i < 2; ++i) {
      lo[sp + i] = b.getIndexAttr(p[i]);
      if (!inType.isDynamicDim(sp + i)) {
        sizes[sp + i] = b.getIndexAttr(type.getDimSize(sp + i));
        hi[sp + i] = b.getIndexAttr(p[2 + i] + extraEndPad(inShape[sp + i],
                                                           type.getDimSize(sp + i), k[i], s[i],
                                                           d[i], p[i], p[2 + i]));
        continue;
      }
      inSize[i] = tensor::DimOp::create(b, loc, input, sp + i);
      DynamicWindows w =
          dynamicWindows(b, loc, inSize[i], k[i], s[i], d[i], p[i], p[2 + i], op.getCeilMode());
      sizes[sp + i] = w.out;
      hi[sp + i] = w.hi;
    }
    Value padValue = isMax ? extremeConstant(b, loc, elt, /*lowest=*/true)
                           : scalarConstant(b, loc, elt, 0);
    Value x = input;
    if (llvm::any_of(llvm::concat<OpFoldResult>(lo, hi),
                     [](OpFoldResult f) { return !isConstantIntValue(f, 0); }))
      x = tensor::PadOp::create(b, loc, RankedTensorType(), input, lo, hi, padValue);
    Value init = filledTensor(b, loc, type, padValue, sizes);
    Value window = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{k[0], k[1]}, elt);
    Value r = nhwc ? NhwcPool::create(b, loc, TypeRange{type}, ValueRange{x, window},
                                      ValueRange{init}, b.getI64TensorAttr(s),
                                      b.getI64TensorAttr(d))
                         .getResult(0)
                   : NchwPool::create(b, loc, TypeRange{type}, ValueRange{x, window},
                                      ValueRange{init}, b.getI64TensorAttr(s),
                                      b.getI64TensorAttr(d))
                         .getResult(0);
    if constexpr (!isMax) {
      bool include = op.getCountIncludePad();
      if (inType.isDynamicDim(sp) || inType.isDynamicDim(sp + 1)) {
        r = dynamicAverage(b, loc, op, r, type, sp, inSize, sizes, include);
      } else {
        auto ch = windowCounts(inShape[sp], type.getDimSize(sp), k[0], s[0], d[0], p[0], p[2],
                               include);
        auto cw = windowCounts(inShape[sp + 1], type.getDimSize(sp + 1), k[1], s[1], d[1], p[1],
                               p[3], include);
        // [OH, OW] against NCHW; [OH, OW, 1] against NHWC.
        SmallVector<int64_t> countShape = {type.getDimSize(sp), type.getDimSize(sp + 1)};
        if (nhwc)
          countShape.push_back(1);
        auto countType = RankedTensorType::get(countShape, elt);
        SmallVector<Attribute> inv;
        for (int64_t a : ch)
          for (int64_t c : cw)
            inv.push_back(b.getFloatAttr(elt, 1.0 / double(std::max<int64_t>(1, a * c))));
        Value scale = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(countType, inv));
        r = buildElementwise(b, loc, type, {r, scale},
                             [](OpBuilder &nb, Location l, ValueRange a) {
                               return arith::MulFOp::create(nb, l, a[0], a[1]).getResult();
                             });
      }
    }
    b.replaceOp(op, r);
    return success();
  }

  /// The window sums `sum` divided by each window's count of taps (inside the input, or
  /// the padded input with count_include_pad), computed from the output position when
  /// the model runs (dynamic image dims; `inSize`: their sizes, null where static).
  static Value dynamicAverage(OpBuilder &b, Location loc, PoolOp op, Value sum,
                              RankedTensorType type, int sp, ArrayRef<Value> inSize,
                              ArrayRef<OpFoldResult> sizes, bool include) {
    auto k = op.getKernel(), s = op.getStrides(), p = op.getPads(), d = op.getDilations();
    auto inShape = cast<RankedTensorType>(op.getInput().getType()).getShape();
    Type elt = type.getElementType();
    MLIRContext *ctx = b.getContext();
    return buildIndexed(
        b, loc, type, {sum}, {AffineMap::getMultiDimIdentityMap(type.getRank(), ctx)},
        [&](OpBuilder &nb, Location l, ValueRange idx, ValueRange a) {
          Value count;
          for (int i = 0; i < 2; ++i) {
            Value in = inSize[i] ? inSize[i] : indexConst(nb, l, inShape[sp + i]);
            Value first = indexConst(nb, l, include ? -p[i] : 0);
            Value end = include ? arith::AddIOp::create(nb, l, in, indexConst(nb, l, p[2 + i]))
                                      .getResult()
                                : in;
            Value n = tapsInside(nb, l, idx[sp + i], k[i], s[i], d[i], p[i], first, end);
            count = count ? arith::MulIOp::create(nb, l, count, n).getResult() : n;
          }
          count = arith::MaxSIOp::create(nb, l, count, indexConst(nb, l, 1));
          Value f = arith::SIToFPOp::create(
              nb, l, elt, arith::IndexCastOp::create(nb, l, nb.getI64Type(), count));
          return arith::DivFOp::create(nb, l, a[0], f).getResult();
        },
        sizes);
  }
};

} // namespace

void populatePoolingLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<
      PoolLowering<MaxPoolOp, linalg::PoolingNchwMaxOp, linalg::PoolingNhwcMaxOp, true>,
      PoolLowering<AveragePoolOp, linalg::PoolingNchwSumOp, linalg::PoolingNhwcSumOp, false>>(
      patterns.getContext());
}

} // namespace dlc::conversion
