// ONNX's low-precision types (float8 variants, float4e2m1, int4/uint4, int2/uint2) held as
// one i8 per element: casts decode float codes through a table and encode by counting the
// midpoints below |x| (round to nearest even), with ONNX's saturate / overflow rules; the
// sub-byte integers wrap to their width as ONNX's reference (ml_dtypes) does.
#include "frontends/Onnx/LowPrecision.h"
#include "frontends/Onnx/Expr.h"

#include "llvm/ADT/APFloat.h"

#include <cmath>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {

namespace {

const llvm::fltSemantics *semanticsOf(int t) {
  switch (t) {
  case kFloat8E4M3FN: return &llvm::APFloat::Float8E4M3FN();
  case kFloat8E4M3FNUZ: return &llvm::APFloat::Float8E4M3FNUZ();
  case kFloat8E5M2: return &llvm::APFloat::Float8E5M2();
  case kFloat8E5M2FNUZ: return &llvm::APFloat::Float8E5M2FNUZ();
  case kFloat4E2M1: return &llvm::APFloat::Float4E2M1FN();
  case kFloat8E8M0: return &llvm::APFloat::Float8E8M0FNU();
  default: return nullptr;
  }
}

int bitsOf(int t) { return t == kFloat4E2M1 ? 4 : 8; }

bool isFnuz(int t) {
  return t == kFloat8E4M3FNUZ || t == kFloat8E5M2FNUZ;
}

/// The value of code `c` of float type `t`.
double decodeCode(int t, unsigned c) {
  llvm::APFloat f(*semanticsOf(t), llvm::APInt(bitsOf(t), c));
  bool lost;
  f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &lost);
  return f.convertToDouble();
}

} // namespace

bool isLowPrecisionFloat(int t) { return semanticsOf(t) != nullptr; }
bool isSubByteInt(int t) {
  return t == kInt4 || t == kUInt4 ||
         t == kInt2 || t == kUInt2;
}
bool isStoredAsI8(int t) { return isLowPrecisionFloat(t) || isSubByteInt(t); }

FailureOr<Value> decodeLowPrecision(NodeImporter &n, Value codes, int t) {
  if (!isLowPrecisionFloat(t))
    return n.error("expected a float8 or float4 tensor, got ONNX data type " + Twine(t));
  Type f32 = n.b.getF32Type();
  int count = 1 << bitsOf(t);
  SmallVector<float> table;
  for (int c = 0; c < count; ++c)
    table.push_back((float)decodeCode(t, c));
  Value tab = n.constant(DenseElementsAttr::get(RankedTensorType::get({count}, f32), ArrayRef<float>(table)));
  Expr e{n, n.b.getI64Type()};
  Value idx = e.op<BitwiseAndOp>({e.cast(codes, n.b.getI64Type()), e.c(count - 1)});
  Value r = e.op<GatherOp>({tab, idx}, {n.named("axis", n.b.getI64IntegerAttr(0))});
  if (e.failed)
    return failure();
  return r;
}

/// float8e8m0 (a biased power-of-two exponent): the f32 exponent field, rounded up,
/// down or to nearest by the mantissa bits as ONNX's reference does; Inf/NaN -> 0xFF.
FailureOr<Value> encodeE8M0(NodeImporter &n, Value x, bool saturate, StringRef roundMode) {
  Type f32 = n.b.getF32Type(), i64 = n.b.getI64Type(), i32 = n.b.getI32Type();
  Expr e{n, i64};
  Value xf = e.cast(x, f32);
  if (e.failed) // xf is null
    return failure();
  auto shape = tensorType(xf).getShape();
  Value bits = e.op<BitwiseAndOp>({e.cast(e.op<BitcastOp>({xf}, {}, {RankedTensorType::get(shape, i32)}), i64),
                                   e.c(4294967295.0)});
  Value exp = e.op<BitwiseAndOp>({e.op<ShiftRightOp>({bits, e.c(23)}), e.c(255)});
  auto set = [&](int64_t mask) { return e.op<GreaterOp>({e.op<BitwiseAndOp>({bits, e.c((double)mask)}), e.c(0)}); };
  Value inc;
  if (roundMode == "up") {
    inc = set(0x7FFFFF);
  } else if (roundMode == "nearest") {
    Value lsb = e.op<GreaterOp>({exp, e.c(0)});
    inc = e.op<AndOp>({set(0x400000), e.op<OrOp>({e.op<OrOp>({set(0x200000), set(0x1FFFFF)}), lsb})});
  }
  if (inc) {
    if (saturate)
      inc = e.op<AndOp>({inc, e.op<NotOp>({e.op<EqualOp>({exp, e.c(254)})})});
    exp = e.op<AddOp>({exp, e.cast(inc, i64)});
  }
  Value special = e.op<EqualOp>({e.op<BitwiseAndOp>({e.op<ShiftRightOp>({bits, e.c(23)}), e.c(255)}), e.c(255)});
  Value code = e.where(special, e.c(255), exp);
  Value r = e.cast(code, n.b.getIntegerType(8));
  if (e.failed)
    return failure();
  return r;
}

