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
  TRY(asInt);
  auto axes = llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  auto any = n.create<ReduceMaxOp>({*asInt}, {n.named("axes", n.b.getDenseI64ArrayAttr(axes)),
                                              n.named("keepdims", n.b.getBoolAttr(false))});
  TRY(any);
  std::string message = "node '" + n.node.name() + "' (" + n.node.op_type() + "): " + what.str();
  auto check = RuntimeCheckOp::create(n.b, n.loc, *any, n.b.getStringAttr(message));
  if (failed(mlir::verify(check)))
    return failure();
  return success();
}

LogicalResult checkIndicesAtRunTime(NodeImporter &n, unsigned input, ArrayRef<int64_t> bounds) {
  Value indices = n.input(input);
  if (!indices || n.knownInput(input) || bounds.empty())
    return success();
  auto type = tensorType(indices);
  auto elt = dyn_cast<IntegerType>(type.getElementType());
  if (!elt || type.getNumElements() == 0)
    return success();
  bool isUnsigned = n.isUnsigned(input);
  // Compared as i64, where every bound fits (unsigned indices zero-extended).
  if (elt.getWidth() < 64) {
    SmallVector<NamedAttribute> attrs;
    if (isUnsigned)
      attrs.push_back(n.named("unsigned_input", n.b.getUnitAttr()));
    auto wide = n.create<CastOp>({indices}, attrs,
                                 {RankedTensorType::get(type.getShape(), n.b.getI64Type())});
    TRY(wide);
    indices = *wide;
  }
  // One bound: scalars; one per tuple entry: a 1-D tensor broadcast along the last dim.
  SmallVector<int64_t> shape(bounds.size() == 1 ? 0 : 1, (int64_t)bounds.size());
  auto boundType = RankedTensorType::get(shape, n.b.getI64Type());
  SmallVector<int64_t> lo, hi(bounds);
  for (int64_t b : bounds)
    lo.push_back(isUnsigned ? 0 : -b);
  auto below = n.create<LessOp>({indices, n.constant(DenseElementsAttr::get(boundType, ArrayRef(lo)))});
  auto above = n.create<GreaterEqualOp>({indices, n.constant(DenseElementsAttr::get(boundType, ArrayRef(hi)))});
  TRY(below);
  TRY(above);
  auto bad = n.create<OrOp>({*below, *above});
  TRY(bad);
  std::string range;
  if (bounds.size() == 1)
    range = "[" + std::to_string(isUnsigned ? 0 : -bounds[0]) + ", " + std::to_string(bounds[0]) +
            ")";
  else
    for (int64_t b : bounds)
      range += (range.empty() ? "" : ", ") + ("[" + std::to_string(isUnsigned ? 0 : -b) + ", " +
                                              std::to_string(b) + ")");
  return checkAtRunTime(n, *bad, "an index of input " + Twine(input) +
                                     " is out of range; expected " +
                                     (bounds.size() == 1 ? "" : "per tuple entry ") + range);
}

} // namespace dlc::onnx_frontend
