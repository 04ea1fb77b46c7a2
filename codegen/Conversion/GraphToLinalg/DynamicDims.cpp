// checkDynamicDims: the symbols of dynamic dims, followed through the model function.
#include "codegen/Conversion/GraphToLinalg/DynamicDims.h"
#include "dialects/Graph/IR/Names.h"
#include "dialects/Graph/IR/SymbolicShapes.h"

using namespace mlir;

namespace dlc::conversion {

LogicalResult checkDynamicDims(func::FuncOp func) {
  auto hasDynamic = [](Type t) {
    auto rt = dyn_cast<RankedTensorType>(t);
    return rt && !rt.hasStaticShape();
  };
  // Dynamic dims come from the arguments (--dims) or from ops whose result sizes the
  // model computes (NonZero).
  if (!llvm::any_of(func.getArgumentTypes(), hasDynamic) &&
      !func.walk([&](Operation *op) {
             return llvm::any_of(op->getResultTypes(), hasDynamic) ? WalkResult::interrupt()
                                                                   : WalkResult::advance();
           }).wasInterrupted())
    return success();
  graph::SymbolicShapes shapes(func);
  for (BlockArgument arg : func.getArguments()) {
    std::string why;
    if (failed(shapes.dims(arg, &why)))
      return func.emitError() << why;
  }
  // Every op with dynamic dims, in order: the first that fails says why.
  WalkResult walk = func.walk([&](Operation *op) {
    if (op == func.getOperation() || isa<func::ReturnOp>(op))
      return WalkResult::advance();
    if (!llvm::any_of(op->getOperandTypes(), hasDynamic) &&
        !llvm::any_of(op->getResultTypes(), hasDynamic))
      return WalkResult::advance();
    std::string why;
    if (op->getNumResults() >= 1 && llvm::all_of(op->getResults(), [&](Value r) {
          return succeeded(shapes.dims(r, &why));
        }))
      return WalkResult::advance();
    op->emitError() << "dynamic dims (--dims): "
                    << (why.empty() ? "the op does not support dynamic dims yet" : why);
    return WalkResult::interrupt();
  });
  if (walk.wasInterrupted())
    return failure();
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  Builder b(func.getContext());
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    if (!hasDynamic(v.getType()))
      continue;
    SmallVector<std::string> names;
    graph::SymbolicDims dims = *shapes.dims(v);
    // An output dim that is no symbol (a product, a sum) becomes a dim the model computes.
    for (const graph::SymbolicSize &m : dims)
      names.push_back(m.isStatic() ? "" : graph::declareOutputDim(func, m));
    func.setResultAttr(i, graph::kDimsAttr,
                       b.getStrArrayAttr(SmallVector<StringRef>(names.begin(), names.end())));
  }
  return success();
}

} // namespace dlc::conversion
