// ONNX RNN / GRU / LSTM -> dlc_graph.rnn / gru / lstm (unrolled by dlc-decompose): checks,
// activation defaults resolved per direction, layout 1 transposed to and from layout 0.
// Over dynamic dims (dlc compile --dims) or shorter sequence_lens, unrolled here instead:
// up to the sequence's greatest length, each step masked by the length at run time.
#include "dialects/Graph/IR/RecurrentCell.h"
#include "frontends/Onnx/Expr.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

using Results = SmallVectorImpl<Value>;

enum class Kind { RNN, GRU, LSTM };

/// The attributes of one recurrent node, checked and resolved.
struct Recurrence {
  int64_t G, H, dirs;
  std::string dir;
  bool layout, linearBeforeReset;
  double clip;
  SmallVector<RecurrentActivation> acts;
};

/// x[d] of a [dirs, ...] tensor whose other dims are `rest` (keeps the leading 1).
FailureOr<Value> directionOf(NodeImporter &n, Value x, int64_t d, ArrayRef<SymbolicSize> rest) {
  SmallVector<SymbolicSize> from(rest.size() + 1, SymbolicSize::constant(0)), size;
  from[0] = SymbolicSize::constant(d);
  size.push_back(SymbolicSize::constant(1));
  llvm::append_range(size, rest);
  return sliceTo(n, x, from, size);
}

