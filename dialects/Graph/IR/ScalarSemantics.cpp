// The scalar semantics of every elementwise dlc_graph op: the ScalarComputation
// interface's bodies. The linalg lowering emits them as linalg.generic payloads and
// the constant folders evaluate them (Folders.cpp, foldElementwise), so a folded
// value and a computed one follow the same definition.
#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/ScalarBuilders.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace dlc::graph;

using B = OpBuilder;
using L = Location;
using Args = ValueRange;

#define DLC_SCALAR(OpTy, EXPR)                                                                 \
  Value OpTy::buildScalar(B &b, L loc, Args a) {                                               \
    [[maybe_unused]] OpTy op = *this;                                                          \
    return EXPR;                                                                               \
  }
// clang-format off
DLC_SCALAR(AddOp, (floatOrInt<arith::AddFOp, arith::AddIOp>(b, loc, a)))
DLC_SCALAR(SubOp, (floatOrInt<arith::SubFOp, arith::SubIOp>(b, loc, a)))
DLC_SCALAR(MulOp, (floatOrInt<arith::MulFOp, arith::MulIOp>(b, loc, a)))
DLC_SCALAR(MaxOp, (floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(b, loc, a)))
DLC_SCALAR(MinOp, (floatOrInt<arith::MinimumFOp, arith::MinSIOp>(b, loc, a)))
DLC_SCALAR(PowOp, (floatOrInt<math::PowFOp, math::IPowIOp>(b, loc, a)))
DLC_SCALAR(AndOp, (arith::AndIOp::create(b, loc, a[0], a[1])))
DLC_SCALAR(OrOp, (arith::OrIOp::create(b, loc, a[0], a[1])))
DLC_SCALAR(XorOp, (arith::XOrIOp::create(b, loc, a[0], a[1])))
DLC_SCALAR(EqualOp, (compareScalars(b, loc, a, arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq)))
DLC_SCALAR(LessOp, (compareScalars(b, loc, a, arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt)))
DLC_SCALAR(LessEqualOp, (compareScalars(b, loc, a, arith::CmpFPredicate::OLE, arith::CmpIPredicate::sle)))
DLC_SCALAR(GreaterOp, (compareScalars(b, loc, a, arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt)))
DLC_SCALAR(GreaterEqualOp, (compareScalars(b, loc, a, arith::CmpFPredicate::OGE, arith::CmpIPredicate::sge)))
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

Value NegOp::buildScalar(B &b, L loc, Args a) {
  if (isa<FloatType>(a[0].getType()))
    return arith::NegFOp::create(b, loc, a[0]);
  return arith::SubIOp::create(b, loc, scalarConstant(b, loc, a[0].getType(), 0), a[0]);
}

/// Integer division never traps (ONNX leaves these cases undefined; a hardware divide
/// raises SIGFPE): as NumPy, x / 0 = 0 and x % 0 = 0, INT_MIN / -1 = INT_MIN (wraps) and
/// INT_MIN % -1 = 0. The divide itself sees 1 where the divisor is 0 or -1.
static Value nonTrappingDivisor(B &b, L loc, Value d) {
  Type t = d.getType();
  auto equals = [&](double v) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, d, scalarConstant(b, loc, t, v));
  };
  Value zeroOrMinusOne = arith::OrIOp::create(b, loc, equals(0), equals(-1));
  return arith::SelectOp::create(b, loc, zeroOrMinusOne, scalarConstant(b, loc, t, 1), d);
}

Value DivOp::buildScalar(B &b, L loc, Args a) {
  if (isa<FloatType>(a[0].getType()))
    return arith::DivFOp::create(b, loc, a[0], a[1]);
  Type t = a[0].getType();
  Value zero = scalarConstant(b, loc, t, 0);
  Value q = arith::DivSIOp::create(b, loc, a[0], nonTrappingDivisor(b, loc, a[1]));
  Value byMinusOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a[1],
                                           scalarConstant(b, loc, t, -1));
  q = arith::SelectOp::create(b, loc, byMinusOne, arith::SubIOp::create(b, loc, zero, a[0]), q);
  Value byZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a[1], zero);
  return arith::SelectOp::create(b, loc, byZero, zero, q);
}

