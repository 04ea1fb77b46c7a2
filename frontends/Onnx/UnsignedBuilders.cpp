// ONNX ops on unsigned integers whose results depend on integer order or division.
//
// dlc_graph's integers are signless and its comparisons, min/max, reductions and
// divisions treat them as signed, so uint8..uint64 values with the top bit set came out
// wrong (Less(0, 255) on uint8 was false, u8 204 / 237 was 2). The importer tracks which
// values hold ONNX unsigned types; for those, each node below is built from ops that
// give the unsigned answer:
//   * order ops (comparisons, Max/Min, ReduceMax/Min, ArgMax/Min, TopK, Clip, MaxPool)
//     run on inputs with the sign bit flipped, which maps unsigned order onto signed
//     order exactly (0 -> INT_MIN, UINT_MAX -> INT_MAX); their value outputs are
//     flipped back;
//   * Div and Mod of 8 to 32 bits run on the operands zero-extended to int64; of 64
//     bits, on a halved dividend (see unsignedDivide64);
//   * Abs is the identity and Sign is 0 or 1.
// Division by zero keeps the signed rule (x / 0 = 0, x % 0 = 0).
#include "frontends/Onnx/Expr.h"
#include "frontends/Onnx/UnsignedBuilders.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

enum class Rule { None, Order, DivMod, Abs, Sign };

/// How `opType` is built on unsigned inputs, and which outputs of an order op carry
/// input values (flipped back) rather than booleans or indices.
Rule ruleFor(StringRef opType, unsigned &valueOutputs) {
  valueOutputs = llvm::is_contained({"Max", "Min", "ReduceMax", "ReduceMin", "Clip", "MaxPool",
                                     "TopK"},
                                    opType)
                     ? 1
                     : 0;
  if (valueOutputs ||
      llvm::is_contained({"Less", "LessOrEqual", "Greater", "GreaterOrEqual", "ArgMax", "ArgMin"},
                         opType))
    return Rule::Order;
  return llvm::StringSwitch<Rule>(opType)
      .Cases({"Div", "Mod"}, Rule::DivMod)
      .Case("Abs", Rule::Abs)
      .Case("Sign", Rule::Sign)
      .Default(Rule::None);
}

/// A tensor of integers other than bool.
bool isIntTensor(Value v) {
  auto t = v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
  return t && t.getElementType().isSignlessInteger() && !t.getElementType().isInteger(1);
}

bool isUnsignedInt(NodeImporter &n, unsigned i) {
  return n.isUnsigned(i) && isIntTensor(n.input(i));
}

/// `v` with its sign bit flipped.
Value flipSign(Expr &e, Value v) {
  if (e.failed || !v) // an earlier step failed (a fuzz-onnx find)
    return e.fail();
  auto t = cast<RankedTensorType>(v.getType());
  auto it = cast<IntegerType>(t.getElementType());
  auto scalar = RankedTensorType::get({}, it);
  Value sign = e.n.constant(DenseElementsAttr::get(
      scalar, IntegerAttr::get(it, APInt::getSignedMinValue(it.getWidth()))));
  return e.op<BitwiseXorOp>({v, sign});
}

/// a <u b as a signed comparison of flipped values.
Value lessUnsigned(Expr &e, Value a, Value b, bool orEqual) {
  Value fa = flipSign(e, a), fb = flipSign(e, b);
  return orEqual ? e.op<LessEqualOp>({fa, fb}) : e.op<LessOp>({fa, fb});
}

/// Unsigned 64-bit quotient: a divisor with the top bit set goes into a at most once;
/// otherwise q1 = ((a >> 1) / b) << 1 is the quotient or one less (a >> 1 and b are
/// non-negative as signed), and r = a - q1 * b decides which. x / 0 = 0.
Value unsignedDivide64(Expr &e, Value a, Value b) {
  Value zero = e.c(0), one = e.c(1);
  Value q1 = e.op<ShiftLeftOp>({e.op<DivOp>({e.op<ShiftRightOp>({a, one}), b}), one});
  Value r = e.op<SubOp>({a, e.op<MulOp>({q1, b})});
  Value small = e.op<AddOp>({q1, e.where(lessUnsigned(e, r, b, false), zero, one)});
  Value big = e.where(lessUnsigned(e, a, b, false), zero, one);
  Value q = e.where(e.op<LessOp>({b, zero}), big, small);
  return e.where(e.op<EqualOp>({b, zero}), zero, q);
}