/// The recurrence unrolled over X [S, B, I] (layout 0) with any dims dynamic: up to S's
/// greatest size, the state kept where step t >= S (or >= sequence_lens[b]).
LogicalResult unrollDynamic(NodeImporter &n, const Recurrence &rc, Value X, Results &out) {
  using S_ = SymbolicSize;
  auto xs = n.sizesOf(X);
  if (!xs)
    return n.error("the sizes of X's dynamic dims are not known");
  S_ S = (*xs)[0], B = (*xs)[1], I = (*xs)[2];
  int64_t G = rc.G, H = rc.H, dirs = rc.dirs;
  bool lstm = G == 4;
  Type elt = tensorType(X).getElementType(), i64 = n.b.getI64Type();
  Expr e{n, elt};
  auto k = [](int64_t v) { return S_::constant(v); };
  // The weights' and states' dims follow from X and hidden_size (checked at run time).
  auto shaped = [&](unsigned i, ArrayRef<S_> target, bool batchMajor) -> FailureOr<Value> {
    Value v = n.input(i);
    if (!v)
      return Value();
    if (tensorType(v).getRank() != (int64_t)target.size())
      return n.error("input " + Twine(i) + " must have rank " + Twine(target.size()));
    if (batchMajor)
      v = e.transpose(v, {1, 0, 2});
    return e.failed ? FailureOr<Value>(failure()) : n.expandTo(v, target);
  };
  auto w = shaped(1, {k(dirs), k(G * H), I}, false), r = shaped(2, {k(dirs), k(G * H), k(H)}, false),
       bias = shaped(3, {k(dirs), k(2 * G * H)}, false),
       h0 = shaped(5, {k(dirs), B, k(H)}, rc.layout),
       c0 = lstm ? shaped(6, {k(dirs), B, k(H)}, rc.layout) : FailureOr<Value>(Value()),
       P = lstm ? shaped(7, {k(dirs), k(3 * H)}, false) : FailureOr<Value>(Value()),
       lens = shaped(4, {B}, false);
  DLC_TRY(w); DLC_TRY(r); DLC_TRY(bias); DLC_TRY(h0); DLC_TRY(c0); DLC_TRY(P); DLC_TRY(lens);
  auto zeros = [&](ArrayRef<S_> shape) -> FailureOr<Value> {
    SmallVector<int64_t> ones(shape.size(), 1);
    Value z = n.constant(DenseElementsAttr::get(RankedTensorType::get(ones, elt),
                                                n.b.getZeroAttr(elt)));
    return n.expandTo(z, shape);
  };
  for (FailureOr<Value> *state : {&h0, &c0})
    if (!**state && (lstm || state == &h0))
      *state = zeros({k(dirs), B, k(H)});
  if (!*bias)
    bias = zeros({k(dirs), k(2 * G * H)});
  DLC_TRY(h0); DLC_TRY(c0); DLC_TRY(bias);
  // Steps up to S's greatest size; X padded to it.
  bool masked = !S.isStatic();
  auto steps = unrollSteps(n, S, 4096, "the sequence length");
  DLC_TRY(steps);
  Value Xp = X, sLen;
  if (masked) {
    auto padded = padAxisTo(n, X, 0, S, *steps);
    DLC_TRY(padded);
    Xp = *padded;
    auto len = n.dimSize(X, 0);
    DLC_TRY(len);
    sLen = *len;
  }
  Value lensB; // [1, B, 1] i64
  if (*lens) {
    auto l = n.reshapeTo(e.cast(*lens, i64), {k(1), B, k(1)});
    DLC_TRY(l);
    lensB = *l;
  }
  auto cat = [&](ArrayRef<Value> parts, int64_t axis) -> FailureOr<Value> {
    if (parts.size() == 1)
      return parts[0];
    return n.create<ConcatOp>(SmallVector<Value>(parts), {n.named("axis", n.b.getI64IntegerAttr(axis))});
  };
  SmallVector<Value> ys, hs, cs;
  int64_t per = rc.acts.size() / dirs;
  for (int64_t d = 0; d < dirs; ++d) {
    bool reverse = rc.dir == "reverse" || d == 1;
    RecurrentCell cell{G, H, &rc.acts[d * per], per > 1 ? &rc.acts[d * per + 1] : nullptr,
                       per > 2 ? &rc.acts[d * per + 2] : nullptr, rc.clip, rc.linearBeforeReset};
    auto Wd = directionOf(n, *w, d, {k(G * H), I});
    DLC_TRY(Wd);
    // [1, H, G*H] and [1, I, G*H]; biases [1, G*H].
    Value WT = e.transpose(*Wd, {0, 2, 1});
    Value RT = e.transpose(e.slice(*r, {d, 0, 0}, {1, G * H, H}, {1, 1, 1}), {0, 2, 1});
    Value Bd = e.slice(*bias, {d, 0}, {1, 2 * G * H}, {1, 1});
    Value Wb = e.slice(Bd, {0, 0}, {1, G * H}, {1, 1}),
          Rb = e.slice(Bd, {0, G * H}, {1, G * H}, {1, 1});
    Value xp = e.op<AddOp>({e.op<MatMulOp>({Xp, WT}), Wb}); // [steps, B, G*H]
    if (*P)
      cell.peepholes = e.reshape(e.slice(*P, {d, 0}, {1, 3 * H}, {1, 1}), {3 * H});
    if (G == 3 && !rc.linearBeforeReset) {
      cell.candidateRT = e.slice(RT, {0, 0, 2 * H}, {1, H, H}, {1, 1, 1});
      cell.candidateRb = e.slice(Rb, {0, 2 * H}, {1, H}, {1, 1});
    }
    if (e.failed)
      return failure();
    cell.gate = [&](Value v, int64_t g) {
      auto part = sliceTo(n, v, {k(0), k(0), k(g * H)}, {k(1), B, k(H)});
      return failed(part) ? e.fail() : *part;
    };
    auto h = directionOf(n, *h0, d, {B, k(H)});
    auto c = lstm ? directionOf(n, *c0, d, {B, k(H)}) : FailureOr<Value>(Value());
    DLC_TRY(h); DLC_TRY(c);
    SmallVector<Value> ysd(*steps);
    for (int64_t s = 0; s < *steps; ++s) {
      int64_t t = reverse ? *steps - 1 - s : s;
      auto xg = sliceTo(n, xp, {k(t), k(0), k(0)}, {k(1), B, k(G * H)});
      DLC_TRY(xg);
      Value hr = e.op<AddOp>({e.op<MatMulOp>({*h, RT}), Rb}); // [1, B, G*H]
      Value hNew = *h, cNew = *c;
      recurrentStep(e, cell, *xg, hr, hNew, cNew);
      Value y = hNew;
      if (masked || lensB) {
        Value tt = n.intConstant(i64, t);
        Value valid = masked ? e.op<LessOp>({tt, sLen}) : Value();
        if (lensB)
          valid = valid ? e.op<AndOp>({valid, e.op<LessOp>({tt, lensB})})
                        : e.op<LessOp>({tt, lensB});
        hNew = e.where(valid, hNew, *h);
        if (lstm)
          cNew = e.where(valid, cNew, *c);
        if (lensB) // past a batch's length, Y is zero
          y = e.where(valid, y, e.c(0));
      }
      if (e.failed)
        return failure();
      *h = hNew;
      *c = cNew;
      ysd[t] = y;
    }
    auto yd = cat(ysd, 0); // [steps, B, H]
    DLC_TRY(yd);
    auto y4 = n.reshapeTo(*yd, {k(*steps), k(1), B, k(H)});
    DLC_TRY(y4);
    ys.push_back(*y4);
    hs.push_back(*h);
    if (lstm)
      cs.push_back(*c);
  }
  auto Y = cat(ys, 1), Yh = cat(hs, 0);
  auto Yc = lstm ? cat(cs, 0) : FailureOr<Value>(Value());
  DLC_TRY(Y); DLC_TRY(Yh); DLC_TRY(Yc);
  if (masked) {
    Y = sliceTo(n, *Y, {k(0), k(0), k(0), k(0)}, {S, k(dirs), B, k(H)});
    DLC_TRY(Y);
  }
  Value y = *Y, yh = *Yh, yc = *Yc;
  if (rc.layout) {
    y = e.transpose(y, {2, 0, 1, 3});
    yh = e.transpose(yh, {1, 0, 2});
    if (yc)
      yc = e.transpose(yc, {1, 0, 2});
  }
  if (e.failed)
    return failure();
  out.append({y, yh});
  if (yc)
    out.push_back(yc);
  return success();
}

