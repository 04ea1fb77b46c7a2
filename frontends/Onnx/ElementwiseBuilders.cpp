// ONNX elementwise, activation and comparison ops -> dlc_graph (one table row per op).
#include "frontends/Onnx/LowPrecision.h"
#include "frontends/Onnx/NodeImporter.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

using Results = SmallVectorImpl<Value>;

template <typename OpTy> LogicalResult unary(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  auto r = n.create<OpTy>({*x});
  DLC_TRY(r);
  out.push_back(*r);
  return success();
}

/// Binary ops; variadic ONNX forms (Max, Min, Sum, Mean) fold left.
template <typename OpTy> LogicalResult binary(NodeImporter &n, Results &out) {
  auto acc = n.requiredInput(0);
  DLC_TRY(acc);
  Value r = *acc;
  for (unsigned i = 1; i < n.numInputs(); ++i) {
    auto rhs = n.requiredInput(i);
    DLC_TRY(rhs);
    auto next = n.create<OpTy>({r, *rhs});
    DLC_TRY(next);
    r = *next;
  }
  out.push_back(r);
  return success();
}

LogicalResult identity(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  if (isSequence(*x) || isNone(*x)) { // sequences and optionals pass through
    out.push_back(*x);
    return success();
  }
  auto r = n.create<IdentityOp>({*x});
  DLC_TRY(r);
  out.push_back(*r);
  return success();
}

LogicalResult dropout(NodeImporter &n, Results &out) {
  // Training mode (opset 12+: input 2) drops at random unless the ratio is 0.
  if (n.input(2)) {
    auto training = n.constantInput(2);
    DLC_TRY(training);
    if (training->getNumElements() != 1 || !isa<IntegerType>(training->getElementType()))
      return n.error("training_mode must be a one-element bool tensor");
    bool on = training->getElementType().isInteger(1) ? *training->value_begin<bool>()
                                                       : !(*training->value_begin<APInt>()).isZero();
    double ratio = 0.5;
    if (n.input(1)) {
      auto r = n.constantInput(1);
      DLC_TRY(r);
      if (r->getNumElements() != 1)
        return n.error("ratio must be a one-element tensor");
      ratio = isa<FloatType>(r->getElementType()) ? (*r->value_begin<APFloat>()).convertToDouble() : 1;
    }
    if (on && ratio != 0)
      return n.error("training-mode Dropout (random masks) is not supported");
  }
  // Inference: output = input; the optional mask is all true.
  DLC_TRY(identity(n, out));
  if (n.numUsedOutputs() > 1) {
    auto t = tensorType(out[0]);
    if (t.hasStaticShape()) {
      out.push_back(n.constant(DenseElementsAttr::get(
          RankedTensorType::get(t.getShape(), n.b.getI1Type()), true)));
    } else { // dynamic dims: a true broadcast to the input's sizes
      auto dims = n.symbolicDims(out[0]);
      if (!dims)
        return n.error("the sizes of input 0's dynamic dims are not known");
      auto mask = n.expandTo(n.constant(DenseElementsAttr::get(
                                 RankedTensorType::get({}, n.b.getI1Type()), true)),
                             *dims);
      DLC_TRY(mask);
      out.push_back(*mask);
    }
  }
  return success();
}

LogicalResult mean(NodeImporter &n, Results &out) {
  DLC_TRY(binary<AddOp>(n, out));
  Value s = out.pop_back_val();
  auto r = n.create<DivOp>({s, n.scalarConstant(tensorType(s).getElementType(), n.numInputs())});
  DLC_TRY(r);
  out.push_back(*r);
  return success();
}

LogicalResult pow(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0), y = n.requiredInput(1);
  DLC_TRY(x);
  DLC_TRY(y);
  Value e = *y;
  Type elt = tensorType(*x).getElementType();
  if (tensorType(e).getElementType() != elt) {
    auto c = n.create<CastOp>({e}, {}, {RankedTensorType::get(tensorType(e).getShape(), elt)});
    DLC_TRY(c);
    e = *c;
  }
  auto r = n.create<PowOp>({*x, e});
  DLC_TRY(r);
  out.push_back(*r);
  return success();
}

