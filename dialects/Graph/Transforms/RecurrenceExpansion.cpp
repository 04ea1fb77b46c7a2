// dlc_graph.rnn / gru / lstm -> primitive ops, unrolled over the (static) sequence: per
// step, the gates are x_t W^T + h R^T + biases, then the cell update as ONNX specifies
// (forward, reverse or bidirectional; activations, clip, linear_before_reset, peepholes).
#include "dialects/Graph/Transforms/Expansions.h"
#include "dialects/Graph/IR/RecurrentCell.h"

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

/// The operands and attributes rnn, gru and lstm share.
struct Recurrence {
  int64_t gates; // G: 1, 3 or 4
  Value x, w, r, bias, h0, c0, peepholes;
  int64_t hidden;
  StringRef dir;
  SmallVector<RecurrentActivation> acts;
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
    rc.acts.push_back({name.str(), alpha[i], beta[i]});
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
    RecurrentCell cell{G, H, &rc.acts[d * per], per > 1 ? &rc.acts[d * per + 1] : nullptr,
                       per > 2 ? &rc.acts[d * per + 2] : nullptr, rc.clip, rc.linearBeforeReset};
    Value Wd = direction(e, rc.w, d), Rd = direction(e, rc.r, d);
    Value WT = e.transpose(Wd, {1, 0}), RT = e.transpose(Rd, {1, 0});
    Value Bd = direction(e, rc.bias, d);
    Value Wb = sliceDim(e, Bd, 0, 0, G * H), Rb = sliceDim(e, Bd, 0, G * H, G * H);
    // All input projections at once: [S*B, I] @ [I, G*H].
    Value xp = e.reshape(e.op<AddOp>({e.op<MatMulOp>({e.reshape(rc.x, {S * Bt, I}), WT}), Wb}),
                         {S, Bt, G * H});
    Value h = direction(e, h0, d), c = c0 ? direction(e, c0, d) : Value();
    cell.peepholes = rc.peepholes ? direction(e, rc.peepholes, d) : Value();
    if (isGru && !rc.linearBeforeReset) {
      cell.candidateRT = sliceDim(e, RT, 1, 2 * H, H);
      cell.candidateRb = sliceDim(e, Rb, 0, 2 * H, H);
    }
    cell.gate = [&](Value v, int64_t k) { return sliceDim(e, v, 1, k * H, H); };
    SmallVector<Value> steps(S);
    for (int64_t s = 0; s < S; ++s) {
      int64_t t = reverse ? S - 1 - s : s;
      Value xg = e.reshape(sliceDim(e, xp, 0, t, 1), {Bt, G * H});
      Value hr = e.op<AddOp>({e.op<MatMulOp>({h, RT}), Rb}); // [B, G*H]
      recurrentStep(e, cell, xg, hr, h, c);
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
