// Scalar arith builders shared by the elementwise ops' bodies and the linalg lowering.
#include "dialects/Graph/IR/ScalarBuilders.h"

using namespace mlir;

namespace dlc::graph {

Value scalarConstant(OpBuilder &b, Location loc, Type elt, double v) {
  if (auto ft = dyn_cast<FloatType>(elt))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, v));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(elt, (int64_t)v));
}

Value convertScalar(OpBuilder &b, Location loc, Value v, Type to, bool isUnsigned) {
  Type from = v.getType();
  if (from == to)
    return v;
  auto ff = dyn_cast<FloatType>(from), tf = dyn_cast<FloatType>(to);
  if (to.isInteger(1)) {
    Value zero = scalarConstant(b, loc, from, 0);
    if (ff)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
  }
  if (ff && tf)
    return ff.getWidth() < tf.getWidth() ? Value(arith::ExtFOp::create(b, loc, to, v))
                                         : Value(arith::TruncFOp::create(b, loc, to, v));
  if (ff) {
    // Through a wider signed integer then truncated, so values of unsigned narrow targets
    // (e.g. 200.0 to uint8) keep their bits instead of saturating at the signed maximum:
    // i32 for 8- and 16-bit targets (one vcvttps2dq per vector; AVX2 has no vector
    // f32 -> i64 conversion and LLVM scalarizes it), i64 for 32-bit ones.
    unsigned tw = to.getIntOrFloatBitWidth();
    if (tw >= 64)
      return arith::FPToSIOp::create(b, loc, to, v);
    Value wide = arith::FPToSIOp::create(b, loc, tw < 32 ? b.getI32Type() : b.getI64Type(), v);
    return arith::TruncIOp::create(b, loc, to, wide);
  }
  bool zeroExtend = isUnsigned || from.isInteger(1);
  if (tf)
    return zeroExtend ? Value(arith::UIToFPOp::create(b, loc, to, v))
                      : Value(arith::SIToFPOp::create(b, loc, to, v));
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw < tw)
    return zeroExtend ? Value(arith::ExtUIOp::create(b, loc, to, v))
                      : Value(arith::ExtSIOp::create(b, loc, to, v));
  return arith::TruncIOp::create(b, loc, to, v);
}

Value compareScalars(OpBuilder &b, Location loc, ValueRange a, arith::CmpFPredicate fp,
                     arith::CmpIPredicate ip) {
  if (isa<FloatType>(a[0].getType()))
    return arith::CmpFOp::create(b, loc, fp, a[0], a[1]);
  return arith::CmpIOp::create(b, loc, ip, a[0], a[1]);
}

} // namespace dlc::graph