FailureOr<Value> encodeLowPrecision(NodeImporter &n, Value x, int t, bool saturate,
                                    StringRef roundMode) {
  if (t == kFloat8E8M0)
    return encodeE8M0(n, x, saturate, roundMode);
  Type f32 = n.b.getF32Type(), i64 = n.b.getI64Type(), i32 = n.b.getI32Type();
  // Positive finite codes in increasing value: 0 .. maxCode.
  int count = 1 << bitsOf(t), half = count / 2;
  int maxCode = 0;
  for (int c = 0; c < half; ++c)
    if (std::isfinite(decodeCode(t, c)))
      maxCode = c;
  SmallVector<float> mids;
  SmallVector<bool> tieUp;
  for (int c = 0; c < maxCode; ++c) {
    mids.push_back((float)((decodeCode(t, c) + decodeCode(t, c + 1)) / 2));
    tieUp.push_back((c + 1) % 2 == 0);
  }
  // A virtual step past the maximum: reaching it overflows.
  double top = decodeCode(t, maxCode), below = decodeCode(t, maxCode - 1);
  mids.push_back((float)(top + (top - below) / 2));
  tieUp.push_back((maxCode + 1) % 2 == 0);
  int64_t M = mids.size();
  Expr e{n, f32};
  Value xf = e.cast(x, f32);
  if (e.failed) // xf is null
    return failure();
  auto shape = tensorType(xf).getShape();
  SmallVector<int64_t> wide(shape), midShape(shape.size(), 1);
  wide.push_back(1);
  midShape.push_back(M);
  Value ax = e.reshape(e.op<AbsOp>({xf}), wide);
  Value mid = n.constant(DenseElementsAttr::get(RankedTensorType::get(midShape, f32), ArrayRef<float>(mids)));
  Value up = n.constant(DenseElementsAttr::get(RankedTensorType::get(midShape, n.b.getI1Type()), ArrayRef<bool>(tieUp)));
  Value above = e.op<OrOp>({e.op<GreaterOp>({ax, mid}), e.op<AndOp>({e.op<EqualOp>({ax, mid}), up})});
  Value code = e.reduce<ReduceSumOp>(e.cast(above, i64), {(int64_t)shape.size()}, false);
  Value overflow = e.op<GreaterOp>({code, e.c(i64, maxCode)});
  bool hasInf = std::isinf(decodeCode(t, maxCode + 1 < half ? maxCode + 1 : maxCode));
  int64_t nanCode = isFnuz(t) ? count / 2 : half - 1; // FNUZ: the negative-zero code
  if (t == kFloat4E2M1)
    saturate = true; // no Inf/NaN encodings: it always saturates
  code = e.op<MinOp>({code, e.c(i64, maxCode)});
  // The sign bit (from the float's bits, so -0.0 keeps it), except FNUZ zero.
  Value negative = e.op<LessOp>({e.op<BitcastOp>({xf}, {}, {RankedTensorType::get(shape, i32)}), e.c(i32, 0)});
  if (isFnuz(t))
    negative = e.op<AndOp>({negative, e.op<NotOp>({e.op<EqualOp>({code, e.c(i64, 0)})})});
  Value sign = e.where(negative, e.c(i64, half), e.c(i64, 0));
  code = e.op<AddOp>({code, sign});
  if (!saturate) // past the largest finite value: Inf where the type has one, else NaN
    code = e.where(overflow, hasInf ? e.op<AddOp>({sign, e.c(i64, maxCode + 1)}) : e.c(i64, nanCode), code);
  if (t != kFloat4E2M1) {
    Value isNan = e.op<IsNaNOp>({xf}, {}, {RankedTensorType::get(shape, n.b.getI1Type())});
    code = e.where(isNan, e.c(i64, nanCode), code);
  }
  Value r = e.cast(code, n.b.getIntegerType(8));
  if (e.failed)
    return failure();
  return r;
}

FailureOr<Value> wrapSubByte(NodeImporter &n, Value v, int t) {
  Type i64 = n.b.getI64Type();
  Expr e{n, i64};
  int bits = (t == kInt4 || t == kUInt4) ? 4 : 2;
  bool isSigned = t == kInt4 || t == kInt2;
  Value w = e.op<BitwiseAndOp>({e.cast(v, i64), e.c((1 << bits) - 1)});
  if (isSigned) // ((w ^ sign) - sign) sign-extends
    w = e.op<SubOp>({e.op<BitwiseXorOp>({w, e.c(1 << (bits - 1))}), e.c(1 << (bits - 1))});
  Value r = e.cast(w, n.b.getIntegerType(8));
  if (e.failed)
    return failure();
  return r;
}

} // namespace dlc::onnx_frontend
