// ONNX integer quantization as function bodies: QuantizeLinear / DequantizeLinear (per
// tensor, per axis, blocked), DynamicQuantizeLinear, MatMulInteger, ConvInteger,
// QLinearMatMul and QLinearConv. Products are dlc_graph.matmul_integer and 8-bit convs with
// i32 zero-point corrections (grouped convolutions other than depthwise: exactly in f64).
#include "frontends/Onnx/Expr.h"
#include "frontends/Onnx/LowPrecision.h"
#include "dialects/Graph/IR/QuantizedMath.h"

#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

using Results = SmallVectorImpl<Value>;

using dlc::graph::broadcastQuantParam;
using dlc::graph::saturateTo;

/// broadcastQuantParam after checking the shape (null, error at the node, when it does
/// not fit).
Value broadcastParam(Expr &e, Value p, ArrayRef<int64_t> xShape, int64_t axis, int64_t block) {
  if (e.failed || !p) // an earlier builder failed
    return Value();
  std::string why = dlc::graph::quantParamError(tensorType(p).getShape(), xShape, axis, block);
  if (!why.empty()) {
    (void)e.n.error(why);
    return e.fail();
  }
  return broadcastQuantParam(e, p, xShape, axis, block);
}

/// The attributes of a quantize / dequantize op.
SmallVector<NamedAttribute> quantAttrs(NodeImporter &n, int64_t axis, int64_t block,
                                       StringRef unsignedFlag, bool isUnsigned) {
  SmallVector<NamedAttribute> attrs = {n.named("axis", n.b.getI64IntegerAttr(axis)),
                                       n.named("block_size", n.b.getI64IntegerAttr(block))};
  if (isUnsigned)
    attrs.push_back(n.named(unsignedFlag, n.b.getUnitAttr()));
  return attrs;
}

struct QuantAxis {
  int64_t axis, block;
};

/// A constant scale (input `i`) must be positive (ONNX: scale > 0); a zero, negative or
/// NaN one is an error naming the node and the input.
LogicalResult checkScale(NodeImporter &n, unsigned i, StringRef what = "scale") {
  DenseFPElementsAttr values;
  if (!n.input(i) || !matchPattern(n.input(i), m_Constant(&values)))
    return success();
  for (APFloat v : values.getValues<APFloat>())
    if (v.isNaN() || v.isZero() || v.isNegative()) {
      bool lost = false;
      (void)v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
      return n.error(what + " must be positive, got " +
                     Twine(v.isNaN() ? std::string("NaN") : std::to_string(v.convertToDouble())));
    }
  return success();
}

/// ONNX's name of an 8-, 16- or 32-bit integer type as the importer stores it.
std::string integerTypeName(NodeImporter &n, unsigned i) {
  unsigned bits = tensorType(n.input(i)).getElementTypeBitWidth();
  return (n.isUnsigned(i) ? "uint" : "int") + std::to_string(bits);
}

/// A zero point (input `zp`, if given) holds values of its quantized tensor's type (input
/// `x`): the same width and signedness (ONNX: "same type as x"), else an error naming both.
LogicalResult checkZeroPoint(NodeImporter &n, unsigned x, unsigned zp, StringRef xName,
                             StringRef zpName) {
  Value z = n.input(zp), v = n.input(x);
  if (!z || !v || !isa<IntegerType>(tensorType(z).getElementType()) ||
      !isa<IntegerType>(tensorType(v).getElementType()) || n.storedType(zp) || n.storedType(x))
    return success();
  if (tensorType(z).getElementType() == tensorType(v).getElementType() &&
      n.isUnsigned(zp) == n.isUnsigned(x))
    return success();
  return n.error(zpName + " must have the type of " + xName + " (" + integerTypeName(n, x) +
                 "), got " + integerTypeName(n, zp));
}