LogicalResult leakyRelu(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto alpha = n.floatAttr("alpha", 0.01f);
  DLC_TRY(x);
  DLC_TRY(alpha);
  auto r = n.create<LeakyReluOp>({*x}, {n.named("alpha", n.b.getF32FloatAttr(*alpha))});
  DLC_TRY(r);
  out.push_back(*r);
  return success();
}

LogicalResult gelu(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto approx = n.stringAttr("approximate", "none");
  DLC_TRY(x);
  DLC_TRY(approx);
  auto r = n.create<GeluOp>({*x}, {n.named("approximate", n.b.getStringAttr(*approx))});
  DLC_TRY(r);
  out.push_back(*r);
  return success();
}

LogicalResult clip(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  Type elt = tensorType(*x).getElementType();
  Value lo = n.input(1), hi = n.input(2);
  if (n.opset < 11) {
    auto mn = n.floatAttr("min", -INFINITY), mx = n.floatAttr("max", INFINITY);
    DLC_TRY(mn);
  DLC_TRY(mx);
    lo = n.scalarConstant(elt, *mn);
    hi = n.scalarConstant(elt, *mx);
  }
  auto extreme = [&](bool lowest) {
    if (auto ft = dyn_cast<FloatType>(elt))
      return n.constant(DenseElementsAttr::get(
          RankedTensorType::get({}, elt), APFloat::getInf(ft.getFloatSemantics(), lowest)));
    unsigned w = elt.getIntOrFloatBitWidth();
    return n.constant(DenseElementsAttr::get(
        RankedTensorType::get({}, elt),
        lowest ? APInt::getSignedMinValue(w) : APInt::getSignedMaxValue(w)));
  };
  if (!lo)
    lo = extreme(true);
  if (!hi)
    hi = extreme(false);
  auto r = n.create<ClipOp>({*x, lo, hi});
  DLC_TRY(r);
  out.push_back(*r);
  return success();
}

/// Cast of input 0 to ONNX type `to` (element type `elt`), through f32 / i64 when
/// either side is a low-precision type held as i8.
LogicalResult castTo(NodeImporter &n, Value x, int to, Type elt, Results &out) {
  int from = n.storedType(0);
  auto sat = n.intAttr("saturate", 1);
  DLC_TRY(sat);
  if (!isStoredAsI8(from) && !isStoredAsI8(to)) {
    SmallVector<NamedAttribute> attrs;
    if (n.isUnsigned(0))
      attrs.push_back(n.named("unsigned_input", n.b.getUnitAttr()));
    auto r = n.create<CastOp>({x}, attrs, {RankedTensorType::get(tensorType(x).getShape(), elt)});
    DLC_TRY(r);
    out.push_back(*r);
    return success();
  }
  Value v = x;
  bool fromUnsigned = n.isUnsigned(0) || from == kUInt4 ||
                      from == kUInt2;
  if (isLowPrecisionFloat(from)) {
    auto d = decodeLowPrecision(n, v, from);
    DLC_TRY(d);
    v = *d;
    fromUnsigned = false;
  }
  auto castValue = [&](Value in, Type t) -> FailureOr<Value> {
    if (tensorType(in).getElementType() == t)
      return in;
    SmallVector<NamedAttribute> attrs;
    if (fromUnsigned)
      attrs.push_back(n.named("unsigned_input", n.b.getUnitAttr()));
    return n.create<CastOp>({in}, attrs, {RankedTensorType::get(tensorType(in).getShape(), t)});
  };
  FailureOr<Value> r;
  if (isLowPrecisionFloat(to)) {
    auto f = castValue(v, n.b.getF32Type());
    DLC_TRY(f);
    auto roundMode = n.stringAttr("round_mode", "up");
    DLC_TRY(roundMode);
    if (*roundMode != "up" && *roundMode != "down" && *roundMode != "nearest")
      return n.error("round_mode must be up, down or nearest, got '" + *roundMode + "'");
    r = encodeLowPrecision(n, *f, to, *sat != 0, *roundMode);
  } else if (isSubByteInt(to)) {
    auto i = castValue(v, n.b.getI64Type()); // floats truncate toward zero
    DLC_TRY(i);
    r = wrapSubByte(n, *i, to);
  } else {
    r = castValue(v, elt);
  }
  DLC_TRY(r);
  if (isStoredAsI8(to))
    n.markStored(*r, to);
  out.push_back(*r);
  return success();
}

