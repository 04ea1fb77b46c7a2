// Gradient rules of elementwise dlc_graph ops (unary, binary with broadcasting, where).
#include "passes/Autodiff/GradientBuilder.h"

#include "dialects/Interfaces/Differentiable.h"

#include <cmath>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::autodiff {
namespace {

/// dL/dx of y = f(x) from x, y, the op (for attributes) and dL/dy.
using UnaryRule = Value (*)(OpBuilder &, Location, Operation *, Value x, Value y, Value g);

template <typename Op, UnaryRule rule>
struct UnaryVjp : DifferentiableOpInterface::ExternalModel<UnaryVjp<Op, rule>, Op> {
  LogicalResult buildVjp(Operation *op, OpBuilder &b, ArrayRef<Value> gys,
                         SmallVectorImpl<Value> &gxs) const {
    gxs.assign(op->getNumOperands(), Value());
    if (gys[0])
      gxs[0] = rule(b, op->getLoc(), op, op->getOperand(0), op->getResult(0), gys[0]);
    return success();
  }
};

/// Piecewise-constant ops (floor, ceil, round, sign): zero derivative everywhere
/// it exists, so no gradient flows (as in PyTorch).
template <typename Op>
struct ZeroVjp : DifferentiableOpInterface::ExternalModel<ZeroVjp<Op>, Op> {
  LogicalResult buildVjp(Operation *op, OpBuilder &, ArrayRef<Value>,
                         SmallVectorImpl<Value> &gxs) const {
    gxs.assign(op->getNumOperands(), Value());
    return success();
  }
};

Type eltOf(Value v) { return tensorTypeOf(v).getElementType(); }
Value c(OpBuilder &b, Location loc, Value like, double v) { return scalar(b, loc, eltOf(like), v); }
Value mul(OpBuilder &b, Location loc, Value x, Value y) { return MulOp::create(b, loc, x, y); }
Value div(OpBuilder &b, Location loc, Value x, Value y) { return DivOp::create(b, loc, x, y); }
Value add(OpBuilder &b, Location loc, Value x, Value y) { return AddOp::create(b, loc, x, y); }
Value sub(OpBuilder &b, Location loc, Value x, Value y) { return SubOp::create(b, loc, x, y); }
Value neg(OpBuilder &b, Location loc, Value x) { return NegOp::create(b, loc, x); }
Value sq(OpBuilder &b, Location loc, Value x) { return mul(b, loc, x, x); }

Value negRule(OpBuilder &b, Location l, Operation *, Value, Value, Value g) { return neg(b, l, g); }
Value absRule(OpBuilder &b, Location l, Operation *, Value x, Value, Value g) {
  return mul(b, l, g, SignOp::create(b, l, x));
}
Value expRule(OpBuilder &b, Location l, Operation *, Value, Value y, Value g) { return mul(b, l, g, y); }
Value logRule(OpBuilder &b, Location l, Operation *, Value x, Value, Value g) { return div(b, l, g, x); }
Value sqrtRule(OpBuilder &b, Location l, Operation *, Value, Value y, Value g) {
  return div(b, l, mul(b, l, g, c(b, l, g, 0.5)), y);
}
Value reciprocalRule(OpBuilder &b, Location l, Operation *, Value, Value y, Value g) {
  return neg(b, l, mul(b, l, g, sq(b, l, y)));
}
Value tanhRule(OpBuilder &b, Location l, Operation *, Value, Value y, Value g) {
  return mul(b, l, g, sub(b, l, c(b, l, g, 1.0), sq(b, l, y)));
}
Value sigmoidRule(OpBuilder &b, Location l, Operation *, Value, Value y, Value g) {
  return mul(b, l, mul(b, l, g, y), sub(b, l, c(b, l, g, 1.0), y));
}
Value reluRule(OpBuilder &b, Location l, Operation *, Value x, Value, Value g) {
  return selectOrZero(b, l, GreaterOp::create(b, l, x, c(b, l, x, 0.0)), g);
}
Value leakyReluRule(OpBuilder &b, Location l, Operation *op, Value x, Value, Value g) {
  double alpha = cast<LeakyReluOp>(op).getAlpha().convertToDouble();
  Value pos = GreaterOp::create(b, l, x, c(b, l, x, 0.0));
  return WhereOp::create(b, l, pos, g, mul(b, l, g, c(b, l, g, alpha)));
}
Value erfRule(OpBuilder &b, Location l, Operation *, Value x, Value, Value g) {
  Value e = ExpOp::create(b, l, neg(b, l, sq(b, l, x)));
  return mul(b, l, g, mul(b, l, e, c(b, l, g, 2.0 / std::sqrt(M_PI))));
}
Value sinRule(OpBuilder &b, Location l, Operation *, Value x, Value, Value g) {
  return mul(b, l, g, CosOp::create(b, l, x));
}
Value cosRule(OpBuilder &b, Location l, Operation *, Value x, Value, Value g) {
  return neg(b, l, mul(b, l, g, SinOp::create(b, l, x)));
}
Value tanRule(OpBuilder &b, Location l, Operation *, Value, Value y, Value g) {
  return mul(b, l, g, add(b, l, c(b, l, g, 1.0), sq(b, l, y)));
}
/// g / sqrt(s + k * x^2): asin (1, -1), asinh (1, 1), acosh (-1, 1).
template <int s, int k>
Value invSqrtRule(OpBuilder &b, Location l, Operation *, Value x, Value, Value g) {
  Value r = add(b, l, c(b, l, x, s), mul(b, l, c(b, l, x, k), sq(b, l, x)));
  return div(b, l, g, SqrtOp::create(b, l, r));
}
Value acosRule(OpBuilder &b, Location l, Operation *op, Value x, Value y, Value g) {
  return neg(b, l, invSqrtRule<1, -1>(b, l, op, x, y, g));
}
Value atanRule(OpBuilder &b, Location l, Operation *, Value x, Value, Value g) {
  return div(b, l, g, add(b, l, c(b, l, x, 1.0), sq(b, l, x)));
}
Value atanhRule(OpBuilder &b, Location l, Operation *, Value x, Value, Value g) {
  return div(b, l, g, sub(b, l, c(b, l, x, 1.0), sq(b, l, x)));
}
Value sinhRule(OpBuilder &b, Location l, Operation *, Value x, Value, Value g) {
  return mul(b, l, g, CoshOp::create(b, l, x));
}
Value coshRule(OpBuilder &b, Location l, Operation *, Value x, Value, Value g) {
  return mul(b, l, g, SinhOp::create(b, l, x));
}
Value identityRule(OpBuilder &, Location, Operation *, Value, Value, Value g) { return g; }
/// Float-to-float casts pass the gradient back in the input's type; casts from
/// integers carry none.
Value castRule(OpBuilder &b, Location l, Operation *, Value x, Value, Value g) {
  if (!isa<FloatType>(eltOf(x)))
    return Value();
  return CastOp::create(b, l, x.getType(), g);
}

/// dL/dlhs, dL/drhs of out = f(lhs, rhs) at the broadcast shape (unbroadcast after).
using BinaryRule = std::pair<Value, Value> (*)(OpBuilder &, Location, Value a, Value bv,
                                               Value out, Value g);

template <typename Op, BinaryRule rule>
struct BinaryVjp : DifferentiableOpInterface::ExternalModel<BinaryVjp<Op, rule>, Op> {
  LogicalResult buildVjp(Operation *op, OpBuilder &b, ArrayRef<Value> gys,
                         SmallVectorImpl<Value> &gxs) const {
    gxs.assign(2, Value());
    if (!gys[0])
      return success();
    Location loc = op->getLoc();
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    auto [ga, gb] = rule(b, loc, lhs, rhs, op->getResult(0), gys[0]);
    if (ga)
      gxs[0] = unbroadcast(b, loc, broadcastTo(b, loc, ga, gys[0]), tensorTypeOf(lhs));
    if (gb)
      gxs[1] = unbroadcast(b, loc, broadcastTo(b, loc, gb, gys[0]), tensorTypeOf(rhs));
    return success();
  }
};

std::pair<Value, Value> addRule(OpBuilder &, Location, Value, Value, Value, Value g) {
  return {g, g};
}
std::pair<Value, Value> subRule(OpBuilder &b, Location l, Value, Value, Value, Value g) {
  return {g, neg(b, l, g)};
}
std::pair<Value, Value> mulRule(OpBuilder &b, Location l, Value x, Value y, Value, Value g) {
  return {mul(b, l, g, y), mul(b, l, g, x)};
}
std::pair<Value, Value> divRule(OpBuilder &b, Location l, Value, Value y, Value out, Value g) {
  return {div(b, l, g, y), neg(b, l, div(b, l, mul(b, l, g, out), y))};
}
std::pair<Value, Value> powRule(OpBuilder &b, Location l, Value x, Value p, Value out, Value g) {
  Value pm1 = sub(b, l, p, c(b, l, p, 1.0));
  Value dx = mul(b, l, g, mul(b, l, p, PowOp::create(b, l, x, pm1)));
  Value dp = mul(b, l, g, mul(b, l, out, LogOp::create(b, l, x)));
  return {dx, dp};
}
/// max/min: the gradient goes to the selected operand, split evenly on ties.
template <bool isMax>
std::pair<Value, Value> extremumRule(OpBuilder &b, Location l, Value x, Value y, Value, Value g) {
  Value xWins = isMax ? Value(GreaterOp::create(b, l, x, y)) : Value(LessOp::create(b, l, x, y));
  Value yWins = isMax ? Value(GreaterOp::create(b, l, y, x)) : Value(LessOp::create(b, l, y, x));
  Value half = mul(b, l, g, c(b, l, g, 0.5));
  Value tie = EqualOp::create(b, l, x, y);
  Value tieShare = selectOrZero(b, l, tie, half);
  return {WhereOp::create(b, l, xWins, g, tieShare), WhereOp::create(b, l, yWins, g, tieShare)};
}

struct WhereVjp : DifferentiableOpInterface::ExternalModel<WhereVjp, WhereOp> {
  LogicalResult buildVjp(Operation *op, OpBuilder &b, ArrayRef<Value> gys,
                         SmallVectorImpl<Value> &gxs) const {
    gxs.assign(3, Value());
    if (!gys[0])
      return success();
    auto where = cast<WhereOp>(op);
    Location l = op->getLoc();
    Value g = gys[0];
    Value zero = c(b, l, g, 0.0);
    Value ga = WhereOp::create(b, l, where.getCondition(), g, zero);
    Value gb = WhereOp::create(b, l, where.getCondition(), zero, g);
    gxs[1] = unbroadcast(b, l, broadcastTo(b, l, ga, g), tensorTypeOf(where.getLhs()));
    gxs[2] = unbroadcast(b, l, broadcastTo(b, l, gb, g), tensorTypeOf(where.getRhs()));
    return success();
  }
};

} // namespace

