// Elementwise dlc_graph ops -> linalg.generic: one pattern, one scalar-body table row per op.
#include "codegen/Conversion/GraphToLinalg/LoweringUtils.h"
#include "codegen/Conversion/GraphToLinalg/Passes.h"
#include "dialects/Graph/IR/GraphOps.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::conversion {
namespace {

using B = OpBuilder;
using L = Location;
using Args = ValueRange;

Value cmp(B &b, L loc, Args a, arith::CmpFPredicate fp, arith::CmpIPredicate ip) {
  if (isa<FloatType>(a[0].getType()))
    return arith::CmpFOp::create(b, loc, fp, a[0], a[1]);
  return arith::CmpIOp::create(b, loc, ip, a[0], a[1]);
}

/// The scalar computation of each elementwise op: the lowering table.
template <typename OpTy> struct Scalar;
#define DLC_SCALAR(OpTy, EXPR)                                                                 \
  template <> struct Scalar<OpTy> {                                                          \
    static Value build(B &b, L loc, OpTy op, Args a) { return EXPR; }                        \
  };
// clang-format off
DLC_SCALAR(AddOp, (floatOrInt<arith::AddFOp, arith::AddIOp>(b, loc, a)))
DLC_SCALAR(SubOp, (floatOrInt<arith::SubFOp, arith::SubIOp>(b, loc, a)))
DLC_SCALAR(MulOp, (floatOrInt<arith::MulFOp, arith::MulIOp>(b, loc, a)))
DLC_SCALAR(DivOp, (floatOrInt<arith::DivFOp, arith::DivSIOp>(b, loc, a)))
DLC_SCALAR(MaxOp, (floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(b, loc, a)))
DLC_SCALAR(MinOp, (floatOrInt<arith::MinimumFOp, arith::MinSIOp>(b, loc, a)))
DLC_SCALAR(PowOp, (floatOrInt<math::PowFOp, math::IPowIOp>(b, loc, a)))
DLC_SCALAR(AndOp, (arith::AndIOp::create(b, loc, a[0], a[1])))
DLC_SCALAR(OrOp, (arith::OrIOp::create(b, loc, a[0], a[1])))
DLC_SCALAR(XorOp, (arith::XOrIOp::create(b, loc, a[0], a[1])))
DLC_SCALAR(EqualOp, (cmp(b, loc, a, arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq)))
DLC_SCALAR(LessOp, (cmp(b, loc, a, arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt)))
DLC_SCALAR(LessEqualOp, (cmp(b, loc, a, arith::CmpFPredicate::OLE, arith::CmpIPredicate::sle)))
DLC_SCALAR(GreaterOp, (cmp(b, loc, a, arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt)))
DLC_SCALAR(GreaterEqualOp, (cmp(b, loc, a, arith::CmpFPredicate::OGE, arith::CmpIPredicate::sge)))
DLC_SCALAR(WhereOp, (arith::SelectOp::create(b, loc, a[0], a[1], a[2])))
DLC_SCALAR(ExpOp, (math::ExpOp::create(b, loc, a[0])))
DLC_SCALAR(LogOp, (math::LogOp::create(b, loc, a[0])))
DLC_SCALAR(SqrtOp, (math::SqrtOp::create(b, loc, a[0])))
DLC_SCALAR(TanhOp, (math::TanhOp::create(b, loc, a[0])))
DLC_SCALAR(ErfOp, (math::ErfOp::create(b, loc, a[0])))
DLC_SCALAR(FloorOp, (math::FloorOp::create(b, loc, a[0])))
DLC_SCALAR(CeilOp, (math::CeilOp::create(b, loc, a[0])))
DLC_SCALAR(SinOp, (math::SinOp::create(b, loc, a[0])))
DLC_SCALAR(CosOp, (math::CosOp::create(b, loc, a[0])))
DLC_SCALAR(NotOp, (arith::XOrIOp::create(b, loc, a[0], scalarConstant(b, loc, a[0].getType(), 1))))
DLC_SCALAR(ReciprocalOp, (arith::DivFOp::create(b, loc, scalarConstant(b, loc, a[0].getType(), 1), a[0])))
DLC_SCALAR(CastOp, (convertScalar(b, loc, a[0], op.getType().getElementType(), op.getUnsignedInput())))
DLC_SCALAR(ExpandOp, (a[0]))
// clang-format on
#undef DLC_SCALAR

template <> struct Scalar<NegOp> {
  static Value build(B &b, L loc, NegOp, Args a) {
    if (isa<FloatType>(a[0].getType()))
      return arith::NegFOp::create(b, loc, a[0]);
    return arith::SubIOp::create(b, loc, scalarConstant(b, loc, a[0].getType(), 0), a[0]);
  }
};
/// Remainder with the divisor's sign (floor) or the dividend's (truncated, C fmod).
Value remainder(B &b, L loc, Args a, bool floor) {
  Value r = floatOrInt<arith::RemFOp, arith::RemSIOp>(b, loc, a);
  if (!floor)
    return r;
  Value zero = scalarConstant(b, loc, a[0].getType(), 0);
  Value rNonZero = cmp(b, loc, {r, zero}, arith::CmpFPredicate::UNE, arith::CmpIPredicate::ne);
  Value rNeg = cmp(b, loc, {r, zero}, arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt);
  Value bNeg = cmp(b, loc, {a[1], zero}, arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt);
  Value fix = arith::AndIOp::create(b, loc, rNonZero, arith::XOrIOp::create(b, loc, rNeg, bNeg));
  Value shifted = floatOrInt<arith::AddFOp, arith::AddIOp>(b, loc, {r, a[1]});
  return arith::SelectOp::create(b, loc, fix, shifted, r);
}
template <> struct Scalar<ModOp> {
  static Value build(B &b, L loc, ModOp, Args a) { return remainder(b, loc, a, true); }
};
template <> struct Scalar<FModOp> {
  static Value build(B &b, L loc, FModOp, Args a) { return remainder(b, loc, a, false); }
};
template <> struct Scalar<AbsOp> {
  static Value build(B &b, L loc, AbsOp, Args a) {
    if (isa<FloatType>(a[0].getType()))
      return math::AbsFOp::create(b, loc, a[0]);
    // |x| = max(x, -x) (math.absi has no LLVM lowering here).
    Value neg = arith::SubIOp::create(b, loc, scalarConstant(b, loc, a[0].getType(), 0), a[0]);
    return arith::MaxSIOp::create(b, loc, a[0], neg);
  }
};
template <> struct Scalar<ReluOp> {
  static Value build(B &b, L loc, ReluOp, Args a) {
    Value zero = scalarConstant(b, loc, a[0].getType(), 0);
    return floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(b, loc, {a[0], zero});
  }
};
template <> struct Scalar<SigmoidOp> {
  static Value build(B &b, L loc, SigmoidOp, Args a) {
    Type t = a[0].getType();
    Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, a[0]));
    Value one = scalarConstant(b, loc, t, 1);
    return arith::DivFOp::create(b, loc, one, arith::AddFOp::create(b, loc, one, e));
  }
};
template <> struct Scalar<LeakyReluOp> {
  static Value build(B &b, L loc, LeakyReluOp op, Args a) {
    Type t = a[0].getType();
    Value zero = scalarConstant(b, loc, t, 0);
    Value alpha = scalarConstant(b, loc, t, op.getAlpha().convertToDouble());
    Value pos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, a[0], zero);
    return arith::SelectOp::create(b, loc, pos, a[0], arith::MulFOp::create(b, loc, a[0], alpha));
  }
};

template <typename OpTy> struct ElementwiseLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    Value r = buildElementwise(rewriter, op.getLoc(), type, adaptor.getOperands(),
                               [&](OpBuilder &b, Location loc, ValueRange args) {
                                 return Scalar<OpTy>::build(b, loc, op, args);
                               });
    rewriter.replaceOp(op, r);
    return success();
  }
};

template <typename... Ops> void addElementwise(RewritePatternSet &patterns) {
  (patterns.add<ElementwiseLowering<Ops>>(patterns.getContext()), ...);
}

} // namespace

void populateElementwiseLoweringPatterns(RewritePatternSet &patterns) {
  addElementwise<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp, AndOp, OrOp, XorOp, EqualOp,
                 LessOp, LessEqualOp, GreaterOp, GreaterEqualOp, WhereOp, ExpOp, LogOp, SqrtOp,
                 TanhOp, ErfOp, FloorOp, CeilOp, SinOp, CosOp, AbsOp, NotOp, ReciprocalOp, CastOp,
                 ExpandOp, NegOp, ReluOp, SigmoidOp, LeakyReluOp, ModOp, FModOp>(patterns);
}

} // namespace dlc::conversion