/// The quantization axis and block size; the axis only matters for a non-scalar scale.
/// The scale (input 1) must be positive where it is a constant (checkScale).
FailureOr<QuantAxis> quantAxis(NodeImporter &n, int64_t rank, Value scale) {
  if (failed(checkScale(n, 1)))
    return failure();
  auto axis = n.intAttr("axis", 1), block = n.intAttr("block_size", 0);
  DLC_TRY(axis);
  DLC_TRY(block);
  int64_t count = tensorType(scale).getNumElements();
  if ((*block == 0 || rank == 0) && count == 1)
    return QuantAxis{0, 0};
  if (rank == 0) // a per-axis scale needs an axis to follow
    return n.error("a scalar input needs a one-element scale, got " + Twine(count) +
                   " elements");
  auto a = n.normalizeAxis(*axis, rank);
  DLC_TRY(a);
  if (*block < 0)
    return n.error("block_size must be non-negative");
  return QuantAxis{*a, *block};
}

LogicalResult quantizeLinear(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0), scale = n.requiredInput(1);
  DLC_TRY(x);
  DLC_TRY(scale);
  Value zp = n.input(2);
  auto xt = tensorType(*x);
  auto qa = quantAxis(n, xt.getRank(), *scale);
  DLC_TRY(qa);
  Type to = n.b.getIntegerType(8);
  bool isUnsigned = true;
  int stored = 0; // a low-precision target (float8, float4, int4, int2)
  if (zp) {
    to = tensorType(zp).getElementType();
    isUnsigned = n.isUnsigned(2);
    stored = n.storedType(2);
  } else if (n.hasAttr("output_dtype")) {
    auto dt = n.intAttr("output_dtype", 2);
    DLC_TRY(dt);
    to = elementTypeFor(n.b.getContext(), *dt);
    isUnsigned = isUnsignedOnnxType(*dt);
    stored = isStoredAsI8(*dt) ? *dt : 0;
  }
  if (!to || !isa<IntegerType>(to) || to.isInteger(1) || to.getIntOrFloatBitWidth() > 16)
    return n.error("unsupported quantized output type");
  auto saturate = n.intAttr("saturate", 1);
  DLC_TRY(saturate);
  Type ft = tensorType(*scale).getElementType();
  if (!isa<FloatType>(ft))
    return n.error("the scale must be floating-point");
  Expr e{n, ft};
  if (!isLowPrecisionFloat(stored) && !isSubByteInt(stored)) { // 8 and 16 bits
    SmallVector<Value> operands = {e.cast(*x, ft), *scale};
    if (zp)
      operands.push_back(zp);
    auto y = n.create<QuantizeOp>(operands, quantAttrs(n, qa->axis, qa->block, "unsigned_output", isUnsigned),
                                  {RankedTensorType::get(xt.getShape(), to)});
    DLC_TRY(y);
    if (isUnsigned)
      n.markUnsigned(*y);
    out.push_back(*y);
    return success();
  }
  Value s = broadcastParam(e, *scale, xt.getShape(), qa->axis, qa->block);
  Value scaled = e.op<DivOp>({e.cast(*x, ft), s});
  Value zb = zp ? broadcastParam(e, zp, xt.getShape(), qa->axis, qa->block) : Value();
  if (isLowPrecisionFloat(stored)) {
    // Float targets: x / scale (+ the decoded zero point), rounded by the encoding.
    if (zp) {
      auto zd = decodeLowPrecision(n, zb, stored);
      DLC_TRY(zd);
      scaled = e.op<AddOp>({scaled, e.cast(*zd, ft)});
    }
    if (e.failed)
      return failure();
    auto y = encodeLowPrecision(n, scaled, stored, *saturate != 0);
    DLC_TRY(y);
    n.markStored(*y, stored);
    out.push_back(*y);
    return success();
  }
  // int4 / int2 stored in bytes: clipped to the narrow range.
  Value q = e.op<RoundOp>({scaled});
  if (zp)
    q = e.op<AddOp>({q, e.cast(zb, ft, isUnsigned)});
  int bits = (stored == kInt4 || stored == kUInt4) ? 4 : 2;
  bool sgn = stored == kInt4 || stored == kInt2;
  double lo = sgn ? -std::ldexp(1.0, bits - 1) : 0,
         hi = sgn ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
  Value y = e.cast(e.op<MaxOp>({e.op<MinOp>({q, e.c(ft, hi)}), e.c(ft, lo)}), to);
  if (e.failed)
    return failure();
  n.markStored(y, stored);
  out.push_back(y);
  return success();
}