void registerElementwiseGradientRules(MLIRContext *ctx) {
  NegOp::attachInterface<UnaryVjp<NegOp, negRule>>(*ctx);
  AbsOp::attachInterface<UnaryVjp<AbsOp, absRule>>(*ctx);
  ExpOp::attachInterface<UnaryVjp<ExpOp, expRule>>(*ctx);
  LogOp::attachInterface<UnaryVjp<LogOp, logRule>>(*ctx);
  SqrtOp::attachInterface<UnaryVjp<SqrtOp, sqrtRule>>(*ctx);
  ReciprocalOp::attachInterface<UnaryVjp<ReciprocalOp, reciprocalRule>>(*ctx);
  TanhOp::attachInterface<UnaryVjp<TanhOp, tanhRule>>(*ctx);
  SigmoidOp::attachInterface<UnaryVjp<SigmoidOp, sigmoidRule>>(*ctx);
  ReluOp::attachInterface<UnaryVjp<ReluOp, reluRule>>(*ctx);
  LeakyReluOp::attachInterface<UnaryVjp<LeakyReluOp, leakyReluRule>>(*ctx);
  ErfOp::attachInterface<UnaryVjp<ErfOp, erfRule>>(*ctx);
  SinOp::attachInterface<UnaryVjp<SinOp, sinRule>>(*ctx);
  CosOp::attachInterface<UnaryVjp<CosOp, cosRule>>(*ctx);
  TanOp::attachInterface<UnaryVjp<TanOp, tanRule>>(*ctx);
  AsinOp::attachInterface<UnaryVjp<AsinOp, invSqrtRule<1, -1>>>(*ctx);
  AcosOp::attachInterface<UnaryVjp<AcosOp, acosRule>>(*ctx);
  AtanOp::attachInterface<UnaryVjp<AtanOp, atanRule>>(*ctx);
  SinhOp::attachInterface<UnaryVjp<SinhOp, sinhRule>>(*ctx);
  CoshOp::attachInterface<UnaryVjp<CoshOp, coshRule>>(*ctx);
  AsinhOp::attachInterface<UnaryVjp<AsinhOp, invSqrtRule<1, 1>>>(*ctx);
  AcoshOp::attachInterface<UnaryVjp<AcoshOp, invSqrtRule<-1, 1>>>(*ctx);
  AtanhOp::attachInterface<UnaryVjp<AtanhOp, atanhRule>>(*ctx);
  IdentityOp::attachInterface<UnaryVjp<IdentityOp, identityRule>>(*ctx);
  CastOp::attachInterface<UnaryVjp<CastOp, castRule>>(*ctx);
  FloorOp::attachInterface<ZeroVjp<FloorOp>>(*ctx);
  CeilOp::attachInterface<ZeroVjp<CeilOp>>(*ctx);
  RoundOp::attachInterface<ZeroVjp<RoundOp>>(*ctx);
  SignOp::attachInterface<ZeroVjp<SignOp>>(*ctx);
  AddOp::attachInterface<BinaryVjp<AddOp, addRule>>(*ctx);
  SubOp::attachInterface<BinaryVjp<SubOp, subRule>>(*ctx);
  MulOp::attachInterface<BinaryVjp<MulOp, mulRule>>(*ctx);
  DivOp::attachInterface<BinaryVjp<DivOp, divRule>>(*ctx);
  PowOp::attachInterface<BinaryVjp<PowOp, powRule>>(*ctx);
  MaxOp::attachInterface<BinaryVjp<MaxOp, extremumRule<true>>>(*ctx);
  MinOp::attachInterface<BinaryVjp<MinOp, extremumRule<false>>>(*ctx);
  WhereOp::attachInterface<WhereVjp>(*ctx);
}

} // namespace dlc::autodiff
