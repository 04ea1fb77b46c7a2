// Integer products with zero points as matmul_integer plus i32 corrections.
#include "dialects/Graph/IR/QuantizedMath.h"

#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;

namespace dlc::graph {

std::string quantParamError(ArrayRef<int64_t> paramShape, ArrayRef<int64_t> xShape, int64_t axis,
                            int64_t block) {
  int64_t count = 1;
  for (int64_t d : paramShape)
    count *= d;
  int64_t rank = xShape.size();
  if (block < 0)
    return "block_size must be non-negative, got " + std::to_string(block);
  if (block == 0 && count == 1)
    return "";
  if (axis < 0 || axis >= rank)
    return "axis " + std::to_string(axis) + " is out of range for a rank-" + std::to_string(rank) +
           " input";
  if (block == 0) {
    if (paramShape.size() != 1 || paramShape[0] != xShape[axis])
      return "a per-axis scale or zero point must be 1-D of " + std::to_string(xShape[axis]) +
             " elements (the input's dim " + std::to_string(axis) + "), got " +
             shapeText(paramShape);
    return "";
  }
  if (llvm::any_of(xShape, ShapedType::isDynamic) || llvm::any_of(paramShape, ShapedType::isDynamic))
    return "blocked quantization (block_size " + std::to_string(block) +
           ") over dynamic dims (--dims) is not supported";
  SmallVector<int64_t> want(xShape);
  want[axis] = (xShape[axis] + block - 1) / block;
  if (paramShape != ArrayRef<int64_t>(want))
    return "a blocked scale or zero point must have shape " + shapeText(want) + " for blocks of " +
           std::to_string(block) + " along axis " + std::to_string(axis) + ", got " +
           shapeText(paramShape);
  return "";
}

Value broadcastQuantParam(GraphExpr &e, Value p, ArrayRef<int64_t> xShape, int64_t axis,
                          int64_t block) {
  if (e.failed || !p) // an earlier builder failed
    return e.fail();
  auto pt = GraphExpr::typeOf(p);
  int64_t r = xShape.size();
  if (pt.getNumElements() == 1 && block == 0)
    return e.reshape(p, {});
  if (block == 0) {
    SmallVector<int64_t> shape(r, 1);
    shape[axis] = pt.getNumElements();
    return e.reshape(p, shape);
  }
  // Blocked: [.., nb, ..] -> [.., nb, block, ..] -> [.., nb*block, ..] -> slice to xShape[axis].
  SmallVector<int64_t> withBlock(pt.getShape()), expanded(pt.getShape()), merged(pt.getShape());
  withBlock.insert(withBlock.begin() + axis + 1, 1);
  expanded.insert(expanded.begin() + axis + 1, block);
  merged[axis] *= block;
  Value b = e.op<ExpandOp>({e.reshape(p, withBlock)}, {},
                           {RankedTensorType::get(expanded, pt.getElementType())});
  b = e.reshape(b, merged);
  if (merged[axis] != xShape[axis]) {
    SmallVector<int64_t> starts(r, 0), sizes(merged), steps(r, 1);
    sizes[axis] = xShape[axis];
    b = e.slice(b, starts, sizes, steps);
  }
  return b;
}

Value clampTo(GraphExpr &e, Value v, Type to, bool isUnsigned) {
  if (e.failed || !v) // an earlier builder failed
    return e.fail();
  unsigned w = to.getIntOrFloatBitWidth();
  double lo = isUnsigned ? 0.0 : -std::ldexp(1.0, w - 1);
  double hi = isUnsigned ? std::ldexp(1.0, w) - 1 : std::ldexp(1.0, w - 1) - 1;
  Type ft = GraphExpr::typeOf(v).getElementType();
  Value r = e.op<MaxOp>({e.op<MinOp>({v, e.c(ft, hi)}), e.c(ft, lo)});
  return e.cast(r, to);
}

Value saturateTo(GraphExpr &e, Value v, Type to, bool isUnsigned) {
  if (e.failed || !v)
    return e.fail();
  return clampTo(e, e.op<RoundOp>({v}), to, isUnsigned);
}

Value expandQuantize(GraphExpr &e, QuantizeOp op) {
  auto xt = GraphExpr::typeOf(op.getInput());
  Type ft = GraphExpr::typeOf(op.getScale()).getElementType();
  int64_t axis = op.getAxis(), block = op.getBlockSize();
  Value s = broadcastQuantParam(e, op.getScale(), xt.getShape(), axis, block);
  Value q = e.op<RoundOp>({e.op<DivOp>({e.cast(op.getInput(), ft), s})});
  if (Value zp = op.getZeroPoint())
    q = e.op<AddOp>({q, e.cast(broadcastQuantParam(e, zp, xt.getShape(), axis, block), ft,
                               op.getUnsignedOutput())});
  // round(x / s) + zp is already integral: clamped, not rounded again.
  return clampTo(e, q, op.getType().getElementType(), op.getUnsignedOutput());
}

Value expandDequantize(GraphExpr &e, DequantizeOp op) {
  // (x - zp) in f32, as the reference computes it, times the scale.
  auto xt = GraphExpr::typeOf(op.getInput());
  Type f32 = e.b.getF32Type();
  int64_t axis = op.getAxis(), block = op.getBlockSize();
  Value d = e.cast(op.getInput(), f32, op.getUnsignedInput());
  if (Value zp = op.getZeroPoint())
    d = e.op<SubOp>({d, e.cast(broadcastQuantParam(e, zp, xt.getShape(), axis, block), f32,
                               op.getUnsignedInput())});
  Value s = e.cast(broadcastQuantParam(e, op.getScale(), xt.getShape(), axis, block), f32);
  return e.cast(e.op<MulOp>({d, s}), op.getType().getElementType());
}

/// The checks quantize and dequantize share: shapes, the zero point's type, the scale.
template <typename OpTy>
static LogicalResult verifyQuantOp(OpTy op, Type intType) {
  auto xt = GraphExpr::typeOf(op.getInput()), yt = GraphExpr::typeOf(op.getOutput());
  if (xt.getShape() != yt.getShape())
    return op.emitOpError("result shape ") << shapeText(yt.getShape())
                                             << " differs from the input's " << shapeText(xt.getShape());
  auto st = GraphExpr::typeOf(op.getScale());
  std::string why = quantParamError(st.getShape(), xt.getShape(), op.getAxis(), op.getBlockSize());
  if (!why.empty())
    return op.emitOpError(why);
  if (Value zp = op.getZeroPoint()) {
    auto zt = GraphExpr::typeOf(zp);
    if (zt.getNumElements() != st.getNumElements() ||
        !quantParamError(zt.getShape(), xt.getShape(), op.getAxis(), op.getBlockSize()).empty())
      return op.emitOpError("zero point shape ") << shapeText(zt.getShape())
                                                  << " does not match the scale's " << shapeText(st.getShape());
    if (zt.getElementType() != intType)
      return op.emitOpError("zero point must be ") << intType << ", got " << zt.getElementType();
  }
  return success();
}

LogicalResult QuantizeOp::verify() {
  return verifyQuantOp(*this, getType().getElementType());
}

LogicalResult DequantizeOp::verify() {
  return verifyQuantOp(*this, GraphExpr::typeOf(getInput()).getElementType());
}

bool isZeroConstant(Value v) {
  DenseElementsAttr dense;
  if (!v || !matchPattern(v, m_Constant(&dense)))
    return false;
  if (auto ints = dyn_cast<DenseIntElementsAttr>(dense))
    return llvm::all_of(ints.getValues<APInt>(), [](const APInt &x) { return x.isZero(); });
  return false;
}

std::optional<int64_t> constantScalar(Value v, bool isUnsigned) {
  if (!v)
    return 0;
  DenseIntElementsAttr dense;
  if (!matchPattern(v, m_Constant(&dense)) || dense.getNumElements() != 1)
    return std::nullopt;
  APInt x = *dense.getValues<APInt>().begin();
  return isUnsigned ? int64_t(x.getZExtValue()) : x.getSExtValue();
}

Value integerConv2d(GraphExpr &e, const QuantizedOperand &x, const QuantizedOperand &w,
                    DenseI64ArrayAttr strides, DenseI64ArrayAttr pads,
                    DenseI64ArrayAttr dilations, int64_t group) {
  auto wt = GraphExpr::typeOf(w.value), xt = GraphExpr::typeOf(x.value);
  if (e.failed || wt.getRank() != 4 || xt.getRank() != 4)
    return {};
  // Group 1, or depthwise (each channel its own filter: weights [C, 1, KH, KW]).
  bool depthwise = group == xt.getDimSize(1) && group == wt.getDimSize(0) && wt.getDimSize(1) == 1;
  if (group != 1 && !depthwise)
    return {};
  MLIRContext *ctx = e.b.getContext();
  Type i32 = e.b.getI32Type();
  Value input = x.value;
  std::optional<int64_t> zx = constantScalar(x.zeroPoint, x.zeroPointUnsigned);
  ArrayRef<int64_t> p = pads.asArrayRef();
  if (!zx && llvm::any_of(p, [](int64_t v) { return v != 0; })) {
    // A run-time zero point pads the input itself: zeros, then the border replaced.
    int64_t hp = xt.getDimSize(2) + p[0] + p[2], wp = xt.getDimSize(3) + p[1] + p[3];
    SmallVector<bool> inside(hp * wp);
    for (int64_t r = 0; r < hp; ++r)
      for (int64_t c = 0; c < wp; ++c)
        inside[r * wp + c] = r >= p[0] && r < hp - p[2] && c >= p[1] && c < wp - p[3];
    Value mask = e.constant(DenseElementsAttr::get(
        RankedTensorType::get({1, 1, hp, wp}, e.b.getI1Type()), ArrayRef<bool>(inside)));
    Value padded = e.pad(x.value, {0, 0, p[0], p[1], 0, 0, p[2], p[3]});
    input = e.where(mask, padded, e.reshape(x.zeroPoint, {}));
    pads = e.b.getDenseI64ArrayAttr({0, 0, 0, 0});
  }
  auto convOf = [&](Value weights, bool weightsUnsigned) {
    SmallVector<NamedAttribute> attrs = {e.named("strides", strides), e.named("pads", pads),
                                         e.named("dilations", dilations),
                                         e.named("group", e.b.getI64IntegerAttr(group))};
    if (x.isUnsigned)
      attrs.push_back(e.named("input_unsigned", UnitAttr::get(ctx)));
    if (weightsUnsigned)
      attrs.push_back(e.named("weight_unsigned", UnitAttr::get(ctx)));
    if (zx && *zx)
      attrs.push_back(e.named("pad_value", e.b.getI64IntegerAttr(*zx)));
    return e.op<ConvOp>({input, weights}, attrs);
  };
  int64_t f = wt.getDimSize(0), taps = wt.getNumElements() / f;
  Value y = convOf(w.value, w.isUnsigned);
  bool hasZx = !zx || *zx != 0;
  Value zxI = !hasZx ? Value()
              : zx   ? e.c(i32, double(*zx))
                     : e.reshape(e.cast(x.zeroPoint, i32, x.zeroPointUnsigned), {});
  if (hasZx) { // - zx * (sum of each output channel's weights)
    DenseIntElementsAttr weights;
    Value sums;
    if (matchPattern(w.value, m_Constant(&weights))) {
      std::vector<int32_t> s(f, 0);
      int64_t i = 0;
      for (const APInt &v : weights.getValues<APInt>())
        s[i++ / taps] += int32_t(w.isUnsigned ? v.getZExtValue() : v.getSExtValue());
      sums = e.constant(DenseElementsAttr::get(RankedTensorType::get({f, 1, 1}, i32),
                                               ArrayRef<int32_t>(s)));
    } else {
      sums = e.reshape(e.reduce<ReduceSumOp>(e.cast(w.value, i32, w.isUnsigned), {1, 2, 3}, true),
                       {f, 1, 1});
    }
    y = e.op<SubOp>({y, e.op<MulOp>({sums, zxI})});
  }
  if (w.zeroPoint && !isZeroConstant(w.zeroPoint)) { // - zw * (window sum of x - K * zx)
    // (depthwise: each channel's own window sums)
    auto ones = RankedTensorType::get({group == 1 ? 1 : wt.getDimSize(0), wt.getDimSize(1),
                                       wt.getDimSize(2), wt.getDimSize(3)},
                                      e.b.getI8Type());
    Value windows = convOf(e.constant(DenseElementsAttr::get(ones, e.b.getI8IntegerAttr(1))),
                           /*weightsUnsigned=*/false);
    if (hasZx)
      windows = e.op<SubOp>({windows, e.op<MulOp>({zxI, e.c(i32, double(taps))})});
    Value zw = e.cast(w.zeroPoint, i32, w.zeroPointUnsigned);
    zw = GraphExpr::typeOf(zw).getNumElements() > 1 ? e.reshape(zw, {f, 1, 1}) : e.reshape(zw, {});
    y = e.op<SubOp>({y, e.op<MulOp>({windows, zw})});
  }
  return y;
}

/// sum_k b[k, n] as an i32 constant [N] (broadcast along the rows) when `b` is a 2-D constant (weights), else null.
static Value constantColumnSums(GraphExpr &e, Value b, bool isUnsigned) {
  DenseIntElementsAttr dense;
  auto type = dyn_cast<RankedTensorType>(b.getType());
  if (!type || type.getRank() != 2 || !matchPattern(b, m_Constant(&dense)))
    return {};
  int64_t n = type.getDimSize(1);
  std::vector<int32_t> sums(n, 0);
  int64_t i = 0;
  for (const APInt &x : dense.getValues<APInt>()) {
    sums[i % n] += int32_t(isUnsigned ? x.getZExtValue() : x.getSExtValue());
    ++i;
  }
  return e.constant(DenseElementsAttr::get(RankedTensorType::get({n}, e.b.getI32Type()),
                                           ArrayRef<int32_t>(sums)));
}

Value integerMatMul(GraphExpr &e, const QuantizedOperand &a, const QuantizedOperand &b) {
  if (e.failed || !a.value || !b.value)
    return e.fail();
  Type i32 = e.b.getI32Type();
  auto at0 = GraphExpr::typeOf(a.value), bt0 = GraphExpr::typeOf(b.value);
  if (!at0.hasStaticShape() || !bt0.hasStaticShape()) {
    // Dynamic dims (dlc compile --dims): (a - za)(b - zb) as an f64 MatMul, exact for 8-bit
    // operands while K < 2^34.
    auto shifted = [&](const QuantizedOperand &q) {
      Value v = e.cast(q.value, i32, q.isUnsigned);
      if (q.zeroPoint && !isZeroConstant(q.zeroPoint))
        v = e.op<SubOp>({v, e.cast(q.zeroPoint, i32, q.zeroPointUnsigned)});
      return e.cast(v, e.b.getF64Type());
    };
    return e.cast(e.op<MatMulOp>({shifted(a), shifted(b)}), i32);
  }
  SmallVector<NamedAttribute> flags;
  if (a.isUnsigned)
    flags.push_back(e.named("lhs_unsigned", e.b.getUnitAttr()));
  if (b.isUnsigned)
    flags.push_back(e.named("rhs_unsigned", e.b.getUnitAttr()));
  Value y = e.op<MatMulIntegerOp>({a.value, b.value}, flags);
  Value za = isZeroConstant(a.zeroPoint) ? Value() : a.zeroPoint;
  Value zb = isZeroConstant(b.zeroPoint) ? Value() : b.zeroPoint;
  if (!za && !zb)
    return y;
  auto at = GraphExpr::typeOf(a.value), bt = GraphExpr::typeOf(b.value);
  int64_t k = at.getShape().back();
  Value zaI = za ? e.cast(za, i32, a.zeroPointUnsigned) : Value();
  Value zbI = zb ? e.cast(zb, i32, b.zeroPointUnsigned) : Value();
  if (zb) { // - zb * sum_k a[m, k]: per row, at run time
    Value rows = e.reduce<ReduceSumOp>(e.cast(a.value, i32, a.isUnsigned), {at.getRank() - 1},
                                       /*keepdims=*/true);
    y = e.op<SubOp>({y, e.op<MulOp>({rows, zbI})});
  }
  if (za) { // - za * sum_k b[k, n]: per column (computed here when b is a constant)
    Value cols = constantColumnSums(e, b.value, b.isUnsigned);
    if (!cols)
      cols = e.reduce<ReduceSumOp>(e.cast(b.value, i32, b.isUnsigned), {bt.getRank() - 2},
                                   /*keepdims=*/true);
    y = e.op<SubOp>({y, e.op<MulOp>({zaI, cols})});
  }
  if (za && zb)
    y = e.op<AddOp>({y, e.op<MulOp>({e.op<MulOp>({zaI, zbI}), e.c(i32, double(k))})});
  return y;
}

} // namespace dlc::graph