LogicalResult cast(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto to = n.intAttr("to", 0);
  DLC_TRY(x);
  DLC_TRY(to);
  Type elt = elementTypeFor(n.b.getContext(), *to);
  if (!elt)
    return n.error("unsupported target data type " + Twine(*to));
  return castTo(n, *x, *to, elt, out);
}

/// BitCast: the same bits as data type `to` (same width).
LogicalResult bitCast(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto to = n.intAttr("to", 0);
  DLC_TRY(x);
  DLC_TRY(to);
  Type elt = elementTypeFor(n.b.getContext(), *to);
  if (!elt)
    return n.error("unsupported target data type " + Twine(*to));
  auto type = RankedTensorType::get(tensorType(*x).getShape(), elt);
  // A bool is one byte holding 0 or 1: to and from 8-bit integers that is a cast.
  Type from = tensorType(*x).getElementType();
  if ((from.isInteger(1) && elt.isInteger(8)) || (elt.isInteger(1) && from.isInteger(8))) {
    auto c = n.create<CastOp>({*x}, {}, {type});
    DLC_TRY(c);
    out.push_back(*c);
    return success();
  }
  auto r = n.create<BitcastOp>({*x}, {}, {type});
  DLC_TRY(r);
  out.push_back(*r);
  return success();
}

/// CastLike: Cast to the type of input 1.
LogicalResult castLike(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0), like = n.requiredInput(1);
  DLC_TRY(x);
  DLC_TRY(like);
  Type elt = tensorType(*like).getElementType();
  int to = n.storedType(1);
  if (!to)
    to = n.isUnsigned(1) ? (elt.isInteger(8) ? onnx::TensorProto::UINT8
                            : elt.isInteger(16) ? onnx::TensorProto::UINT16
                            : elt.isInteger(32) ? onnx::TensorProto::UINT32
                                                : onnx::TensorProto::UINT64)
                         : onnxTypeFor(elt);
  DLC_TRY(castTo(n, *x, to, elt, out));
  if (n.isUnsigned(1))
    n.markUnsigned(out.back());
  return success();
}

LogicalResult isNaN(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  if (!isa<FloatType>(tensorType(*x).getElementType()))
    return n.error("expects a floating-point input");
  auto r = n.create<IsNaNOp>({*x}, {}, {RankedTensorType::get(tensorType(*x).getShape(), n.b.getI1Type())});
  DLC_TRY(r);
  out.push_back(*r);
  return success();
}

LogicalResult isInf(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto pos = n.intAttr("detect_positive", 1), neg = n.intAttr("detect_negative", 1);
  DLC_TRY(x);
  DLC_TRY(pos);
  DLC_TRY(neg);
  if (!isa<FloatType>(tensorType(*x).getElementType()))
    return n.error("expects a floating-point input");
  auto r = n.create<IsInfOp>({*x},
                             {n.named("detect_positive", n.b.getBoolAttr(*pos != 0)),
                              n.named("detect_negative", n.b.getBoolAttr(*neg != 0))},
                             {RankedTensorType::get(tensorType(*x).getShape(), n.b.getI1Type())});
  DLC_TRY(r);
  out.push_back(*r);
  return success();
}

/// BitShift: direction LEFT or RIGHT (logical for unsigned, arithmetic for signed
/// integers); counts out of range shift every bit out.
LogicalResult bitShift(NodeImporter &n, Results &out) {
  auto dir = n.stringAttr("direction", "");
  DLC_TRY(dir);
  if (*dir == "LEFT")
    return binary<ShiftLeftOp>(n, out);
  if (*dir == "RIGHT")
    return n.isUnsigned(0) ? binary<ShiftRightOp>(n, out) : binary<ShiftRightArithOp>(n, out);
  return n.error("direction must be LEFT or RIGHT, got '" + *dir + "'");
}

LogicalResult where(NodeImporter &n, Results &out) {
  auto c = n.requiredInput(0), x = n.requiredInput(1), y = n.requiredInput(2);
  DLC_TRY(c);
  DLC_TRY(x);
  DLC_TRY(y);
  auto r = n.create<WhereOp>({*c, *x, *y});
  DLC_TRY(r);
  out.push_back(*r);
  return success();
}

