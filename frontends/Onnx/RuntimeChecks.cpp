// Run-time checks: index ranges of Gather-like ops, reduced to one flag per node.
#include "frontends/Onnx/RuntimeChecks.h"

#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {

LogicalResult checkAtRunTime(NodeImporter &n, Value bad, const Twine &what) {
  auto type = tensorType(bad);
  if (type.getNumElements() == 0 || n.speculative())
    return success();
  // any(bad) as the max of its 0/1 values (an i1 max would be signed: true < false).
  auto asInt = n.create<CastOp>({bad}, {}, {RankedTensorType::get(type.getShape(),
                                                                n.b.getI32Type())});
  DLC_TRY(asInt);
  auto axes = llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  auto any = n.create<ReduceMaxOp>({*asInt}, {n.named("axes", n.b.getDenseI64ArrayAttr(axes)),
                                              n.named("keepdims", n.b.getBoolAttr(false))});
  DLC_TRY(any);
  std::string message = "node '" + n.node.name() + "' (" + n.node.op_type() + "): " + what.str();
  auto check = RuntimeCheckOp::create(n.b, n.loc, *any, n.b.getStringAttr(message));
  if (failed(mlir::verify(check)))
    return failure();
  return success();
}

namespace {

/// values < lo or values >= hi, elementwise, with one bound (scalars) or one per entry of
/// the last dim (1-D bounds, broadcast); compared as i64 (unsigned values zero-extended).
FailureOr<Value> outside(NodeImporter &n, Value values, bool isUnsigned, ArrayRef<int64_t> lo,
                         ArrayRef<int64_t> hi) {
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
  SmallVector<int64_t> shape(lo.size() == 1 ? 0 : 1, (int64_t)lo.size());
  auto boundType = RankedTensorType::get(shape, n.b.getI64Type());
  auto below = n.create<LessOp>({values, n.constant(DenseElementsAttr::get(boundType, lo))});
  auto above = n.create<GreaterEqualOp>({values, n.constant(DenseElementsAttr::get(boundType, hi))});
  DLC_TRY(below);
  DLC_TRY(above);
  return n.create<OrOp>({*below, *above});
}

std::string range(int64_t lo, int64_t hi) {
  return "[" + std::to_string(lo) + ", " + std::to_string(hi) + ")";
}

} // namespace

LogicalResult checkIndicesAtRunTime(NodeImporter &n, unsigned input, ArrayRef<int64_t> bounds) {
  Value indices = n.input(input);
  if (!indices || n.knownInput(input) || bounds.empty() || n.speculative())
    return success();
  auto type = tensorType(indices);
  if (!isa<IntegerType>(type.getElementType()) || type.getNumElements() == 0)
    return success();
  bool isUnsigned = n.isUnsigned(input);
  SmallVector<int64_t> lo;
  for (int64_t b : bounds)
    lo.push_back(isUnsigned ? 0 : -b);
  auto bad = outside(n, indices, isUnsigned, lo, bounds);
  DLC_TRY(bad);
  std::string expected;
  for (auto [l, h] : llvm::zip(lo, bounds))
    expected += (expected.empty() ? "" : ", ") + range(l, h);
  return checkAtRunTime(n, *bad, "an index of input " + Twine(input) +
                                     " is out of range; expected " +
                                     (bounds.size() == 1 ? "" : "per tuple entry ") + expected);
}

LogicalResult checkRangeAtRunTime(NodeImporter &n, Value values, Value where, int64_t lo,
                                  int64_t hi, const Twine &what) {
  auto type = tensorType(values);
  if (!isa<IntegerType>(type.getElementType()) || type.getNumElements() == 0 || n.speculative())
    return success();
  auto bad = outside(n, values, /*isUnsigned=*/false, {lo}, {hi});
  DLC_TRY(bad);
  Value flagged = *bad;
  if (where) {
    auto both = n.create<AndOp>({flagged, where});
    DLC_TRY(both);
    flagged = *both;
  }
  return checkAtRunTime(n, flagged, what + " is out of range; expected " + range(lo, hi));
}

} // namespace dlc::onnx_frontend
