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
DLC_SCALAR(TanOp, (math::TanOp::create(b, loc, a[0])))
DLC_SCALAR(AsinOp, (math::AsinOp::create(b, loc, a[0])))
DLC_SCALAR(AcosOp, (math::AcosOp::create(b, loc, a[0])))
DLC_SCALAR(AtanOp, (math::AtanOp::create(b, loc, a[0])))
DLC_SCALAR(SinhOp, (math::SinhOp::create(b, loc, a[0])))
DLC_SCALAR(CoshOp, (math::CoshOp::create(b, loc, a[0])))
DLC_SCALAR(RoundOp, (math::RoundEvenOp::create(b, loc, a[0])))
DLC_SCALAR(BitwiseNotOp, (arith::XOrIOp::create(b, loc, a[0], scalarConstant(b, loc, a[0].getType(), -1))))
DLC_SCALAR(BitwiseAndOp, (arith::AndIOp::create(b, loc, a[0], a[1])))
DLC_SCALAR(BitwiseOrOp, (arith::OrIOp::create(b, loc, a[0], a[1])))
DLC_SCALAR(BitwiseXorOp, (arith::XOrIOp::create(b, loc, a[0], a[1])))
DLC_SCALAR(IsNaNOp, (arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, a[0], a[0])))
DLC_SCALAR(NotOp, (arith::XOrIOp::create(b, loc, a[0], scalarConstant(b, loc, a[0].getType(), 1))))
DLC_SCALAR(ReciprocalOp, (arith::DivFOp::create(b, loc, scalarConstant(b, loc, a[0].getType(), 1), a[0])))
DLC_SCALAR(CastOp, (convertScalar(b, loc, a[0], op.getType().getElementType(), op.getUnsignedInput())))
DLC_SCALAR(ExpandOp, (a[0]))
DLC_SCALAR(BitcastOp, (arith::BitcastOp::create(b, loc, op.getType().getElementType(), a[0])))
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
template <> struct Scalar<SignOp> {
  static Value build(B &b, L loc, SignOp, Args a) {
    Type t = a[0].getType();
    Value zero = scalarConstant(b, loc, t, 0);
    Value pos = cmp(b, loc, {a[0], zero}, arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt);
    Value neg = cmp(b, loc, {a[0], zero}, arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt);
    Value r = arith::SelectOp::create(b, loc, neg, scalarConstant(b, loc, t, -1), a[0]);
    r = arith::SelectOp::create(b, loc, pos, scalarConstant(b, loc, t, 1), r);
    // Zero (and NaN) pass through; integers become exactly 0 there.
    return isa<FloatType>(t) ? r : arith::SelectOp::create(b, loc, arith::OrIOp::create(b, loc, pos, neg), r, zero);
  }
};
template <> struct Scalar<IsInfOp> {
  static Value build(B &b, L loc, IsInfOp op, Args a) {
    auto ft = cast<FloatType>(a[0].getType());
    auto inf = [&](bool negative) {
      return arith::ConstantOp::create(
          b, loc, b.getFloatAttr(ft, APFloat::getInf(ft.getFloatSemantics(), negative)));
    };
    Value r = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
    if (op.getDetectPositive())
      r = arith::OrIOp::create(b, loc, r, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, a[0], inf(false)));
    if (op.getDetectNegative())
      r = arith::OrIOp::create(b, loc, r, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, a[0], inf(true)));
    return r;
  }
};
/// Shifts by the bit width or more give 0 (LLVM's shifts would be poison).
template <typename ShiftOp> Value shift(B &b, L loc, Args a) {
  Type t = a[0].getType();
  Value width = scalarConstant(b, loc, t, t.getIntOrFloatBitWidth());
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, a[1], width);
  Value shifted = ShiftOp::create(b, loc, a[0], a[1]);
  return arith::SelectOp::create(b, loc, inRange, shifted, scalarConstant(b, loc, t, 0));
}
template <> struct Scalar<ShiftLeftOp> {
  static Value build(B &b, L loc, ShiftLeftOp, Args a) { return shift<arith::ShLIOp>(b, loc, a); }
};
template <> struct Scalar<ShiftRightOp> {
  static Value build(B &b, L loc, ShiftRightOp, Args a) { return shift<arith::ShRUIOp>(b, loc, a); }
};
template <> struct Scalar<ShiftRightArithOp> {
  static Value build(B &b, L loc, ShiftRightArithOp, Args a) {
    // Negative or too-large counts shift all the way: 0 or -1 by the sign.
    Type t = a[0].getType();
    Value width = scalarConstant(b, loc, t, t.getIntOrFloatBitWidth());
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, a[1], width);
    Value full = scalarConstant(b, loc, t, t.getIntOrFloatBitWidth() - 1);
    Value count = arith::SelectOp::create(b, loc, inRange, a[1], full);
    return arith::ShRSIOp::create(b, loc, a[0], count);
  }
};
/// Inverse hyperbolic functions through log and sqrt (math.asinh & co. have no
/// vector lowering to LLVM here).
template <> struct Scalar<AsinhOp> {
  static Value build(B &b, L loc, AsinhOp, Args a) {
    Value one = scalarConstant(b, loc, a[0].getType(), 1);
    // asinh(-x) = -asinh(x) keeps precision for negative x.
    Value ax = math::AbsFOp::create(b, loc, a[0]);
    Value r = math::SqrtOp::create(b, loc, arith::AddFOp::create(b, loc, arith::MulFOp::create(b, loc, ax, ax), one));
    Value pos = math::LogOp::create(b, loc, arith::AddFOp::create(b, loc, ax, r));
    return math::CopySignOp::create(b, loc, pos, a[0]);
  }
};
template <> struct Scalar<AcoshOp> {
  static Value build(B &b, L loc, AcoshOp, Args a) {
    Value one = scalarConstant(b, loc, a[0].getType(), 1);
    Value r = math::SqrtOp::create(b, loc, arith::SubFOp::create(b, loc, arith::MulFOp::create(b, loc, a[0], a[0]), one));
    return math::LogOp::create(b, loc, arith::AddFOp::create(b, loc, a[0], r));
  }
};
template <> struct Scalar<AtanhOp> {
  static Value build(B &b, L loc, AtanhOp, Args a) {
    Type t = a[0].getType();
    Value one = scalarConstant(b, loc, t, 1), half = scalarConstant(b, loc, t, 0.5);
    Value q = arith::DivFOp::create(b, loc, arith::AddFOp::create(b, loc, one, a[0]),
                                    arith::SubFOp::create(b, loc, one, a[0]));
    return arith::MulFOp::create(b, loc, half, math::LogOp::create(b, loc, q));
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
  addElementwise<TanOp, AsinOp, AcosOp, AtanOp, SinhOp, CoshOp, AsinhOp, AcoshOp, AtanhOp, SignOp,
                 RoundOp, BitwiseNotOp, BitwiseAndOp, BitwiseOrOp, BitwiseXorOp, IsNaNOp, IsInfOp,
                 ShiftLeftOp, ShiftRightOp, ShiftRightArithOp, BitcastOp>(patterns);
}

} // namespace dlc::conversion