LogicalResult dequantizeLinear(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0), scale = n.requiredInput(1);
  DLC_TRY(x);
  DLC_TRY(scale);
  Value zp = n.input(2);
  auto xt = tensorType(*x);
  if (!isa<IntegerType>(xt.getElementType()))
    return n.error("only integer and low-precision inputs are supported");
  int stored = n.storedType(0);
  auto qa = quantAxis(n, xt.getRank(), *scale);
  DLC_TRY(qa);
  if (failed(checkZeroPoint(n, 0, 2, "x", "x_zero_point")))
    return failure();
  Type ft = tensorType(*scale).getElementType();
  if (!isa<FloatType>(ft))
    return n.error("the scale must be floating-point");
  Type outElt = ft;
  if (n.hasAttr("output_dtype")) {
    auto dt = n.intAttr("output_dtype", 1);
    DLC_TRY(dt);
    if (*dt) {
      outElt = elementTypeFor(n.b.getContext(), *dt);
      if (!outElt || !isa<FloatType>(outElt))
        return n.error("unsupported output_dtype " + Twine(*dt));
    }
  }
  unsigned width = xt.getElementTypeBitWidth();
  if (!isLowPrecisionFloat(stored) && (width == 8 || width == 16 || width == 32)) {
    SmallVector<Value> operands = {*x, *scale};
    if (zp)
      operands.push_back(zp);
    auto y = n.create<DequantizeOp>(operands, quantAttrs(n, qa->axis, qa->block, "unsigned_input", n.isUnsigned(0)),
                                    {RankedTensorType::get(xt.getShape(), outElt)});
    DLC_TRY(y);
    out.push_back(*y);
    return success();
  }
  if (!isLowPrecisionFloat(stored))
    return n.error("only 8-, 16- and 32-bit integer and low-precision inputs are supported");
  // (x - zp) in f32, as the reference computes it, times the scale.
  Type f32 = n.b.getF32Type();
  Expr e{n, f32};
  Value zb = zp ? broadcastParam(e, zp, xt.getShape(), qa->axis, qa->block) : Value();
  auto xd = decodeLowPrecision(n, *x, stored);
  DLC_TRY(xd);
  Value d = *xd;
  if (zb) {
    if (n.storedType(2) && n.storedType(2) != stored)
      return n.error("x_zero_point must have the type of x");
    auto zd = decodeLowPrecision(n, zb, stored);
    DLC_TRY(zd);
    d = e.op<SubOp>({d, *zd});
  }
  Value y = e.op<MulOp>({d, e.cast(broadcastParam(e, *scale, xt.getShape(), qa->axis, qa->block), f32)});
  y = e.cast(y, outElt);
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

LogicalResult dynamicQuantizeLinear(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  auto xt = tensorType(*x);
  Type ft = xt.getElementType();
  if (!isa<FloatType>(ft))
    return n.error("expects a floating-point input");
  Expr e{n, ft};
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < xt.getRank(); ++d)
    all.push_back(d);
  Value mn = e.op<MinOp>({e.reduce<ReduceMinOp>(*x, all, false), e.c(0)});
  Value mx = e.op<MaxOp>({e.reduce<ReduceMaxOp>(*x, all, false), e.c(0)});
  Value scale = e.op<DivOp>({e.op<SubOp>({mx, mn}), e.c(255)});
  Type u8 = n.b.getIntegerType(8);
  Value zpF = e.op<MaxOp>({e.op<MinOp>({e.op<RoundOp>({e.op<SubOp>({e.c(0), e.op<DivOp>({mn, scale})})}),
                                        e.c(255)}),
                           e.c(0)});
  Value y = dlc::graph::clampTo(e, e.op<AddOp>({e.op<RoundOp>({e.op<DivOp>({*x, scale})}), zpF}),
                                u8, true);
  Value zp = e.cast(zpF, u8);
  if (e.failed)
    return failure();
  n.markUnsigned(y);
  n.markUnsigned(zp);
  out.append({y, scale, zp});
  return success();
}

