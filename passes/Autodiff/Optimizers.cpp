// Optimizers (see Optimizers.h): SGD with momentum, Adam and AdamW.
#include "passes/Autodiff/Optimizers.h"
#include "passes/Autodiff/GradientBuilder.h"

#include "mlir/Dialect/MLProgram/IR/MLProgram.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::autodiff {

std::pair<FlatSymbolRefAttr, Value> StateBuilder::create(StringRef prefix, Attribute init,
                                                         RankedTensorType t) {
  std::string sym = ("dlc_" + prefix + "_" + Twine(count++)).str();
  ml_program::GlobalOp::create(globals, loc, globals.getStringAttr(sym), TypeAttr::get(t),
                               globals.getUnitAttr(), init, globals.getStringAttr("private"));
  auto ref = FlatSymbolRefAttr::get(globals.getContext(), sym);
  Value v = ml_program::GlobalLoadOp::create(entry, loc, t, ref);
  return {ref, v};
}

void StateBuilder::flush() {
  for (auto [ref, v] : pending)
    ml_program::GlobalStoreOp::create(update, loc, ref, v);
  pending.clear();
}

namespace {

/// A scalar of `like`'s element type.
Value constantLike(StateBuilder &s, Value like, double v) {
  return scalar(s.update, s.loc, tensorTypeOf(like).getElementType(), v);
}

/// A zero-filled global shaped like `p`, for per-parameter state.
std::pair<FlatSymbolRefAttr, Value> zeroState(StateBuilder &s, StringRef prefix, Value p) {
  RankedTensorType t = tensorTypeOf(p);
  return s.create(prefix, DenseElementsAttr::get(t, s.update.getFloatAttr(t.getElementType(), 0.0)),
                  t);
}

/// p - lr * step.
Value descend(StateBuilder &s, const TrainingOptions &o, Value p, Value step) {
  OpBuilder &u = s.update;
  return SubOp::create(u, s.loc, p, MulOp::create(u, s.loc, step, constantLike(s, p, o.lr)));
}

/// g + weight_decay * p: L2 regularization folded into the gradient.
Value withL2(StateBuilder &s, const TrainingOptions &o, Value p, Value g) {
  if (o.weightDecay == 0)
    return g;
  OpBuilder &u = s.update;
  return AddOp::create(u, s.loc, g, MulOp::create(u, s.loc, p, constantLike(s, p, o.weightDecay)));
}

/// SGD: step = g (+ momentum * the previous step), p -= lr * step.
class SGD final : public Optimizer {
public:
  using Optimizer::Optimizer;
  Value update(StateBuilder &s, Value p, Value g) override {
    OpBuilder &u = s.update;
    Value step = withL2(s, options, p, g);
    if (options.momentum != 0) {
      auto [ref, buf] = zeroState(s, "momentum", p);
      step = AddOp::create(u, s.loc, MulOp::create(u, s.loc, buf, constantLike(s, p, options.momentum)),
                           step);
      s.store(ref, step);
    }
    return descend(s, options, p, step);
  }
};

/// Adam (weight decay as L2 in the gradient) and AdamW (decoupled: p *= 1 - lr * wd).
class Adam final : public Optimizer {
public:
  Adam(const TrainingOptions &options, bool decoupled) : Optimizer(options), decoupled(decoupled) {}

  /// The step count t, shared by all parameters, incremented once per step.
  void begin(StateBuilder &s) override {
    OpBuilder &u = s.update;
    auto st = RankedTensorType::get({}, u.getF32Type());
    auto [ref, count] = s.create("step", DenseElementsAttr::get(st, 0.0f), st);
    stepCount = AddOp::create(u, s.loc, count, scalar(u, s.loc, u.getF32Type(), 1.0));
    s.store(ref, stepCount);
  }

  Value update(StateBuilder &s, Value p, Value g) override {
    OpBuilder &u = s.update;
    Location loc = s.loc;
    auto c = [&](double v) { return constantLike(s, p, v); };
    if (!decoupled)
      g = withL2(s, options, p, g);
    auto [mref, m] = zeroState(s, "adam_m", p);
    auto [vref, v] = zeroState(s, "adam_v", p);
    Value m2 = AddOp::create(u, loc, MulOp::create(u, loc, m, c(options.beta1)),
                             MulOp::create(u, loc, g, c(1 - options.beta1)));
    Value v2 = AddOp::create(u, loc, MulOp::create(u, loc, v, c(options.beta2)),
                             MulOp::create(u, loc, MulOp::create(u, loc, g, g), c(1 - options.beta2)));
    s.store(mref, m2);
    s.store(vref, v2);
    // Bias corrections 1 - beta^t, computed once as scalars.
    Type elt = tensorTypeOf(p).getElementType();
    auto correction = [&](double beta) -> Value {
      Value pw = PowOp::create(u, loc, scalar(u, loc, u.getF32Type(), beta), stepCount);
      Value one = SubOp::create(u, loc, scalar(u, loc, u.getF32Type(), 1.0), pw);
      return elt.isF32() ? one : Value(CastOp::create(u, loc, RankedTensorType::get({}, elt), one));
    };
    Value mHat = DivOp::create(u, loc, m2, correction(options.beta1));
    Value vHat = DivOp::create(u, loc, v2, correction(options.beta2));
    Value step = DivOp::create(u, loc, mHat, AddOp::create(u, loc, SqrtOp::create(u, loc, vHat), c(options.eps)));
    Value base = p;
    if (decoupled && options.weightDecay != 0)
      base = MulOp::create(u, loc, p, c(1.0 - options.lr * options.weightDecay));
    return descend(s, options, base, step);
  }

private:
  bool decoupled;
  Value stepCount;
};

} // namespace

std::unique_ptr<Optimizer> createOptimizer(const TrainingOptions &options) {
  switch (options.optimizer) {
  case OptimizerKind::SGD:
    return std::make_unique<SGD>(options);
  case OptimizerKind::Adam:
    return std::make_unique<Adam>(options, /*decoupled=*/false);
  case OptimizerKind::AdamW:
    return std::make_unique<Adam>(options, /*decoupled=*/true);
  }
  llvm_unreachable("unknown optimizer kind");
}

} // namespace dlc::autodiff