/// Mod: fmod=0 takes the divisor's sign (integers only in ONNX), fmod=1 the dividend's.
LogicalResult mod(NodeImporter &n, Results &out) {
  auto fmod = n.intAttr("fmod", 0);
  DLC_TRY(fmod);
  if (*fmod)
    return binary<FModOp>(n, out);
  return binary<ModOp>(n, out);
}

/// PRelu: x < 0 ? slope * x : x, slope broadcast against x.
LogicalResult prelu(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0), slope = n.requiredInput(1);
  DLC_TRY(x);
  DLC_TRY(slope);
  Value zero = n.scalarConstant(tensorType(*x).getElementType(), 0);
  auto neg = n.create<LessOp>({*x, zero});
  auto scaled = n.create<MulOp>({*x, *slope});
  DLC_TRY(neg);
  DLC_TRY(scaled);
  auto r = n.create<WhereOp>({*neg, *scaled, *x});
  DLC_TRY(r);
  out.push_back(*r);
  return success();
}

const OpBuilderEntry kElementwise[] = {
    {"Add", 7, binary<AddOp>},
    {"Sub", 7, binary<SubOp>},
    {"Mul", 7, binary<MulOp>},
    {"Div", 7, binary<DivOp>},
    {"Pow", 7, pow},
    {"Mod", 10, mod},
    {"Max", 8, binary<MaxOp>},
    {"Min", 8, binary<MinOp>},
    {"Sum", 8, binary<AddOp>},
    {"Mean", 8, mean},
    {"And", 7, binary<AndOp>},
    {"Or", 7, binary<OrOp>},
    {"Xor", 7, binary<XorOp>},
    {"Equal", 7, binary<EqualOp>},
    {"Less", 7, binary<LessOp>},
    {"LessOrEqual", 12, binary<LessEqualOp>},
    {"Greater", 7, binary<GreaterOp>},
    {"GreaterOrEqual", 12, binary<GreaterEqualOp>},
    {"Where", 9, where},
    {"Not", 1, unary<NotOp>},
    {"Neg", 6, unary<NegOp>},
    {"Abs", 6, unary<AbsOp>},
    {"Exp", 6, unary<ExpOp>},
    {"Log", 6, unary<LogOp>},
    {"Sqrt", 6, unary<SqrtOp>},
    {"Reciprocal", 6, unary<ReciprocalOp>},
    {"Tanh", 6, unary<TanhOp>},
    {"Sigmoid", 6, unary<SigmoidOp>},
    {"Relu", 6, unary<ReluOp>},
    {"Erf", 9, unary<ErfOp>},
    {"Floor", 6, unary<FloorOp>},
    {"Ceil", 6, unary<CeilOp>},
    {"Sin", 7, unary<SinOp>},
    {"Cos", 7, unary<CosOp>},
    {"LeakyRelu", 6, leakyRelu},
    {"PRelu", 9, prelu},
    {"Gelu", 20, gelu},
    {"Clip", 6, clip},
    {"Cast", 6, cast},
    {"Identity", 1, identity},
    {"Dropout", 7, dropout},
    {"Tan", 7, unary<TanOp>},
    {"Asin", 7, unary<AsinOp>},
    {"Acos", 7, unary<AcosOp>},
    {"Atan", 7, unary<AtanOp>},
    {"Sinh", 9, unary<SinhOp>},
    {"Cosh", 9, unary<CoshOp>},
    {"Asinh", 9, unary<AsinhOp>},
    {"Acosh", 9, unary<AcoshOp>},
    {"Atanh", 9, unary<AtanhOp>},
    {"Sign", 9, unary<SignOp>},
    {"Round", 11, unary<RoundOp>},
    {"IsNaN", 9, isNaN},
    {"IsInf", 10, isInf},
    {"BitwiseNot", 18, unary<BitwiseNotOp>},
    {"BitwiseAnd", 18, binary<BitwiseAndOp>},
    {"BitwiseOr", 18, binary<BitwiseOrOp>},
    {"BitwiseXor", 18, binary<BitwiseXorOp>},
    {"BitShift", 11, bitShift},
    {"CastLike", 15, castLike},
    {"BitCast", 26, bitCast},
};

} // namespace

ArrayRef<OpBuilderEntry> elementwiseBuilders() { return kElementwise; }

} // namespace dlc::onnx_frontend
