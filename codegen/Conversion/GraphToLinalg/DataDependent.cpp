// Ops whose result sizes depend on values (NonZero) -> scf loops that count, then fill.
#include "codegen/Conversion/GraphToLinalg/LoweringUtils.h"
#include "codegen/Conversion/GraphToLinalg/Passes.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::conversion {
namespace {

/// Whether scalar `v` is non-zero (NaN is non-zero, -0.0 is zero).
Value isNonZero(OpBuilder &b, Location loc, Value v) {
  Type t = v.getType();
  if (auto ft = dyn_cast<FloatType>(t)) {
    if (ft.getWidth() < 32)
      v = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(v.getType()));
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
  }
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(t));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
}

/// The input's elements as a 1-D tensor and each dim's size (a 0-d input is one element).
std::pair<Value, SmallVector<Value>> flatten(OpBuilder &b, Location loc, Value x) {
  auto t = cast<RankedTensorType>(x.getType());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < t.getRank(); ++d)
    sizes.push_back(t.isDynamicDim(d) ? tensor::DimOp::create(b, loc, x, d).getResult()
                                      : indexConst(b, loc, t.getDimSize(d)));
  if (t.getRank() == 0) {
    sizes.push_back(indexConst(b, loc, 1));
    auto one = RankedTensorType::get({1}, t.getElementType());
    return {tensor::ExpandShapeOp::create(b, loc, one, x, ArrayRef<ReassociationIndices>{}),
            sizes};
  }
  if (t.getRank() == 1)
    return {x, sizes};
  ReassociationIndices all;
  for (int64_t d = 0; d < t.getRank(); ++d)
    all.push_back(d);
  int64_t n = t.hasStaticShape() ? t.getNumElements() : ShapedType::kDynamic;
  auto flat = RankedTensorType::get({n}, t.getElementType());
  return {tensor::CollapseShapeOp::create(b, loc, flat, x, ArrayRef<ReassociationIndices>{all}),
          sizes};
}

/// NonZero: one pass counts the non-zeros, a second writes each one's coordinates into
/// the column of its rank among them.
struct NonZeroLowering : OpConversionPattern<NonZeroOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(NonZeroOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto [flat, sizes] = flatten(b, loc, adaptor.getInput());
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    Value n = inType.hasStaticShape() ? indexConst(b, loc, inType.getNumElements()) : Value();
    for (Value s : sizes)
      if (!inType.hasStaticShape())
        n = n ? arith::MulIOp::create(b, loc, n, s).getResult() : s;
    Value zero = indexConst(b, loc, 0), one = indexConst(b, loc, 1);
    auto count = scf::ForOp::create(
        b, loc, zero, n, one, ValueRange{zero},
        [&](OpBuilder &nb, Location l, Value i, ValueRange acc) {
          Value v = tensor::ExtractOp::create(nb, l, flat, i);
          Value add = arith::SelectOp::create(nb, l, isNonZero(nb, l, v), indexConst(nb, l, 1),
                                              indexConst(nb, l, 0));
          scf::YieldOp::create(nb, l, ValueRange{arith::AddIOp::create(nb, l, acc[0], add)});
        });
    auto type = op.getType();
    Value empty = tensor::EmptyOp::create(b, loc, type, ValueRange{count.getResult(0)});
    auto fill = scf::ForOp::create(
        b, loc, zero, n, one, ValueRange{empty, zero},
        [&](OpBuilder &nb, Location l, Value i, ValueRange acc) {
          Value v = tensor::ExtractOp::create(nb, l, flat, i);
          auto branch = scf::IfOp::create(
              nb, l, isNonZero(nb, l, v),
              [&](OpBuilder &tb, Location tl) {
                // Coordinates of flat index i, innermost first.
                Value out = acc[0], rest = i;
                for (int64_t d = sizes.size() - 1; d >= 0; --d) {
                  Value c = d == 0 ? rest : arith::RemUIOp::create(tb, tl, rest, sizes[d]);
                  if (d > 0)
                    rest = arith::DivUIOp::create(tb, tl, rest, sizes[d]);
                  Value c64 = arith::IndexCastOp::create(tb, tl, tb.getI64Type(), c);
                  out = tensor::InsertOp::create(tb, tl, c64, out,
                                                 ValueRange{indexConst(tb, tl, d), acc[1]});
                }
                Value next = arith::AddIOp::create(tb, tl, acc[1], indexConst(tb, tl, 1));
                scf::YieldOp::create(tb, tl, ValueRange{out, next});
              },
              [&](OpBuilder &eb, Location el) { scf::YieldOp::create(eb, el, acc); });
          scf::YieldOp::create(nb, l, branch.getResults());
        });
    b.replaceOp(op, fill.getResult(0));
    return success();
  }
};

} // namespace

void populateDataDependentLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<NonZeroLowering>(patterns.getContext());
}

} // namespace dlc::conversion
