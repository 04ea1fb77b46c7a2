// Integer products with zero points, as dlc_graph ops: the one place the zero-point
// algebra around matmul_integer is written (the ONNX importer's MatMulInteger and
// QLinearMatMul, the quantization passes).
#ifndef DLC_DIALECTS_GRAPH_IR_QUANTIZEDMATH_H
#define DLC_DIALECTS_GRAPH_IR_QUANTIZEDMATH_H

#include "dialects/Graph/IR/GraphExpr.h"

#include <optional>
#include <string>

namespace dlc::graph {

/// An 8-bit operand of an integer product: its value and whether it holds an ONNX
/// unsigned type (zero-extended), likewise for its zero point (absent: 0).
struct QuantizedOperand {
  mlir::Value value;
  bool isUnsigned = false;
  mlir::Value zeroPoint = {};
  bool zeroPointUnsigned = false;
};

/// Why a scale (or zero point) of `paramShape` cannot quantize a tensor of `xShape` along
/// `axis` in blocks of `block` (0: per tensor or per axis), or "" when it can: per tensor
/// (one element, block 0), per axis (1-D of xShape[axis]) or blocked (x's rank, dim
/// `axis` ceil(xShape[axis] / block), the others equal).
std::string quantParamError(llvm::ArrayRef<int64_t> paramShape, llvm::ArrayRef<int64_t> xShape,
                            int64_t axis, int64_t block);

/// A scale or zero point broadcast against x of `xShape` (quantParamError says it fits):
/// scalar, per axis ([.., n, ..] of x's rank) or blocked (repeated `block` times along
/// `axis`, then cut to size).
mlir::Value broadcastQuantParam(GraphExpr &e, mlir::Value p, llvm::ArrayRef<int64_t> xShape,
                                int64_t axis, int64_t block);

/// clip(round_half_even(v), range of `to`) converted to `to` (v a float tensor;
/// `isUnsigned`: `to` holds an ONNX unsigned type).
mlir::Value saturateTo(GraphExpr &e, mlir::Value v, mlir::Type to, bool isUnsigned);
/// clip(v, range of `to`) converted to `to`, for a `v` already integral (round(x / s) + zp).
mlir::Value clampTo(GraphExpr &e, mlir::Value v, mlir::Type to, bool isUnsigned);

/// quantize / dequantize as float math (dlc-decompose): what ONNX's reference computes.
mlir::Value expandQuantize(GraphExpr &e, QuantizeOp op);
mlir::Value expandDequantize(GraphExpr &e, DequantizeOp op);

/// The value of a one-element integer constant (zero-extended when `isUnsigned`); an
/// absent value is 0; nothing when `v` is not a constant.
std::optional<int64_t> constantScalar(mlir::Value v, bool isUnsigned);

/// sum over each window of (x - zx)(w - zw), exactly in i32, for an NCHW group-1 or
/// depthwise (group = C = F, w [C, 1, KH, KW]) conv of
/// 8-bit x [N, C, H, W] and w [F, C/group, KH, KW] whose padding is zx (ONNX ConvInteger): one
/// 8-bit conv padded with zx (a run-time zx pads the input beforehand), - zx * (sum of
/// each channel's weights), and for a zero point of the weights (per tensor or per output
/// channel) - zw * (window sum of x - K * zx), the window sums an 8-bit conv with a kernel
/// of ones. Null (nothing built) for other groups.
mlir::Value integerConv2d(GraphExpr &e, const QuantizedOperand &x, const QuantizedOperand &w,
                          mlir::DenseI64ArrayAttr strides, mlir::DenseI64ArrayAttr pads,
                          mlir::DenseI64ArrayAttr dilations, int64_t group);

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