/// (a - a_zp) @ (b - b_zp) exactly in i32 (QuantizedMath.h); a_zp per row or scalar,
/// b_zp per column or scalar.
Value integerMatMul(Expr &e, NodeImporter &n, unsigned a, unsigned b, unsigned azp, unsigned bzp) {
  Value A = n.input(a), B = n.input(b), Az = n.input(azp), Bz = n.input(bzp);
  if (!A || !B)
    return e.fail();
  if (!tensorType(A).getElementType().isInteger(8) || !tensorType(B).getElementType().isInteger(8)) {
    (void)n.error("expects 8-bit integer operands");
    return e.fail();
  }
  if (Az && tensorType(Az).getNumElements() > 1) // per row: [M] -> [M, 1]
    Az = e.reshape(Az, {tensorType(Az).getNumElements(), 1});
  return dlc::graph::integerMatMul(e, {A, n.isUnsigned(a), Az, Az && n.isUnsigned(azp)},
                                   {B, n.isUnsigned(b), Bz, Bz && n.isUnsigned(bzp)});
}

LogicalResult matMulInteger(NodeImporter &n, Results &out) {
  auto a = n.requiredInput(0), b = n.requiredInput(1);
  DLC_TRY(a);
  DLC_TRY(b);
  if (failed(checkZeroPoint(n, 0, 2, "A", "a_zero_point")) ||
      failed(checkZeroPoint(n, 1, 3, "B", "b_zero_point")))
    return failure();
  Expr e{n, n.b.getI32Type()};
  Value y = integerMatMul(e, n, 0, 1, 2, 3);
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

/// Requantizes an exact f64 accumulator: rint(acc * (s1 * s2 / s3) + zp) saturated.
Value requantize(Expr &e, NodeImporter &n, Value acc, Value s1, Value s2, Value s3, Value zp,
                 bool zpUnsigned, Type to) {
  Type f64 = n.b.getF64Type();
  Value ratio = e.op<DivOp>({e.op<MulOp>({s1, s2}), s3}); // in the scales' type, as the reference
  Value d = e.op<MulOp>({acc, e.cast(ratio, f64)});
  if (zp)
    d = e.op<AddOp>({d, e.cast(zp, f64, zpUnsigned)});
  return saturateTo(e, d, to, zpUnsigned);
}

/// QLinearMatMul / QLinearConv: positive constant scales (inputs 1, 4, 6), and zero points
/// (2, 5) of their operands' types (0, 3).
LogicalResult checkQLinearParams(NodeImporter &n, StringRef a, StringRef b) {
  if (failed(checkScale(n, 1, (a + "_scale").str())) ||
      failed(checkScale(n, 4, (b + "_scale").str())) || failed(checkScale(n, 6, "y_scale")))
    return failure();
  return failure(failed(checkZeroPoint(n, 0, 2, a, (a + "_zero_point").str())) ||
                 failed(checkZeroPoint(n, 3, 5, b, (b + "_zero_point").str())));
}

LogicalResult qlinearMatMul(NodeImporter &n, Results &out) {
  for (unsigned i : {0u, 1u, 3u, 4u, 6u})
    DLC_TRY(n.requiredInput(i));
  if (failed(checkQLinearParams(n, "a", "b")))
    return failure();
  Expr e{n, n.b.getF64Type()};
  Value acc = e.cast(integerMatMul(e, n, 0, 3, 2, 5), n.b.getF64Type());
  Value yzp = n.input(7);
  Type to = yzp ? tensorType(yzp).getElementType() : tensorType(n.input(0)).getElementType();
  bool u = yzp ? n.isUnsigned(7) : n.isUnsigned(0);
  Value y = requantize(e, n, acc, n.input(1), n.input(4), n.input(6), yzp, u, to);
  if (e.failed)
    return failure();
  if (u)
    n.markUnsigned(y);
  out.push_back(y);
  return success();
}

/// (x - zero_point) as floats of `ft`, honoring unsigned storage.
Value centered(Expr &e, NodeImporter &n, Value x, bool xUnsigned, Value zp, bool zpUnsigned,
               Type ft) {
  Value xf = e.cast(x, ft, xUnsigned);
  return zp ? e.op<SubOp>({xf, e.cast(zp, ft, zpUnsigned)}) : xf;
}

/// Conv of (x - x_zp) and (w - w_zp per output channel), + int32 bias, as f64: an exact
/// 8-bit conv where it applies, else the centered operands' conv in f64.
Value integerConv(Expr &e, NodeImporter &n, unsigned x, unsigned w, unsigned xzp, unsigned wzp,
                  Value bias) {
  Type f64 = n.b.getF64Type();
  Value X = n.input(x), W = n.input(w), Wz = n.input(wzp);
  auto wt = tensorType(W);
  if (wt.getRank() != 4) { // before the ranks below are used
    (void)n.error("only 2-D integer convolutions with explicit pads are supported");
    return e.fail();
  }
  if (Wz && tensorType(Wz).getNumElements() > 1) {
    SmallVector<int64_t> s(wt.getRank(), 1);
    s[0] = tensorType(Wz).getNumElements();
    Wz = e.reshape(Wz, s);
  }
  if (!tensorType(X).hasStaticShape() || !wt.hasStaticShape()) {
    // Over dynamic dims (--dims): an exact f64 Conv of the centered operands (sums of
    // 8-bit products stay far below 2^53), sized as Conv is.
    Value xc = centered(e, n, X, n.isUnsigned(x), n.input(xzp),
                        n.input(xzp) && n.isUnsigned(xzp), f64);
    Value wc = centered(e, n, W, n.isUnsigned(w), Wz, Wz && n.isUnsigned(wzp), f64);
    SmallVector<Value> y;
    if (e.failed || failed(convOf(n, xc, wc, bias ? e.cast(bias, f64) : Value(), y)))
      return e.fail();
    return y[0];
  }
  auto kernel = n.intsAttr("kernel_shape", wt.getShape().drop_front(2));
  auto strides = n.intsAttr("strides", SmallVector<int64_t>(wt.getRank() - 2, 1));
  auto dil = n.intsAttr("dilations", SmallVector<int64_t>(wt.getRank() - 2, 1));
  auto pads = n.intsAttr("pads", SmallVector<int64_t>(2 * (wt.getRank() - 2), 0));
  auto group = n.intAttr("group", 1);
  auto autoPad = n.stringAttr("auto_pad", "NOTSET");
  if (failed(kernel) || failed(strides) || failed(dil) || failed(pads) || failed(group) ||
      failed(autoPad))
    return e.fail();
  if (*autoPad != "NOTSET") {
    (void)n.error("only 2-D integer convolutions with explicit pads are supported");
    return e.fail();
  }
  if (*group < 1 || !(I64c(wt.getDimSize(1)) * *group).ok()) {
    (void)n.error("group must be >= 1 and fit the weight's " + Twine(wt.getDimSize(1)) +
                  " input channels, got " + Twine(*group));
    return e.fail();
  }
  // 8-bit operands, group 1 or depthwise: an exact 8-bit conv (i32) and its
  // zero-point corrections, the bias added in i32 (QuantizedMath.h).
  if (tensorType(X).getElementType().isInteger(8) && tensorType(W).getElementType().isInteger(8)) {
    Value xz = n.input(xzp);
    Value acc = dlc::graph::integerConv2d(
        e, {X, n.isUnsigned(x), xz, xz && n.isUnsigned(xzp)},
        {W, n.isUnsigned(w), Wz, Wz && n.isUnsigned(wzp)}, n.b.getDenseI64ArrayAttr(*strides),
        n.b.getDenseI64ArrayAttr(*pads), n.b.getDenseI64ArrayAttr(*dil), *group);
    if (acc) {
      if (bias)
        acc = e.op<AddOp>({acc, e.reshape(e.cast(bias, n.b.getI32Type()),
                                          {tensorType(bias).getNumElements(), 1, 1})});
      return e.cast(acc, f64);
    }
  }
  Value xc = centered(e, n, X, n.isUnsigned(x), n.input(xzp), n.input(xzp) && n.isUnsigned(xzp), f64);
  Value wc = centered(e, n, W, n.isUnsigned(w), Wz, Wz && n.isUnsigned(wzp), f64);
  SmallVector<Value> ops = {xc, wc};
  if (bias)
    ops.push_back(e.cast(bias, f64));
  if (e.failed)
    return {};
  auto y = n.create<ConvOp>(ops, {n.named("strides", n.b.getDenseI64ArrayAttr(*strides)),
                                  n.named("pads", n.b.getDenseI64ArrayAttr(*pads)),
                                  n.named("dilations", n.b.getDenseI64ArrayAttr(*dil)),
                                  n.named("group", n.b.getI64IntegerAttr(*group))});
  return failed(y) ? e.fail() : *y;
}

LogicalResult convInteger(NodeImporter &n, Results &out) {
  DLC_TRY(n.requiredInput(0));
  DLC_TRY(n.requiredInput(1));
  if (failed(checkZeroPoint(n, 0, 2, "x", "x_zero_point")) ||
      failed(checkZeroPoint(n, 1, 3, "w", "w_zero_point")))
    return failure();
  Expr e{n, n.b.getF64Type()};
  Value y = e.cast(integerConv(e, n, 0, 1, 2, 3, Value()), n.b.getI32Type());
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

LogicalResult qlinearConv(NodeImporter &n, Results &out) {
  for (unsigned i : {0u, 1u, 3u, 4u, 6u})
    DLC_TRY(n.requiredInput(i));
  if (failed(checkQLinearParams(n, "x", "w")))
    return failure();
  Expr e{n, n.b.getF64Type()};
  Value acc = integerConv(e, n, 0, 3, 2, 5, n.input(8));
  Value ws = n.input(4);
  if (tensorType(ws).getNumElements() > 1)
    ws = e.reshape(ws, {1, tensorType(ws).getNumElements(), 1, 1});
  Value yzp = n.input(7);
  Type to = yzp ? tensorType(yzp).getElementType() : tensorType(n.input(0)).getElementType();
  bool u = yzp ? n.isUnsigned(7) : n.isUnsigned(0);
  Value y = requantize(e, n, acc, n.input(1), ws, n.input(6), yzp, u, to);
  if (e.failed)
    return failure();
  if (u)
    n.markUnsigned(y);
  out.push_back(y);
  return success();
}

const OpBuilderEntry kQuant[] = {
    {"QuantizeLinear", 10, quantizeLinear},
    {"DequantizeLinear", 10, dequantizeLinear},
    {"DynamicQuantizeLinear", 11, dynamicQuantizeLinear},
    {"MatMulInteger", 10, matMulInteger},
    {"ConvInteger", 10, convInteger},
    {"QLinearMatMul", 10, qlinearMatMul},
    {"QLinearConv", 10, qlinearConv},
};

} // namespace

ArrayRef<OpBuilderEntry> quantBuilders() { return kQuant; }

} // namespace dlc::onnx_frontend
