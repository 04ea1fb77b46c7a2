// createChecked: verified, folded op creation that reports errors instead of aborting.
#include "dialects/Graph/IR/CheckedBuild.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

using namespace mlir;

namespace dlc::graph {

FailureOr<SmallVector<Value>> createChecked(OpBuilder &b, Location loc, StringRef opName,
                                            ValueRange operands, ArrayRef<NamedAttribute> attrs,
                                            TypeRange resultTypes) {
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