LogicalResult buildDivMod(NodeImporter &n, const OpBuilderEntry &entry,
                          SmallVectorImpl<Value> &results) {
  Value a = n.input(0), b = n.input(1);
  auto ta = cast<RankedTensorType>(a.getType());
  Type elt = ta.getElementType();
  Expr e{n, elt};
  bool isMod = n.node.op_type() == "Mod"; // fmod or not: the same for unsigned values
  if (elt.getIntOrFloatBitWidth() < 64) {
    // Zero-extended, both operands are non-negative int64 values: the signed op is exact.
    Type i64 = n.b.getI64Type();
    NodeImporter wide = n.withInputs({e.cast(a, i64, true), e.cast(b, i64, true)});
    SmallVector<Value> wideResults;
    if (e.failed || failed(entry.build(wide, wideResults)))
      return failure();
    results.push_back(e.cast(wideResults[0], elt));
    return success(!e.failed);
  }
  Value q = unsignedDivide64(e, a, b);
  Value r = isMod ? e.where(e.op<EqualOp>({b, e.c(0)}), e.c(0),
                            e.op<SubOp>({a, e.op<MulOp>({q, b})}))
                  : q;
  if (e.failed)
    return failure();
  results.push_back(r);
  return success();
}

LogicalResult buildOrder(NodeImporter &n, const OpBuilderEntry &entry, unsigned valueOutputs,
                         SmallVectorImpl<Value> &results) {
  // Comparisons, Max, Min and Clip take every input as the same type T, so all are
  // flipped when one is tracked as unsigned; the others order input 0 only (axes, K and
  // the like are int64 whatever T is).
  bool allT = llvm::is_contained({"Less", "LessOrEqual", "Greater", "GreaterOrEqual", "Max",
                                  "Min", "Clip"},
                                 n.node.op_type());
  if (!isUnsignedInt(n, 0) && !allT)
    return entry.build(n, results);
  Expr e{n, Type()};
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    Value v = n.input(i);
    bool flip = allT ? isIntTensor(v) : i == 0;
    inputs.push_back(flip ? flipSign(e, v) : v);
  }
  if (e.failed)
    return failure();
  NodeImporter flipped = n.withInputs(std::move(inputs));
  if (failed(entry.build(flipped, results)))
    return failure();
  for (unsigned i = 0; i < valueOutputs && i < results.size(); ++i)
    if (results[i])
      results[i] = flipSign(e, results[i]);
  return success(!e.failed);
}

} // namespace

LogicalResult buildNode(NodeImporter &n, const OpBuilderEntry &entry,
                        SmallVectorImpl<Value> &results) {
  unsigned valueOutputs = 0;
  Rule rule = ruleFor(n.node.op_type(), valueOutputs);
  bool anyUnsigned = false;
  for (unsigned i = 0; i < n.numInputs(); ++i)
    anyUnsigned |= isUnsignedInt(n, i);
  if (rule == Rule::None || !anyUnsigned || StringRef(entry.domain) != "")
    return entry.build(n, results);
  switch (rule) {
  case Rule::Order:
    return buildOrder(n, entry, valueOutputs, results);
  case Rule::DivMod:
    if (!isUnsignedInt(n, 0) || !isUnsignedInt(n, 1))
      return entry.build(n, results); // mixed types: the op's own check reports them
    return buildDivMod(n, entry, results);
  case Rule::Abs:
    results.push_back(n.input(0));
    return success();
  case Rule::Sign: {
    Value x = n.input(0);
    Expr e{n, cast<RankedTensorType>(x.getType()).getElementType()};
    Value s = e.where(e.op<EqualOp>({x, e.c(0)}), e.c(0), e.c(1));
    if (e.failed)
      return failure();
    results.push_back(s);
    return success();
  }
  case Rule::None:
    break;
  }
  return entry.build(n, results);
}

} // namespace dlc::onnx_frontend
