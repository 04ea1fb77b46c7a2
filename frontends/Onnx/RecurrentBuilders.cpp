// ONNX RNN / GRU / LSTM -> dlc_graph.rnn / gru / lstm (unrolled by dlc-decompose): checks,
// activation defaults resolved per direction, layout 1 transposed to and from layout 0.
#include "frontends/Onnx/Expr.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

using Results = SmallVectorImpl<Value>;

enum class Kind { RNN, GRU, LSTM };

struct Activation {
  std::string name;
  double alpha, beta;
};

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
  for (const Activation &a : acts) {
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
