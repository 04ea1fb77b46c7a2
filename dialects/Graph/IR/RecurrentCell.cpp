// One step of the ONNX RNN, GRU and LSTM cells (see RecurrentCell.h).
#include "dialects/Graph/IR/RecurrentCell.h"

using namespace mlir;

namespace dlc::graph {

Value activate(GraphExpr &e, const RecurrentActivation &a, Value x) {
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
  return e.fail(); // the verifier and the importer admit only the names above
}

void recurrentStep(GraphExpr &e, const RecurrentCell &cell, Value xg, Value hr, Value &h,
                   Value &c) {
  int64_t H = cell.hidden;
  auto clipped = [&](Value v) {
    return cell.clip > 0 ? e.op<MaxOp>({e.op<MinOp>({v, e.c(cell.clip)}), e.c(-cell.clip)}) : v;
  };
  auto gate = [&](Value v, int64_t k) { return e.failed ? e.fail() : cell.gate(v, k); };
  auto part = [&](Value v, int64_t k) { // entry k of the peepholes [3*H]
    return e.slice(v, {k * H}, {H}, {1});
  };
  if (cell.gates == 1) {
    h = activate(e, *cell.f, clipped(e.op<AddOp>({xg, hr})));
  } else if (cell.gates == 3) {
    Value z = activate(e, *cell.f, clipped(e.op<AddOp>({gate(xg, 0), gate(hr, 0)})));
    Value r = activate(e, *cell.f, clipped(e.op<AddOp>({gate(xg, 1), gate(hr, 1)})));
    Value cand;
    if (cell.linearBeforeReset) {
      cand = e.op<AddOp>({gate(xg, 2), e.op<MulOp>({r, gate(hr, 2)})});
    } else {
      Value rh = e.op<MatMulOp>({e.op<MulOp>({r, h}), cell.candidateRT});
      cand = e.op<AddOp>({e.op<AddOp>({gate(xg, 2), rh}), cell.candidateRb});
    }
    Value hh = activate(e, *cell.g, clipped(cand));
    h = e.op<AddOp>({e.op<MulOp>({e.op<SubOp>({e.c(1), z}), hh}), e.op<MulOp>({z, h})});
  } else {
    Value gs = e.op<AddOp>({xg, hr});
    Value i = gate(gs, 0), o = gate(gs, 1), fg = gate(gs, 2), cc = gate(gs, 3);
    Value P = cell.peepholes;
    if (P) {
      i = e.op<AddOp>({i, e.op<MulOp>({part(P, 0), c})});
      fg = e.op<AddOp>({fg, e.op<MulOp>({part(P, 2), c})});
    }
    i = activate(e, *cell.f, clipped(i));
    fg = activate(e, *cell.f, clipped(fg));
    cc = activate(e, *cell.g, clipped(cc));
    c = e.op<AddOp>({e.op<MulOp>({fg, c}), e.op<MulOp>({i, cc})});
    if (P)
      o = e.op<AddOp>({o, e.op<MulOp>({part(P, 1), c})});
    o = activate(e, *cell.f, clipped(o));
    h = e.op<MulOp>({o, activate(e, *cell.h, c)});
  }
}

} // namespace dlc::graph
