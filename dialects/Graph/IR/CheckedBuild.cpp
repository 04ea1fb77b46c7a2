// createChecked: verified, folded op creation that reports errors instead of aborting.
#include "dialects/Graph/IR/CheckedBuild.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#include <cmath>
#include <string>

using namespace mlir;

namespace dlc::graph {

std::optional<uint64_t> tensorBytes(ArrayRef<int64_t> shape, Type elt) {
  uint64_t n = 1;
  for (int64_t d : shape) {
    if (ShapedType::isDynamic(d))
      return 0;
    if (d < 0 || __builtin_mul_overflow(n, uint64_t(d), &n) || n > (uint64_t(1) << 63))
      return std::nullopt;
  }
  uint64_t eltBytes = elt.isIntOrFloat() ? std::max<uint64_t>(1, (elt.getIntOrFloatBitWidth() + 7) / 8)
                                         : 8;
  uint64_t bytes;
  if (__builtin_mul_overflow(n, eltBytes, &bytes) || bytes > (uint64_t(1) << 63))
    return std::nullopt;
  return bytes;
}

std::string shapeText(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "," : "") + (ShapedType::isDynamic(shape[i]) ? std::string("?")
                                                           : std::to_string(shape[i]));
  return s + "]";
}

LogicalResult checkTensorBytes(Location loc, ArrayRef<int64_t> shape, Type elt,
                               uint64_t maxTensorBytes, StringRef what) {
  std::optional<uint64_t> bytes = tensorBytes(shape, elt);
  if (!bytes)
    return emitError(loc) << what << " " << shapeText(shape)
                          << " has more than 2^63 bytes (its size overflows)";
  if (maxTensorBytes && *bytes > maxTensorBytes)
    return emitError(loc) << what << " " << shapeText(shape) << " would take " << *bytes
                          << " bytes, over the limit of " << maxTensorBytes
                          << " bytes (--max-memory)";
  return success();
}

Value rank0Constant(OpBuilder &b, Location loc, Type elt, double v) {
  if (!isa<FloatType>(elt)) // saturated: a double outside int64 has no integer value (UB)
    return rank0IntConstant(b, loc, elt,
                       std::isnan(v)   ? 0
                       : v >= 0x1p63   ? INT64_MAX
                       : v < -0x1p63   ? INT64_MIN
                                       : (int64_t)v);
  auto type = RankedTensorType::get({}, elt);
  return arith::ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(type, Attribute(b.getFloatAttr(elt, v))));
}

Value rank0IntConstant(OpBuilder &b, Location loc, Type elt, int64_t v) {
  unsigned width = elt.getIntOrFloatBitWidth();
  APInt bits(width, (uint64_t)v, /*isSigned=*/true, /*implicitTrunc=*/true);
  return arith::ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(RankedTensorType::get({}, elt), bits));
}

FailureOr<SmallVector<Value>> createChecked(OpBuilder &b, Location loc, StringRef opName,
                                            ValueRange operands, ArrayRef<NamedAttribute> attrs,
                                            TypeRange resultTypes, uint64_t maxTensorBytes) {
  MLIRContext *ctx = b.getContext();
  auto info = RegisteredOperationName::lookup(opName, ctx);
  if (!info)
    return emitError(loc) << "op '" << opName << "' is not registered";
  OperationState state(loc, *info);
  state.addOperands(operands);
  state.addAttributes(attrs);
  SmallVector<Type> types(resultTypes);
  if (types.empty()) {
    if (auto *iface = info->getInterface<InferTypeOpInterface>()) {
      if (failed(iface->inferReturnTypes(ctx, loc, state.operands,
                                         state.attributes.getDictionary(ctx), OpaqueProperties(nullptr),
                                         state.regions, types)))
        return failure();
    } else if (info->hasTrait<OpTrait::SameOperandsAndResultType>() && !operands.empty()) {
      types.push_back(operands[0].getType());
    }
  }
  // Before the op exists: its verifier and folder would compute with these sizes.
  for (auto [i, t] : llvm::enumerate(types))
    if (auto st = dyn_cast<ShapedType>(t); st && st.hasRank())
      if (failed(checkTensorBytes(loc, st.getShape(), st.getElementType(), maxTensorBytes,
                                  "result " + std::to_string(i))))
        return failure();
  state.addTypes(types);
  Operation *op = b.create(state);
  if (failed(mlir::verify(op))) {
    op->erase();
    return failure();
  }
  SmallVector<Value> results(op->getResults());
  SmallVector<OpFoldResult> folded;
  if (succeeded(op->fold(folded)) && !folded.empty()) {
    bool inPlace = false;
    for (auto [i, f] : llvm::enumerate(folded)) {
      if (auto v = dyn_cast<Value>(f)) {
        inPlace |= v == op->getResult(i);
        results[i] = v;
      } else {
        auto a = cast<TypedAttr>(cast<Attribute>(f));
        results[i] = arith::ConstantOp::create(b, loc, a);
      }
    }
    if (!inPlace)
      op->erase();
    else
      results = SmallVector<Value>(op->getResults());
  }
  return results;
}

} // namespace dlc::graph