/// Remainder with the divisor's sign (floor) or the dividend's (truncated, C fmod).
static Value remainder(B &b, L loc, Args a, bool floor) {
  // x % 1 = 0 stands for x % 0 and x % -1 (see nonTrappingDivisor).
  Value r = isa<FloatType>(a[0].getType())
                ? arith::RemFOp::create(b, loc, a[0], a[1]).getResult()
                : arith::RemSIOp::create(b, loc, a[0], nonTrappingDivisor(b, loc, a[1])).getResult();
  if (!floor)
    return r;
  Value zero = scalarConstant(b, loc, a[0].getType(), 0);
  Value rNonZero = compareScalars(b, loc, {r, zero}, arith::CmpFPredicate::UNE, arith::CmpIPredicate::ne);
  Value rNeg = compareScalars(b, loc, {r, zero}, arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt);
  Value bNeg = compareScalars(b, loc, {a[1], zero}, arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt);
  Value fix = arith::AndIOp::create(b, loc, rNonZero, arith::XOrIOp::create(b, loc, rNeg, bNeg));
  Value shifted = floatOrInt<arith::AddFOp, arith::AddIOp>(b, loc, {r, a[1]});
  return arith::SelectOp::create(b, loc, fix, shifted, r);
}
Value ModOp::buildScalar(B &b, L loc, Args a) { return remainder(b, loc, a, true); }
Value FModOp::buildScalar(B &b, L loc, Args a) { return remainder(b, loc, a, false); }

Value AbsOp::buildScalar(B &b, L loc, Args a) {
  if (isa<FloatType>(a[0].getType()))
    return math::AbsFOp::create(b, loc, a[0]);
  // |x| = max(x, -x) (math.absi has no LLVM lowering here).
  Value neg = arith::SubIOp::create(b, loc, scalarConstant(b, loc, a[0].getType(), 0), a[0]);
  return arith::MaxSIOp::create(b, loc, a[0], neg);
}

/// x < 0 ? 0 : x: NaN stays NaN, -0 stays -0 (as ONNX Runtime; one vmaxps on x86).
Value ReluOp::buildScalar(B &b, L loc, Args a) {
  Value zero = scalarConstant(b, loc, a[0].getType(), 0);
  Value negative = compareScalars(b, loc, {a[0], zero}, arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt);
  return arith::SelectOp::create(b, loc, negative, zero, a[0]);
}

Value SigmoidOp::buildScalar(B &b, L loc, Args a) {
  Type t = a[0].getType();
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, a[0]));
  Value one = scalarConstant(b, loc, t, 1);
  return arith::DivFOp::create(b, loc, one, arith::AddFOp::create(b, loc, one, e));
}

Value SignOp::buildScalar(B &b, L loc, Args a) {
  Type t = a[0].getType();
  Value zero = scalarConstant(b, loc, t, 0);
  Value pos = compareScalars(b, loc, {a[0], zero}, arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt);
  Value neg = compareScalars(b, loc, {a[0], zero}, arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt);
  // NaN passes through; +-0 (and integer 0) give +0.
  Value r = arith::SelectOp::create(b, loc, neg, scalarConstant(b, loc, t, -1), a[0]);
  r = arith::SelectOp::create(b, loc, pos, scalarConstant(b, loc, t, 1), r);
  Value isZero = compareScalars(b, loc, {a[0], zero}, arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq);
  return arith::SelectOp::create(b, loc, isZero, zero, r);
}

Value IsInfOp::buildScalar(B &b, L loc, Args a) {
  auto ft = cast<FloatType>(a[0].getType());
  auto inf = [&](bool negative) {
    return arith::ConstantOp::create(
        b, loc, b.getFloatAttr(ft, APFloat::getInf(ft.getFloatSemantics(), negative)));
  };
  Value r = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
  if (getDetectPositive())
    r = arith::OrIOp::create(b, loc, r, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, a[0], inf(false)));
  if (getDetectNegative())
    r = arith::OrIOp::create(b, loc, r, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, a[0], inf(true)));
  return r;
}

/// Shifts by the bit width or more give 0 (LLVM's shifts would be poison).
template <typename ShiftOp> static Value shift(B &b, L loc, Args a) {
  Type t = a[0].getType();
  Value width = scalarConstant(b, loc, t, t.getIntOrFloatBitWidth());
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, a[1], width);
  Value shifted = ShiftOp::create(b, loc, a[0], a[1]);
  return arith::SelectOp::create(b, loc, inRange, shifted, scalarConstant(b, loc, t, 0));
}
Value ShiftLeftOp::buildScalar(B &b, L loc, Args a) { return shift<arith::ShLIOp>(b, loc, a); }
Value ShiftRightOp::buildScalar(B &b, L loc, Args a) { return shift<arith::ShRUIOp>(b, loc, a); }
Value ShiftRightArithOp::buildScalar(B &b, L loc, Args a) {
  // Negative or too-large counts shift all the way: 0 or -1 by the sign.
  Type t = a[0].getType();
  Value width = scalarConstant(b, loc, t, t.getIntOrFloatBitWidth());
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, a[1], width);
  Value full = scalarConstant(b, loc, t, t.getIntOrFloatBitWidth() - 1);
  Value count = arith::SelectOp::create(b, loc, inRange, a[1], full);
  return arith::ShRSIOp::create(b, loc, a[0], count);
}