LogicalResult recurrence(NodeImporter &n, Results &out, Kind kind) {
  auto x0 = n.requiredInput(0), w = n.requiredInput(1), r = n.requiredInput(2);
  DLC_TRY(x0);
  DLC_TRY(w);
  DLC_TRY(r);
  auto hiddenAttr = n.intAttr("hidden_size", 0), layout = n.intAttr("layout", 0);
  auto dirAttr = n.stringAttr("direction", "forward");
  auto clip = n.floatAttr("clip", 0.0f);
  auto lbr = n.intAttr("linear_before_reset", 0), inputForget = n.intAttr("input_forget", 0);
  DLC_TRY(hiddenAttr);
  DLC_TRY(layout);
  DLC_TRY(dirAttr);
  DLC_TRY(clip);
  DLC_TRY(lbr);
  DLC_TRY(inputForget);
  int64_t G = kind == Kind::RNN ? 1 : kind == Kind::GRU ? 3 : 4;
  auto xt = tensorType(*x0);
  Type elt = xt.getElementType();
  if (xt.getRank() != 3 || !isa<FloatType>(elt))
    return n.error("expects a floating-point 3-D input");
  int64_t dirs = *dirAttr == "bidirectional" ? 2 : 1;
  if (*dirAttr != "forward" && *dirAttr != "reverse" && *dirAttr != "bidirectional")
    return n.error("direction must be forward, reverse or bidirectional");
  if (*inputForget)
    return n.error("input_forget is not supported");
  // Activations: f (gates), g (candidate), h (LSTM output), per direction.
  SmallVector<StringRef> defaults = kind == Kind::RNN   ? SmallVector<StringRef>{"Tanh"}
                                    : kind == Kind::GRU ? SmallVector<StringRef>{"Sigmoid", "Tanh"}
                                                        : SmallVector<StringRef>{"Sigmoid", "Tanh", "Tanh"};
  SmallVector<RecurrentActivation> acts;
  const onnx::AttributeProto *names = n.findAttr("activations");
  const onnx::AttributeProto *alphas = n.findAttr("activation_alpha");
  const onnx::AttributeProto *betas = n.findAttr("activation_beta");
  int64_t per = defaults.size();
  for (int64_t i = 0; i < per * dirs; ++i) {
    RecurrentActivation a{defaults[i % per].str(), 0.01, 0.0};
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
  // Dynamic dims, or sequence_lens that may be shorter than the sequence: unrolled here.
  bool dynamic = false;
  for (unsigned i = 0; i < n.numInputs(); ++i)
    if (Value v = n.input(i))
      dynamic |= !tensorType(v).hasStaticShape();
  if (!dynamic && n.input(4)) {
    DenseElementsAttr lens = n.knownInput(4);
    int64_t seq = xt.getDimSize(*layout ? 1 : 0);
    dynamic = !lens || !isa<IntegerType>(lens.getElementType()) ||
              llvm::any_of(lens.getValues<APInt>(), [&](const APInt &v) {
                return v.getSExtValue() != seq;
              });
  }
  if (dynamic) {
    auto wt = tensorType(*w);
    int64_t H = *hiddenAttr;
    if (!H && wt.getRank() == 3 && !wt.isDynamicDim(1) && wt.getDimSize(1) % G == 0)
      H = wt.getDimSize(1) / G;
    if (H <= 0 || H > (int64_t(1) << 32))
      return n.error("hidden_size must be given (1 to 2^32) where W's dims are dynamic (--dims)");
    if (Value lens = n.input(4); lens && !isa<IntegerType>(tensorType(lens).getElementType()))
      return n.error("sequence_lens must be an integer tensor");
    Expr e{n, elt};
    Value X = *layout ? e.transpose(*x0, {1, 0, 2}) : *x0; // [seq, batch, in]
    if (e.failed)
      return failure();
    Recurrence rc{G, H, dirs, *dirAttr, *layout != 0, *lbr != 0, *clip, acts};
    return unrollDynamic(n, rc, X, out);
  }
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
    DLC_TRY(l);
    if (llvm::any_of(*l, [&](int64_t v) { return v != S; }))
      return n.error("sequence_lens shorter than the sequence are not supported");
  }
  auto initial = [&](unsigned i) -> Value {
    Value v = n.input(i);
    return v && *layout ? e.transpose(v, {1, 0, 2}) : v;
  };
  Value h0 = initial(5), c0 = kind == Kind::LSTM ? initial(6) : Value();
  if (e.failed)
    return failure();
  // What the expansion materializes first: all input projections at once.
  if (failed(n.checkShape({S, Bt, G * H}, elt, "the input projections")))
    return failure();
  SmallVector<StringRef> actNames;
  SmallVector<double> alpha, beta;
  for (const RecurrentActivation &a : acts) {
    actNames.push_back(a.name);
    alpha.push_back(a.alpha);
    beta.push_back(a.beta);
  }
  // Zeros for the omitted bias and initial states (adding a zero bias is what the ONNX
  // reference does too); peepholes stay optional (0 * c is NaN for an infinite c).
  auto zeros = [&](ArrayRef<int64_t> shape) {
    return n.constant(
        DenseElementsAttr::get(RankedTensorType::get(shape, elt), n.b.getZeroAttr(elt)));
  };
  Value bias = n.input(3) ? n.input(3) : zeros({dirs, 2 * G * H});
  SmallVector<Value> operands = {X, *w, *r, bias, h0 ? h0 : zeros({dirs, Bt, H})};
  if (kind == Kind::LSTM) {
    operands.push_back(c0 ? c0 : zeros({dirs, Bt, H}));
    if (Value p = n.input(7))
      operands.push_back(p);
  }
  SmallVector<NamedAttribute> attrs = {
      n.named("hidden_size", n.b.getI64IntegerAttr(H)),
      n.named("direction", n.b.getStringAttr(*dirAttr)),
      n.named("activations", n.b.getStrArrayAttr(actNames)),
      n.named("activation_alpha", n.b.getDenseF64ArrayAttr(alpha)),
      n.named("activation_beta", n.b.getDenseF64ArrayAttr(beta))};
  if (*clip > 0)
    attrs.push_back(n.named("clip", n.b.getF64FloatAttr(*clip)));
  if (kind == Kind::GRU && *lbr)
    attrs.push_back(n.named("linear_before_reset", n.b.getUnitAttr()));
  StringRef opName = kind == Kind::RNN   ? RnnOp::getOperationName()
                     : kind == Kind::GRU ? GruOp::getOperationName()
                                         : LstmOp::getOperationName();
  auto results = n.createMulti(opName, operands, attrs);
  if (failed(results))
    return failure();
  Value Y = (*results)[0], Yh = (*results)[1], Yc = kind == Kind::LSTM ? (*results)[2] : Value();
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
