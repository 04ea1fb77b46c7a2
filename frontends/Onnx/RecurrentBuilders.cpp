// ONNX RNN / GRU / LSTM unrolled over the (static) sequence: per step, the gates are
// x_t W^T + h R^T + biases, then the cell update, as ONNX specifies (forward, reverse or
// bidirectional; layout 0 or 1; activations, clip, linear_before_reset, peepholes).
#include "frontends/Onnx/Expr.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

using Results = SmallVectorImpl<Value>;

enum class Kind { RNN, GRU, LSTM };

Value sliceDim(Expr &e, Value x, int64_t dim, int64_t start, int64_t size) {
  if (e.failed || !x) // an earlier builder failed
    return Value();
  auto t = tensorType(x);
  int64_t r = t.getRank();
  SmallVector<int64_t> starts(r, 0), sizes(t.getShape()), steps(r, 1);
  starts[dim] = start;
  sizes[dim] = size;
  return e.slice(x, starts, sizes, steps);
}

/// x[d] of a [dirs, ...] tensor, without the leading dim.
Value direction(Expr &e, Value x, int64_t d) {
  if (e.failed || !x) // an earlier builder failed
    return Value();
  auto t = tensorType(x);
  return e.reshape(sliceDim(e, x, 0, d, 1), t.getShape().drop_front());
}

struct Activation {
  std::string name;
  double alpha, beta;
};

Value activate(Expr &e, const Activation &a, Value x) {
  const std::string &f = a.name;
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
    return e.op<MaxOp>({e.c(0), e.op<MinOp>({e.c(1), e.op<AddOp>({e.op<MulOp>({x, e.c(a.alpha)}), e.c(a.beta)})})});
  if (f == "Elu")
    return e.where(e.op<LessOp>({x, e.c(0)}), e.op<MulOp>({e.c(a.alpha), e.op<SubOp>({e.op<ExpOp>({x}), e.c(1)})}), x);
  if (f == "Softsign")
    return e.op<DivOp>({x, e.op<AddOp>({e.c(1), e.op<AbsOp>({x})})});
  if (f == "Softplus")
    return e.softplus(x);
  if (f == "Affine")
    return e.op<AddOp>({e.op<MulOp>({x, e.c(a.alpha)}), e.c(a.beta)});
  return e.fail();
}

