// Run-time checks: index ranges of Gather-like ops, reduced to one flag per node.
#include "frontends/Onnx/RuntimeChecks.h"

#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {

LogicalResult checkAtRunTime(NodeImporter &n, Value bad, const Twine &what) {
  auto type = tensorType(bad);
  if (llvm::is_contained(type.getShape(), 0) || n.speculative())
    return success();
  // any(bad) as the max of its 0/1 values (an i1 max would be signed: true < false).
  auto asInt = n.create<CastOp>({bad}, {}, {RankedTensorType::get(type.getShape(),
                                                                n.b.getI32Type())});
  DLC_TRY(asInt);
  auto axes = llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  auto max = n.create<ReduceMaxOp>({*asInt}, {n.named("axes", n.b.getDenseI64ArrayAttr(axes)),
                                              n.named("keepdims", n.b.getBoolAttr(false))});
  DLC_TRY(max);
  // > 0: the max of no elements (a dynamic or computed dim of size 0) is INT32_MIN.
  auto any = n.create<GreaterOp>({*max, n.intConstant(n.b.getI32Type(), 0)});
  DLC_TRY(any);
  std::string message = "node '" + n.node.name() + "' (" + n.node.op_type() + "): " + what.str();
  auto check = RuntimeCheckOp::create(n.b, n.loc, *any, n.b.getStringAttr(message));
  if (failed(mlir::verify(check)))
    return failure();
  return success();
}

namespace {

/// values < lo or values >= hi, elementwise, with i64 bounds: scalars, or one per entry
/// of the last dim (1-D, broadcast); compared as i64 (unsigned values zero-extended).
FailureOr<Value> outside(NodeImporter &n, Value values, bool isUnsigned, Value lo, Value hi) {
  auto type = tensorType(values);
  if (cast<IntegerType>(type.getElementType()).getWidth() < 64) {
    SmallVector<NamedAttribute> attrs;
    if (isUnsigned)
      attrs.push_back(n.named("unsigned_input", n.b.getUnitAttr()));
    auto wide = n.create<CastOp>({values}, attrs,
                                 {RankedTensorType::get(type.getShape(), n.b.getI64Type())});
    DLC_TRY(wide);
    values = *wide;
  }
  auto below = n.create<LessOp>({values, lo});
  auto above = n.create<GreaterEqualOp>({values, hi});
  DLC_TRY(below);
  DLC_TRY(above);
  return n.create<OrOp>({*below, *above});
}

/// A constant i64 bound: a scalar, or 1-D with one entry per bound.
Value boundConstant(NodeImporter &n, ArrayRef<int64_t> bounds) {
  SmallVector<int64_t> shape(bounds.size() == 1 ? 0 : 1, (int64_t)bounds.size());
  return n.constant(DenseElementsAttr::get(RankedTensorType::get(shape, n.b.getI64Type()), bounds));
}

std::string range(const std::string &lo, const std::string &hi) { return "[" + lo + ", " + hi + ")"; }

} // namespace

LogicalResult checkIndicesAtRunTime(NodeImporter &n, unsigned input, Value data, int64_t first,
                                    int64_t count) {
  Value indices = n.input(input);
  if (!indices || n.knownInput(input) || count < 1 || n.speculative())
    return success();
  auto type = tensorType(indices);
  if (!isa<IntegerType>(type.getElementType()) || llvm::is_contained(type.getShape(), 0))
    return success();
  bool isUnsigned = n.isUnsigned(input);
  auto dataType = tensorType(data);
  ArrayRef<int64_t> bounds = dataType.getShape().slice(first, count);
  SmallVector<std::string> his;
  Value lo, hi;
  if (llvm::none_of(bounds, ShapedType::isDynamic)) {
    SmallVector<int64_t> los;
    for (int64_t b : bounds) {
      los.push_back(isUnsigned ? 0 : -b);
      his.push_back(std::to_string(b));
    }
    lo = boundConstant(n, los);
    hi = boundConstant(n, bounds);
  } else {
    // Dynamic dims: the bounds are the data's sizes when the model runs.
    auto dims = n.symbolicDims(data);
    auto shape = n.create<ShapeOp>({data});
    DLC_TRY(shape);
    SmallVector<int64_t> starts = {first}, sizes = {count}, steps = {1};
    auto part = n.create<SliceOp>({*shape}, {n.named("starts", n.b.getDenseI64ArrayAttr(starts)),
                                            n.named("sizes", n.b.getDenseI64ArrayAttr(sizes)),
                                            n.named("steps", n.b.getDenseI64ArrayAttr(steps))});
    DLC_TRY(part);
    hi = *part;
    if (count == 1) {
      auto scalar = n.create<ReshapeOp>({hi}, {}, {RankedTensorType::get({}, n.b.getI64Type())});
      DLC_TRY(scalar);
      hi = *scalar;
    }
    auto neg = isUnsigned ? FailureOr<Value>(boundConstant(n, SmallVector<int64_t>(count, 0)))
                          : n.create<NegOp>({hi});
    DLC_TRY(neg);
    lo = *neg;
    for (int64_t d = first; d < first + count; ++d)
      his.push_back(dims ? (*dims)[d].str() : "dim " + std::to_string(d));
  }
  auto bad = outside(n, indices, isUnsigned, lo, hi);
  DLC_TRY(bad);
  std::string expected;
  for (const std::string &h : his)
    expected += (expected.empty() ? "" : ", ") + range(isUnsigned ? "0" : "-" + h, h);
  return checkAtRunTime(n, *bad, "an index of input " + Twine(input) +
                                     " is out of range; expected " +
                                     (bounds.size() == 1 ? "" : "per tuple entry ") + expected);
}

namespace {

LogicalResult checkRange(NodeImporter &n, Value values, Value where, int64_t lo, Value hi,
                         const std::string &hiText, const Twine &what) {
  auto bad = outside(n, values, /*isUnsigned=*/false, boundConstant(n, {lo}), hi);
  DLC_TRY(bad);
  Value flagged = *bad;
  if (where) {
    auto both = n.create<AndOp>({flagged, where});
    DLC_TRY(both);
    flagged = *both;
  }
  return checkAtRunTime(n, flagged, what + " is out of range; expected " +
                                        range(std::to_string(lo), hiText));
}

bool skipsRangeCheck(NodeImporter &n, Value values) {
  auto type = tensorType(values);
  return !isa<IntegerType>(type.getElementType()) || llvm::is_contained(type.getShape(), 0) ||
         n.speculative();
}

} // namespace

LogicalResult checkRangeAtRunTime(NodeImporter &n, Value values, Value where, int64_t lo,
                                  Value data, int64_t dim, const Twine &what) {
  if (skipsRangeCheck(n, values))
    return success();
  auto hi = n.dimSize(data, dim);
  DLC_TRY(hi);
  auto dims = n.sizesOf(data);
  return checkRange(n, values, where, lo, *hi,
                    dims ? (*dims)[dim].str() : "dim " + std::to_string(dim), what);
}

LogicalResult checkRangeAtRunTime(NodeImporter &n, Value values, Value where, int64_t lo,
                                  int64_t hi, const Twine &what) {
  if (skipsRangeCheck(n, values))
    return success();
  return checkRange(n, values, where, lo, boundConstant(n, {hi}), std::to_string(hi), what);
}

} // namespace dlc::onnx_frontend
