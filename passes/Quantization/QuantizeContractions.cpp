// dlc-quantize-contractions: matmul / gemm / conv of dequantized 8-bit operands as integer
// products (matmul_integer, integer conv) plus one float scale per output column or channel.
#include "dialects/Graph/IR/QuantizedMath.h"
#include "passes/Quantization/Passes.h"

#include "dialects/Graph/IR/NodeName.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

namespace dlc::quantization {
#define GEN_PASS_DEF_QUANTIZECONTRACTIONS
#include "passes/Quantization/Passes.h.inc"
} // namespace dlc::quantization

using namespace mlir;
using namespace dlc::graph;

namespace dlc::quantization {
namespace {

/// An 8-bit operand seen through its dequantize: the bytes with their zero point, and
/// the scale (per tensor, or per the axis asked for).
struct Dequantized {
  QuantizedOperand bytes;
  Value scale;
};

/// `v` as the f32 dequantization of 8-bit integers, its scale and zero point per tensor
/// or, when `axis` >= 0, per that axis; nothing otherwise (blocked, wider integers).
std::optional<Dequantized> dequantized(Value v, int64_t axis) {
  auto dq = v.getDefiningOp<DequantizeOp>();
  if (!dq || dq.getBlockSize() != 0 || !GraphExpr::typeOf(dq.getInput()).getElementType().isInteger(8) ||
      !dq.getType().getElementType().isF32())
    return std::nullopt;
  bool perTensor = GraphExpr::typeOf(dq.getScale()).getNumElements() == 1;
  if (!perTensor && (axis < 0 || int64_t(dq.getAxis()) != axis))
    return std::nullopt;
  bool u = dq.getUnsignedInput();
  return Dequantized{{dq.getInput(), u, dq.getZeroPoint(), u}, dq.getScale()};
}

/// The 2-D constant `v` transposed, or null when `v` is not a constant.
Value transposedConstant(OpBuilder &b, Location loc, Value v) {
  DenseElementsAttr dense;
  if (!matchPattern(v, m_Constant(&dense)))
    return {};
  auto type = cast<RankedTensorType>(dense.getType());
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  auto to = RankedTensorType::get({cols, rows}, type.getElementType());
  if (dense.isSplat())
    return arith::ConstantOp::create(b, loc, dense.reshape(to));
  size_t width = type.getElementTypeBitWidth() / 8;
  ArrayRef<char> src = dense.getRawData();
  std::vector<char> out(src.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      std::memcpy(&out[(c * rows + r) * width], &src[(r * cols + c) * width], width);
  return arith::ConstantOp::create(b, loc, DenseElementsAttr::getFromRawBuffer(to, out));
}

/// float(sum_k (a - za)(w - zw)) * (s_a * s_w): the product of the dequantized operands.
Value scaledProduct(GraphExpr &e, const Dequantized &a, const Dequantized &w) {
  Type f32 = e.b.getF32Type();
  Value acc = integerMatMul(e, a.bytes, w.bytes);
  Value scale = e.op<MulOp>({e.cast(a.scale, f32), e.cast(w.scale, f32)});
  return e.op<MulOp>({e.cast(acc, f32), scale});
}

/// What the pass made of a contraction: its integer form, or why it stays float.
struct Outcome {
  Value y;
  std::string why;
};

/// Why dequantized operands `a` (activations) and `w` (weights) cannot make an integer
/// product ("" when they can).
std::string whyFloat(Value a, Value w, const std::optional<Dequantized> &da,
                     const std::optional<Dequantized> &dw, Type result, StringRef wAxis) {
  if (!result.isF32())
    return "the result is not f32";
  if (!a.getDefiningOp<DequantizeOp>() || !w.getDefiningOp<DequantizeOp>())
    return "an operand is not dequantized";
  if (!da)
    return "the activations are not 8-bit per tensor (per-axis, blocked or wider)";
  if (!dw)
    return ("the weights are not 8-bit per tensor or per " + wAxis + " (blocked or wider)").str();
  return "";
}

/// matmul(dequantize(a), dequantize(w)): activations per tensor, weights per tensor or per
/// column (the last axis).
Outcome quantizeMatMul(GraphExpr &e, MatMulOp op) {
  int64_t rhsRank = GraphExpr::typeOf(op.getRhs()).getRank();
  auto a = dequantized(op.getLhs(), -1);
  auto w = dequantized(op.getRhs(), rhsRank - 1);
  std::string why =
      whyFloat(op.getLhs(), op.getRhs(), a, w, op.getType().getElementType(), "column");
  if (!why.empty())
    return {{}, why};
  return {scaledProduct(e, *a, *w), ""};
}

/// `p` (f32 scale or 8-bit zero point of a dequantize, constant) per block of `block` along
/// K of weights [N, K]: [N, KB] from blocked [N, KB] (`transposed`: [KB, N]), per-row [N] or
/// per-tensor values.
DenseElementsAttr perBlock(DenseElementsAttr p, int64_t n, int64_t kb, bool transposed) {
  auto type = RankedTensorType::get({n, kb}, p.getElementType());
  if (p.isSplat())
    return p.resizeSplat(type);
  size_t width = (p.getElementType().getIntOrFloatBitWidth() + 7) / 8;
  ArrayRef<char> src = p.getRawData();
  std::vector<char> out(n * kb * width);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < kb; ++c) {
      int64_t from = p.getNumElements() == n ? r : transposed ? c * n + r : r * kb + c;
      std::memcpy(&out[(r * kb + c) * width], &src[from * width], width);
    }
  return DenseElementsAttr::getFromRawBuffer(type, out);
}

/// Rows (activation vectors) up to which a weight-only product keeps its codes. Each row
/// tile converts the codes again, so the kernel wins where the weight bytes dominate
/// (decoding): M x 4096 x 4096 with int4 codes on Zen 3, 1 thread, against f32 weights:
/// 1.3 vs 5.1 ms at M = 1, 1.9 vs 5.9 at 2, 5.0 vs 6.2 at 4, 10.2 vs 9.5 at 8.
constexpr int64_t kMaxWeightOnlyRows = 4;

/// matmul(a, w) with w the dequantized constant weights as ONNX Runtime's MatMulNBits and
/// blocked DequantizeLinear give them: transpose(dequantize(codes [N, K])) blocked along K
/// (or per row N, or per tensor), or dequantize(codes [K, N]) blocked along K (or per
/// column, or per tensor); float activations. Weight-only quantization: the codes stay
/// integer until the kernel (dequant_matmul). "" in `why` when it applies.
Outcome weightOnlyMatMul(GraphExpr &e, MatMulOp op) {
  Value w = op.getRhs();
  bool transposed = false;
  if (auto t = w.getDefiningOp<TransposeOp>(); t && t.getPerm() == ArrayRef<int64_t>{1, 0}) {
    w = t.getInput();
    transposed = true;
  }
  auto dq = w.getDefiningOp<DequantizeOp>();
  auto a = GraphExpr::typeOf(op.getLhs());
  if (!dq || GraphExpr::typeOf(w).getRank() != 2 || !a.getElementType().isF32() ||
      !op.getType().getElementType().isF32())
    return {{}, "the weights are not a dequantized 2-D constant of f32 activations"};
  DenseElementsAttr codes, scale, zp;
  if (!matchPattern(dq.getInput(), m_Constant(&codes)) ||
      !matchPattern(dq.getScale(), m_Constant(&scale)) ||
      (dq.getZeroPoint() && !matchPattern(dq.getZeroPoint(), m_Constant(&zp))) ||
      !codes.getElementType().isInteger(8) || !scale.getElementType().isF32())
    return {{}, "the weights are not constant 8-bit codes with f32 scales"};
  if (int64_t rows = a.getNumElements() / a.getShape().back(); rows > kMaxWeightOnlyRows)
    return {{}, "weight-only products are kept for at most " +
                    std::to_string(kMaxWeightOnlyRows) + " rows (this one has " +
                    std::to_string(rows) + "): with more, the weights dequantized once at "
                    "compile time make the faster float product"};
  auto shape = GraphExpr::typeOf(w).getShape();
  // [N, K] (transposed) or [K, N]: K is dim 1 or 0 of the codes.
  int64_t kDim = transposed ? 1 : 0, n = shape[1 - kDim], k = shape[kDim];
  int64_t block = dq.getBlockSize(), axis = dq.getAxis();
  bool perTensor = scale.getNumElements() == 1;
  if (!perTensor && !(block > 0 && axis == kDim) && !(block == 0 && axis == 1 - kDim))
    return {{}, "the weights' scales are neither per tensor, per output column nor blocked "
                "along K"};
  if (block == 0 || perTensor)
    block = k;
  int64_t kb = (k + block - 1) / block;
  Value q = e.constant(codes);
  if (!transposed)
    q = transposedConstant(e.b, e.loc, q);
  bool blockedKN = !transposed && kb > 1;
  Value s = e.constant(perBlock(scale, n, kb, blockedKN));
  SmallVector<NamedAttribute> attrs = {e.named("block_size", e.b.getI64IntegerAttr(block))};
  if (dq.getUnsignedInput())
    attrs.push_back(e.named("codes_unsigned", e.b.getUnitAttr()));
  if (!zp)
    return {e.op<DequantMatMulOp>({op.getLhs(), q, s}, attrs), ""};
  Value z = e.constant(perBlock(zp, n, kb, blockedKN));
  return {e.op<DequantMatMulOp>({op.getLhs(), q, s, z}, attrs), ""};
}

/// gemm(dequantize(a), dequantize(w), c): as matmul, weights [N, K] with transB (per
/// column: axis 0) transposed, then alpha and beta * c.
Outcome quantizeGemm(GraphExpr &e, GemmOp op) {
  auto a = dequantized(op.getA(), -1);
  auto w = dequantized(op.getB(), op.getTransB() ? 0 : 1);
  std::string why = whyFloat(op.getA(), op.getB(), a, w, op.getType().getElementType(), "column");
  if (!why.empty())
    return {{}, why};
  if (op.getTransA())
    a->bytes.value = e.transpose(a->bytes.value, {1, 0});
  if (op.getTransB()) {
    Value t = transposedConstant(e.b, e.loc, w->bytes.value);
    w->bytes.value = t ? t : e.transpose(w->bytes.value, {1, 0});
  }
  Value y = scaledProduct(e, *a, *w);
  if (double alpha = op.getAlpha().convertToDouble(); alpha != 1.0)
    y = e.op<MulOp>({y, e.c(e.b.getF32Type(), alpha)});
  if (Value c = op.getC()) {
    if (double beta = op.getBeta().convertToDouble(); beta != 1.0)
      c = e.op<MulOp>({c, e.c(e.b.getF32Type(), beta)});
    y = e.op<AddOp>({y, c});
  }
  return {y, ""};
}

/// conv(dequantize(x), dequantize(w), bias): activations per tensor with a constant zero
/// point (it pads the integer conv, so the padding is a real 0), weights per tensor or per
/// output channel, group 1 or depthwise. Then y = float(integerConv2d) * (s_x * s_w[f]) + bias.
Outcome quantizeConv(GraphExpr &e, ConvOp op) {
  auto x = dequantized(op.getInput(), -1);
  auto w = dequantized(op.getWeight(), 0);
  std::string why = whyFloat(op.getInput(), op.getWeight(), x, w, op.getType().getElementType(),
                             "output channel");
  if (!why.empty())
    return {{}, why};
  int64_t c = GraphExpr::typeOf(op.getInput()).getDimSize(1);
  int64_t f = GraphExpr::typeOf(op.getWeight()).getDimSize(0);
  int64_t group = static_cast<int64_t>(op.getGroup());
  if (group != 1 && (group != c || group != f))
    return {{}, "group " + std::to_string(group) +
                    ": grouped convs (other than depthwise) have no integer kernel yet"};
  Value acc = integerConv2d(e, x->bytes, w->bytes, op.getStridesAttr(), op.getPadsAttr(),
                            op.getDilationsAttr(), op.getGroup());
  if (!acc)
    return {{}, "not a 2-D conv with a constant activation zero point"};
  Type f32 = e.b.getF32Type();
  Value scale = e.op<MulOp>({e.cast(x->scale, f32), e.cast(w->scale, f32)});
  if (GraphExpr::typeOf(scale).getNumElements() > 1)
    scale = e.reshape(scale, {f, 1, 1});
  Value y = e.op<MulOp>({e.cast(acc, f32), scale});
  if (Value bias = op.getBias())
    y = e.op<AddOp>({y, e.reshape(bias, {f, 1, 1})});
  return {y, ""};
}

struct QuantizeContractionsPass : impl::QuantizeContractionsBase<QuantizeContractionsPass> {
  using QuantizeContractionsBase::QuantizeContractionsBase;
  void runOnOperation() override {
    SmallVector<Operation *> contractions;
    getOperation()->walk([&](Operation *op) {
      if (isa<MatMulOp, GemmOp, ConvOp>(op))
        contractions.push_back(op);
    });
    for (Operation *op : contractions) {
      OpBuilder b(op);
      GraphExpr e(b, op->getLoc(), Type());
      Outcome out;
      if (auto mm = dyn_cast<MatMulOp>(op)) {
        out = quantizeMatMul(e, mm);
        // Float activations: the weight-only form (its reason when it does not apply).
        if (!out.y) {
          Outcome weightOnly = weightOnlyMatMul(e, mm);
          if (weightOnly.y || !mm.getLhs().getDefiningOp<DequantizeOp>())
            out = weightOnly;
        }
      }
      else if (auto gemm = dyn_cast<GemmOp>(op))
        out = quantizeGemm(e, gemm);
      else
        out = quantizeConv(e, cast<ConvOp>(op));
      if (out.y && (e.failed || out.y.getType() != op->getResult(0).getType()))
        out = {{}, "its integer form did not build"};
      // Contractions that read no dequantized value are float models' own: no line.
      bool readsDequantized = llvm::any_of(op->getOperands(), [](Value v) {
        if (auto t = v.getDefiningOp<TransposeOp>())
          v = t.getInput();
        return v.getDefiningOp<DequantizeOp>() != nullptr;
      });
      if (report && readsDequantized)
        llvm::errs() << "quantize: '" << dlc::graph::nodeName(op->getLoc()) << "' "
                     << op->getName().getStringRef() << ": "
                     << (!out.y ? "kept float: " + out.why
                         : isa<DequantMatMulOp>(out.y.getDefiningOp())
                             ? "weight-only (integer codes dequantized in the kernel)"
                             : "integer (8-bit operands, i32 accumulation)")
                     << "\n";
      if (!out.y)
        continue; // (ops built for a failed attempt are dead; canonicalization drops them)
      op->getResult(0).replaceAllUsesWith(out.y);
      op->erase();
    }
  }
};

} // namespace
} // namespace dlc::quantization