LogicalResult recurrence(NodeImporter &n, Results &out, Kind kind) {
  auto x0 = n.requiredInput(0), w = n.requiredInput(1), r = n.requiredInput(2);
  TRY(x0);
  TRY(w);
  TRY(r);
  auto hiddenAttr = n.intAttr("hidden_size", 0), layout = n.intAttr("layout", 0);
  auto dirAttr = n.stringAttr("direction", "forward");
  auto clip = n.floatAttr("clip", 0.0f);
  auto lbr = n.intAttr("linear_before_reset", 0), inputForget = n.intAttr("input_forget", 0);
  TRY(hiddenAttr);
  TRY(layout);
  TRY(dirAttr);
  TRY(clip);
  TRY(lbr);
  TRY(inputForget);
  int64_t G = kind == Kind::RNN ? 1 : kind == Kind::GRU ? 3 : 4;
  auto xt = tensorType(*x0);
  Type elt = xt.getElementType();
  if (xt.getRank() != 3 || !isa<FloatType>(elt))
    return n.error("expects a floating-point 3-D input");
  int64_t dirs = *dirAttr == "bidirectional" ? 2 : 1;
  if (*dirAttr != "forward" && *dirAttr != "reverse" && *dirAttr != "bidirectional")
    return n.error("direction must be forward, reverse or bidirectional");
  auto wt = tensorType(*w), rt = tensorType(*r);
  if (wt.getRank() != 3 || rt.getRank() != 3 || wt.getDimSize(0) != dirs ||
      rt.getDimSize(0) != dirs)
    return n.error("W and R must be [num_directions = " + Twine(dirs) + ", " + Twine(G) +
                   "*hidden_size, ...]");
  int64_t H = *hiddenAttr ? *hiddenAttr : wt.getDimSize(1) / G;
  // W's dim 1 is G * H (so G * H, 2 * G * H and 3 * H below fit int64).
  if (H <= 0 || wt.getDimSize(1) % G || wt.getDimSize(1) / G != H ||
      rt.getDimSize(1) != wt.getDimSize(1) || rt.getDimSize(2) != H)
    return n.error("W must be [" + Twine(dirs) + ", " + Twine(G) + "*hidden_size, input_size] "
                   "and R [" + Twine(dirs) + ", " + Twine(G) + "*hidden_size, hidden_size]");
  if (*inputForget)
    return n.error("input_forget is not supported");
  // Activations: f (gates), g (candidate), h (LSTM output), per direction.
  SmallVector<StringRef> defaults = kind == Kind::RNN   ? SmallVector<StringRef>{"Tanh"}
                                    : kind == Kind::GRU ? SmallVector<StringRef>{"Sigmoid", "Tanh"}
                                                        : SmallVector<StringRef>{"Sigmoid", "Tanh", "Tanh"};
  SmallVector<Activation> acts;
  const onnx::AttributeProto *names = n.findAttr("activations");
  const onnx::AttributeProto *alphas = n.findAttr("activation_alpha");
  const onnx::AttributeProto *betas = n.findAttr("activation_beta");
  int64_t per = defaults.size();
  for (int64_t i = 0; i < per * dirs; ++i) {
    Activation a{defaults[i % per].str(), 0.01, 0.0};
    if (names && i < names->strings_size())
      a.name = names->strings(i);
    if (a.name == "HardSigmoid")
      a.alpha = 0.2, a.beta = 0.5;
    if (a.name == "ThresholdedRelu" || a.name == "Elu" || a.name == "ScaledTanh" || a.name == "Affine")
      a.alpha = 1.0;
    if (a.name == "ScaledTanh" || a.name == "Affine")
      a.beta = 1.0;
    if (alphas && i < alphas->floats_size())
      a.alpha = alphas->floats(i);
    if (betas && i < betas->floats_size())
      a.beta = betas->floats(i);
    static const char *kKnown[] = {"Sigmoid", "Tanh", "Relu", "LeakyRelu", "ThresholdedRelu",
                                   "ScaledTanh", "HardSigmoid", "Elu", "Softsign", "Softplus",
                                   "Affine"};
    if (!llvm::is_contained(kKnown, a.name))
      return n.error("unsupported activation '" + a.name + "'");
    acts.push_back(a);
  }
  Expr e{n, elt};
  Value X = *layout ? e.transpose(*x0, {1, 0, 2}) : *x0; // [seq, batch, in]
  if (e.failed)
    return failure();
  int64_t S = tensorType(X).getDimSize(0), Bt = tensorType(X).getDimSize(1),
          I = tensorType(X).getDimSize(2);
  if (wt.getDimSize(2) != I)
    return n.error("W must be [" + Twine(dirs) + ", " + Twine(G * H) + ", input_size = " +
                   Twine(I) + "]");
  // The optional inputs' shapes (a rank-0 B was sliced as if it had dims: a fuzz find).
  auto expectShape = [&](unsigned i, ArrayRef<int64_t> shape, StringRef what) {
    Value v = n.input(i);
    if (!v || tensorType(v).getShape() == shape)
      return success();
    std::string dims;
    llvm::raw_string_ostream os(dims);
    llvm::interleave(shape, os, ", ");
    return n.error(what + " must be [" + dims + "]");
  };
  SmallVector<int64_t> stateShape = *layout ? SmallVector<int64_t>{Bt, dirs, H}
                                            : SmallVector<int64_t>{dirs, Bt, H};
  if (failed(expectShape(3, {dirs, 2 * G * H}, "B")) ||
      failed(expectShape(5, stateShape, "initial_h")) ||
      (kind == Kind::LSTM && (failed(expectShape(6, stateShape, "initial_c")) ||
                              failed(expectShape(7, {dirs, 3 * H}, "P")))))
    return failure();
  if (Value lens = n.input(4)) {
    auto l = n.constantInts(4);
    TRY(l);
    if (llvm::any_of(*l, [&](int64_t v) { return v != S; }))
      return n.error("sequence_lens shorter than the sequence are not supported");
  }
  auto initial = [&](unsigned i) -> Value {
    Value v = n.input(i);
    if (!v)
      return n.constant(DenseElementsAttr::get(RankedTensorType::get({dirs, Bt, H}, elt),
                                               n.b.getZeroAttr(elt)));
    return *layout ? e.transpose(v, {1, 0, 2}) : v;
  };
  Value h0 = initial(5), c0 = kind == Kind::LSTM ? initial(6) : Value();
  auto clipped = [&](Value v) {
    return *clip > 0 ? e.op<MaxOp>({e.op<MinOp>({v, e.c(*clip)}), e.c(-*clip)}) : v;
  };
  auto cat = [&](ArrayRef<Value> vs, int64_t axis) -> Value {
    if (vs.size() == 1 || e.failed)
      return vs[0];
    auto rr = n.create<ConcatOp>(SmallVector<Value>(vs), {n.named("axis", n.b.getI64IntegerAttr(axis))});
    return failed(rr) ? e.fail() : *rr;
  };
  SmallVector<Value> ys, hs, cs;
  for (int64_t d = 0; d < dirs; ++d) {
    bool reverse = *dirAttr == "reverse" || d == 1;
    const Activation *f = &acts[d * per], *g = per > 1 ? &acts[d * per + 1] : nullptr,
                     *hAct = per > 2 ? &acts[d * per + 2] : nullptr;
    Value Wd = direction(e, *w, d), Rd = direction(e, *r, d);
    Value WT = e.transpose(Wd, {1, 0}), RT = e.transpose(Rd, {1, 0});
    Value Wb, Rb;
    if (Value bias = n.input(3)) {
      Value Bd = direction(e, bias, d);
      Wb = sliceDim(e, Bd, 0, 0, G * H);
      Rb = sliceDim(e, Bd, 0, G * H, G * H);
    } else {
      Wb = Rb = n.constant(DenseElementsAttr::get(RankedTensorType::get({G * H}, elt),
                                                  n.b.getZeroAttr(elt)));
    }
    // All input projections at once: [S*B, I] @ [I, G*H].
    Value xp = e.reshape(e.op<AddOp>({e.op<MatMulOp>({e.reshape(X, {S * Bt, I}), WT}), Wb}),
                         {S, Bt, G * H});
    Value h = direction(e, h0, d), c = c0 ? direction(e, c0, d) : Value();
    Value P = kind == Kind::LSTM && n.input(7) ? direction(e, n.input(7), d) : Value();
    SmallVector<Value> steps(S);
    for (int64_t s = 0; s < S; ++s) {
      int64_t t = reverse ? S - 1 - s : s;
      Value xg = e.reshape(sliceDim(e, xp, 0, t, 1), {Bt, G * H});
      Value hr = e.op<AddOp>({e.op<MatMulOp>({h, RT}), Rb}); // [B, G*H]
      auto gate = [&](Value v, int64_t k) { return sliceDim(e, v, 1, k * H, H); };
      if (kind == Kind::RNN) {
        h = activate(e, *f, clipped(e.op<AddOp>({xg, hr})));
      } else if (kind == Kind::GRU) {
        Value z = activate(e, *f, clipped(e.op<AddOp>({gate(xg, 0), gate(hr, 0)})));
        Value rr = activate(e, *f, clipped(e.op<AddOp>({gate(xg, 1), gate(hr, 1)})));
        Value cand;
        if (*lbr) {
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
  Value Y = cat(ys, 1), Yh = cat(hs, 0), Yc = cs.empty() ? Value() : cat(cs, 0);
  if (*layout) {
    Y = e.transpose(Y, {2, 0, 1, 3});
    Yh = e.transpose(Yh, {1, 0, 2});
    if (Yc)
      Yc = e.transpose(Yc, {1, 0, 2});
  }
  if (e.failed)
    return failure();
  out.append({Y, Yh});
  if (Yc)
    out.push_back(Yc);
  return success();
}

LogicalResult rnn(NodeImporter &n, Results &out) { return recurrence(n, out, Kind::RNN); }
LogicalResult gru(NodeImporter &n, Results &out) { return recurrence(n, out, Kind::GRU); }
LogicalResult lstm(NodeImporter &n, Results &out) { return recurrence(n, out, Kind::LSTM); }

const OpBuilderEntry kRecurrent[] = {
    {"RNN", 7, rnn},
    {"GRU", 7, gru},
    {"LSTM", 7, lstm},
};

} // namespace

ArrayRef<OpBuilderEntry> recurrentBuilders() { return kRecurrent; }

} // namespace dlc::onnx_frontend
