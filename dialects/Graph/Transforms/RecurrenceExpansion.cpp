// dlc_graph.rnn / gru / lstm -> primitive ops, unrolled over the (static) sequence: per
// step, the gates are x_t W^T + h R^T + biases, then the cell update as ONNX specifies
// (forward, reverse or bidirectional; activations, clip, linear_before_reset, peepholes).
#include "dialects/Graph/Transforms/Expansions.h"

using namespace mlir;

namespace dlc::graph {
namespace {

Value sliceDim(GraphExpr &e, Value x, int64_t dim, int64_t start, int64_t size) {
  if (e.failed || !x) // an earlier builder failed
    return Value();
  auto t = e.typeOf(x);
  int64_t r = t.getRank();
  SmallVector<int64_t> starts(r, 0), sizes(t.getShape()), steps(r, 1);
  starts[dim] = start;
  sizes[dim] = size;
  return e.slice(x, starts, sizes, steps);
}

/// x[d] of a [dirs, ...] tensor, without the leading dim.
Value direction(GraphExpr &e, Value x, int64_t d) {
  if (e.failed || !x) // an earlier builder failed
    return Value();
  auto t = e.typeOf(x);
  return e.reshape(sliceDim(e, x, 0, d, 1), t.getShape().drop_front());
}

struct Activation {
  StringRef name;
  double alpha, beta;
};

Value activate(GraphExpr &e, const Activation &a, Value x) {
  StringRef f = a.name;
  if (f == "Sigmoid")
    return e.op<SigmoidOp>({x});
  if (f == "Tanh")
    return e.op<TanhOp>({x});
  if (f == "Relu")
    return e.op<ReluOp>({x});
  if (f == "LeakyRelu")
    return e.where(e.op<LessOp>({x, e.c(0)}), e.op<MulOp>({x, e.c(a.alpha)}), x);
  if (f == "ThresholdedRelu")
    return e.where(e.op<GreaterOp>({x, e.c(a.alpha)}), x, e.c(0));
  if (f == "ScaledTanh")
    return e.op<MulOp>({e.c(a.alpha), e.op<TanhOp>({e.op<MulOp>({x, e.c(a.beta)})})});
  if (f == "HardSigmoid")
    return e.op<MaxOp>(
        {e.c(0), e.op<MinOp>({e.c(1), e.op<AddOp>({e.op<MulOp>({x, e.c(a.alpha)}), e.c(a.beta)})})});
  if (f == "Elu")
    return e.where(e.op<LessOp>({x, e.c(0)}),
                   e.op<MulOp>({e.c(a.alpha), e.op<SubOp>({e.op<ExpOp>({x}), e.c(1)})}), x);
  if (f == "Softsign")
    return e.op<DivOp>({x, e.op<AddOp>({e.c(1), e.op<AbsOp>({x})})});
  if (f == "Softplus")
    return e.softplus(x);
  if (f == "Affine")
    return e.op<AddOp>({e.op<MulOp>({x, e.c(a.alpha)}), e.c(a.beta)});
  return e.fail(); // the verifier admits only the names above
}

/// The operands and attributes rnn, gru and lstm share.
struct Recurrence {
  int64_t gates; // G: 1, 3 or 4
  Value x, w, r, bias, h0, c0, peepholes;
  int64_t hidden;
  StringRef dir;
  SmallVector<Activation> acts;
  double clip;
  bool linearBeforeReset = false;
};

template <typename OpTy>
Recurrence read(OpTy op, int64_t gates) {
  Recurrence rc{gates, op.getInput(), op.getW(), op.getR(), op.getBias(), op.getInitialH(),
                Value(), Value(), (int64_t)op.getHiddenSize(), op.getDirection(), {},
                op.getClip() ? op.getClip()->convertToDouble() : 0.0};
  ArrayRef<double> alpha = op.getActivationAlpha(), beta = op.getActivationBeta();
  for (auto [i, name] : llvm::enumerate(op.getActivations().template getAsValueRange<StringAttr>()))
    rc.acts.push_back({name, alpha[i], beta[i]});
  return rc;
}

} // namespace

FailureOr<SmallVector<Value>> expandRecurrence(GraphExpr &e, Operation *op) {
  Recurrence rc;
  if (auto rnn = dyn_cast<RnnOp>(op)) {
    rc = read(rnn, 1);
  } else if (auto gru = dyn_cast<GruOp>(op)) {
    rc = read(gru, 3);
    rc.linearBeforeReset = gru.getLinearBeforeReset();
  } else {
    auto lstm = cast<LstmOp>(op);
    rc = read(lstm, 4);
    rc.c0 = lstm.getInitialC();
    rc.peepholes = lstm.getPeepholes();
  }
  bool isLstm = rc.gates == 4, isGru = rc.gates == 3;
  int64_t G = rc.gates, H = rc.hidden, dirs = rc.dir == "bidirectional" ? 2 : 1;
  int64_t per = rc.acts.size() / dirs;
  auto xt = e.typeOf(rc.x);
  Type elt = xt.getElementType();
  e.elt = elt;
  int64_t S = xt.getDimSize(0), Bt = xt.getDimSize(1), I = xt.getDimSize(2);
  Value h0 = rc.h0, c0 = rc.c0;
  auto clipped = [&](Value v) {
    return rc.clip > 0 ? e.op<MaxOp>({e.op<MinOp>({v, e.c(rc.clip)}), e.c(-rc.clip)}) : v;
  };
  auto cat = [&](ArrayRef<Value> vs, int64_t axis) -> Value {
    if (e.failed)
      return e.fail();
    if (vs.size() == 1)
      return vs[0];
    auto r = createChecked(e.b, e.loc, ConcatOp::getOperationName(), vs,
                           {e.named("axis", e.b.getI64IntegerAttr(axis))}, {}, e.maxTensorBytes);
    return failed(r) ? e.fail() : (*r)[0];
  };
  SmallVector<Value> ys, hs, cs;
  for (int64_t d = 0; d < dirs; ++d) {
    bool reverse = rc.dir == "reverse" || d == 1;
    const Activation *f = &rc.acts[d * per], *g = per > 1 ? &rc.acts[d * per + 1] : nullptr,
                     *hAct = per > 2 ? &rc.acts[d * per + 2] : nullptr;
    Value Wd = direction(e, rc.w, d), Rd = direction(e, rc.r, d);
    Value WT = e.transpose(Wd, {1, 0}), RT = e.transpose(Rd, {1, 0});
    Value Bd = direction(e, rc.bias, d);
    Value Wb = sliceDim(e, Bd, 0, 0, G * H), Rb = sliceDim(e, Bd, 0, G * H, G * H);
    // All input projections at once: [S*B, I] @ [I, G*H].
    Value xp = e.reshape(e.op<AddOp>({e.op<MatMulOp>({e.reshape(rc.x, {S * Bt, I}), WT}), Wb}),
                         {S, Bt, G * H});
    Value h = direction(e, h0, d), c = c0 ? direction(e, c0, d) : Value();
    Value P = rc.peepholes ? direction(e, rc.peepholes, d) : Value();
    SmallVector<Value> steps(S);
    for (int64_t s = 0; s < S; ++s) {
      int64_t t = reverse ? S - 1 - s : s;
      Value xg = e.reshape(sliceDim(e, xp, 0, t, 1), {Bt, G * H});
      Value hr = e.op<AddOp>({e.op<MatMulOp>({h, RT}), Rb}); // [B, G*H]
      auto gate = [&](Value v, int64_t k) { return sliceDim(e, v, 1, k * H, H); };
      if (G == 1) {
        h = activate(e, *f, clipped(e.op<AddOp>({xg, hr})));
      } else if (isGru) {
        Value z = activate(e, *f, clipped(e.op<AddOp>({gate(xg, 0), gate(hr, 0)})));
        Value rr = activate(e, *f, clipped(e.op<AddOp>({gate(xg, 1), gate(hr, 1)})));
        Value cand;
        if (rc.linearBeforeReset) {
          cand = e.op<AddOp>({gate(xg, 2), e.op<MulOp>({rr, gate(hr, 2)})});
        } else {
          Value rh = e.op<MatMulOp>({e.op<MulOp>({rr, h}), sliceDim(e, RT, 1, 2 * H, H)});
          cand = e.op<AddOp>({e.op<AddOp>({gate(xg, 2), rh}), sliceDim(e, Rb, 0, 2 * H, H)});
        }
        Value hh = activate(e, *g, clipped(cand));
        h = e.op<AddOp>({e.op<MulOp>({e.op<SubOp>({e.c(1), z}), hh}), e.op<MulOp>({z, h})});
      } else {
        Value gs = e.op<AddOp>({xg, hr});
        Value i = gate(gs, 0), o = gate(gs, 1), fg = gate(gs, 2), cc = gate(gs, 3);
        if (P) {
          i = e.op<AddOp>({i, e.op<MulOp>({sliceDim(e, P, 0, 0, H), c})});
          fg = e.op<AddOp>({fg, e.op<MulOp>({sliceDim(e, P, 0, 2 * H, H), c})});
        }
        i = activate(e, *f, clipped(i));
        fg = activate(e, *f, clipped(fg));
        cc = activate(e, *g, clipped(cc));
        c = e.op<AddOp>({e.op<MulOp>({fg, c}), e.op<MulOp>({i, cc})});
        if (P)
          o = e.op<AddOp>({o, e.op<MulOp>({sliceDim(e, P, 0, H, H), c})});
        o = activate(e, *f, clipped(o));
        h = e.op<MulOp>({o, activate(e, *hAct, c)});
      }
      if (e.failed)
        return failure();
      steps[t] = e.reshape(h, {1, 1, Bt, H});
    }
    ys.push_back(cat(steps, 0)); // [S, 1, B, H]
    hs.push_back(e.reshape(h, {1, Bt, H}));
    if (c)
      cs.push_back(e.reshape(c, {1, Bt, H}));
  }
  SmallVector<Value> results = {cat(ys, 1), cat(hs, 0)};
  if (isLstm)
    results.push_back(cat(cs, 0));
  if (e.failed)
    return failure();
  return results;
}

} // namespace dlc::graph
