// One step of the ONNX recurrent cells (RNN, GRU, LSTM) with GraphExpr: the one place their
// math is written, for dlc-decompose's unrolling of dlc_graph.rnn/gru/lstm over static
// sizes and for the importer's unrolling over dynamic ones (dlc compile --dims).
#ifndef DLC_DIALECTS_GRAPH_IR_RECURRENTCELL_H
#define DLC_DIALECTS_GRAPH_IR_RECURRENTCELL_H

#include "dialects/Graph/IR/GraphExpr.h"

#include <functional>

namespace dlc::graph {

/// An ONNX recurrent activation (Sigmoid, Tanh, Relu, LeakyRelu, ThresholdedRelu,
/// ScaledTanh, HardSigmoid, Elu, Softsign, Softplus, Affine) with its alpha and beta.
struct RecurrentActivation {
  std::string name;
  double alpha, beta;
};

/// f(x); a failed `e` for an unknown name.
mlir::Value activate(GraphExpr &e, const RecurrentActivation &a, mlir::Value x);

/// What a step of one direction needs besides the state.
struct RecurrentCell {
  int64_t gates;  // G: rnn 1, gru 3, lstm 4
  int64_t hidden; // H
  /// f (gates), g (candidate; gru, lstm) and h (lstm output) of this direction.
  const RecurrentActivation *f, *g, *h;
  double clip; // 0: none
  bool linearBeforeReset = false;
  /// gru without linear_before_reset: R^T's candidate columns [H, H] and their bias [H].
  mlir::Value candidateRT = {}, candidateRb = {};
  /// lstm peepholes [3*H] (i, o, f), or null.
  mlir::Value peepholes = {};
  /// Columns [k*H, (k+1)*H) of a [B, G*H] value (static or dynamic B).
  std::function<mlir::Value(mlir::Value, int64_t)> gate = {};
};

/// Advances `h` [B, H] (and `c` for lstm) by one step from xg = x_t W^T + Wb and
/// hr = h R^T + Rb, both [B, G*H], as ONNX specifies the cells.
void recurrentStep(GraphExpr &e, const RecurrentCell &cell, mlir::Value xg, mlir::Value hr,
                   mlir::Value &h, mlir::Value &c);

} // namespace dlc::graph

#endif