/// Inverse hyperbolic functions through log and sqrt (math.asinh & co. have no
/// vector lowering to LLVM here). Where x*x would overflow (|x| >= 2^32, where 1 is
/// lost next to x*x anyway) asinh(x) = acosh(x) = log(2|x|) = log|x| + log 2.
static Value logOfTwiceAbs(B &b, L loc, Value ax) {
  return arith::AddFOp::create(b, loc, math::LogOp::create(b, loc, ax),
                               scalarConstant(b, loc, ax.getType(), M_LN2));
}
static Value isHuge(B &b, L loc, Value ax) {
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, ax,
                               scalarConstant(b, loc, ax.getType(), 4294967296.0));
}
Value AsinhOp::buildScalar(B &b, L loc, Args a) {
  Value one = scalarConstant(b, loc, a[0].getType(), 1);
  // asinh(-x) = -asinh(x) keeps precision for negative x.
  Value ax = math::AbsFOp::create(b, loc, a[0]);
  Value r = math::SqrtOp::create(b, loc, arith::AddFOp::create(b, loc, arith::MulFOp::create(b, loc, ax, ax), one));
  Value pos = math::LogOp::create(b, loc, arith::AddFOp::create(b, loc, ax, r));
  pos = arith::SelectOp::create(b, loc, isHuge(b, loc, ax), logOfTwiceAbs(b, loc, ax), pos);
  return math::CopySignOp::create(b, loc, pos, a[0]);
}
Value AcoshOp::buildScalar(B &b, L loc, Args a) {
  Value one = scalarConstant(b, loc, a[0].getType(), 1);
  Value r = math::SqrtOp::create(b, loc, arith::SubFOp::create(b, loc, arith::MulFOp::create(b, loc, a[0], a[0]), one));
  Value small = math::LogOp::create(b, loc, arith::AddFOp::create(b, loc, a[0], r));
  Value v = arith::SelectOp::create(b, loc, isHuge(b, loc, a[0]), logOfTwiceAbs(b, loc, a[0]), small);
  // Below 1 (also -inf and huge negative values, where the formula gives +-inf): NaN.
  auto ft = cast<FloatType>(a[0].getType());
  Value nan = arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, APFloat::getNaN(ft.getFloatSemantics())));
  Value below = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, a[0], one);
  return arith::SelectOp::create(b, loc, below, nan, v);
}
/// 0.5 * log((1 + x) / (1 - x)), with the sign of x (atanh(-0) is -0).
Value AtanhOp::buildScalar(B &b, L loc, Args a) {
  Type t = a[0].getType();
  Value one = scalarConstant(b, loc, t, 1), half = scalarConstant(b, loc, t, 0.5);
  Value q = arith::DivFOp::create(b, loc, arith::AddFOp::create(b, loc, one, a[0]),
                                  arith::SubFOp::create(b, loc, one, a[0]));
  Value r = arith::MulFOp::create(b, loc, half, math::LogOp::create(b, loc, q));
  Value isZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, a[0], scalarConstant(b, loc, t, 0));
  return arith::SelectOp::create(b, loc, isZero, a[0], r);
}

Value LeakyReluOp::buildScalar(B &b, L loc, Args a) {
  Type t = a[0].getType();
  Value zero = scalarConstant(b, loc, t, 0);
  Value alpha = scalarConstant(b, loc, t, getAlpha().convertToDouble());
  Value pos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, a[0], zero);
  return arith::SelectOp::create(b, loc, pos, a[0], arith::MulFOp::create(b, loc, a[0], alpha));
}

/// x/2 * (1 + erf(x / sqrt 2)), or with tanh(sqrt(2/pi) * (x + 0.044715 x^3)) for
/// "tanh" (dlc-decompose expands the op into the same primitives).
Value GeluOp::buildScalar(B &b, L loc, Args a) {
  Type t = a[0].getType();
  Value x = a[0], inner;
  auto c = [&](double v) { return scalarConstant(b, loc, t, v); };
  if (getApproximate() == "tanh") {
    Value x3 = arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, x, x), x);
    Value poly = arith::AddFOp::create(b, loc, x, arith::MulFOp::create(b, loc, x3, c(0.044715)));
    inner = math::TanhOp::create(b, loc, arith::MulFOp::create(b, loc, poly, c(std::sqrt(2.0 / M_PI))));
  } else {
    inner = math::ErfOp::create(b, loc, arith::MulFOp::create(b, loc, x, c(M_SQRT1_2)));
  }
  Value half = arith::MulFOp::create(b, loc, x, c(0.5));
  return arith::MulFOp::create(b, loc, half, arith::AddFOp::create(b, loc, inner, c(1.0)));
}
