// Integer products with zero points, as dlc_graph ops: the one place the zero-point
// algebra around matmul_integer is written (the ONNX importer's MatMulInteger and
// QLinearMatMul, the quantization passes).
#ifndef DLC_DIALECTS_GRAPH_IR_QUANTIZEDMATH_H
#define DLC_DIALECTS_GRAPH_IR_QUANTIZEDMATH_H

#include "dialects/Graph/IR/GraphExpr.h"

namespace dlc::graph {

/// An 8-bit operand of an integer product: its value and whether it holds an ONNX
/// unsigned type (zero-extended), likewise for its zero point (absent: 0).
struct QuantizedOperand {
  mlir::Value value;
  bool isUnsigned = false;
  mlir::Value zeroPoint = {};
  bool zeroPointUnsigned = false;
};

/// Whether `v` is a constant whose elements are all zero.
bool isZeroConstant(mlir::Value v);

/// sum_k (a - za)(b - zb) exactly in i32, for a [..., M, K] and b [..., K, N] of 8 bits:
/// one matmul_integer of the raw operands and i32 corrections,
///   - zb * rowsum(a) - za * colsum(b) + K * za * zb.
/// a's zero point broadcasts against [..., M, 1] (a scalar, or per row [M, 1]), b's
/// against [..., 1, N] (a scalar, or per column [N]). Zero points that are absent or
/// constant zeros add no term.
mlir::Value integerMatMul(GraphExpr &e, const QuantizedOperand &a, const QuantizedOperand &b);

} // namespace dlc::graph

#endif
