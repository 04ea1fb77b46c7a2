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

template <typename PoolOp, typename NchwPool, typename NhwcPool, bool isMax>
struct PoolLowering : OpConversionPattern<PoolOp> {
  using OpConversionPattern<PoolOp>::OpConversionPattern;
  LogicalResult matchAndRewrite(PoolOp op, typename PoolOp::Adaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type elt = type.getElementType();
    auto inShape = cast<RankedTensorType>(op.getInput().getType()).getShape();
    auto k = op.getKernel(), s = op.getStrides(), p = op.getPads(), d = op.getDilations();
    bool nhwc = op.getChannelsLast();
    int sp = nhwc ? 1 : 2; // first spatial dim
    SmallVector<int64_t> lo(4, 0), hi(4, 0);
    for (int i = 0; i < 2; ++i) {
      lo[sp + i] = p[i];
      hi[sp + i] = p[2 + i] + extraEndPad(inShape[sp + i], type.getDimSize(sp + i), k[i], s[i],
                                          d[i], p[i], p[2 + i]);
    }
    Value padValue = isMax ? extremeConstant(b, loc, elt, /*lowest=*/true)
                           : scalarConstant(b, loc, elt, 0);
    Value x = padConstant(b, loc, adaptor.getInput(), lo, hi, padValue);
    Value init = filledTensor(b, loc, type, padValue, leadingSizes(b, loc, type, x));
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
      r = buildElementwise(b, loc, type, {r, scale}, [](OpBuilder &nb, Location l, ValueRange a) {
        return arith::MulFOp::create(nb, l, a[0], a[1]).getResult();
      });
    }
    b.replaceOp(op, r);
    return success();
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
