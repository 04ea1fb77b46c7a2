// checkDynamicDims: the symbols of dynamic dims, followed through the model function.
#include "codegen/Conversion/GraphToLinalg/DynamicDims.h"
#include "dialects/Graph/IR/Names.h"
#include "dialects/Graph/IR/SymbolicShapes.h"

#include "dialects/Graph/IR/GraphOps.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace dlc::conversion {
namespace {

/// "node 'NAME' (OP)" from an imported node's location (NameLoc "NAME" around
/// "OP, opset N"), else the op's name.
std::string nodeText(Operation *op) {
  std::string text;
  op->getLoc()->walk([&](Location l) {
    auto name = dyn_cast<NameLoc>(l);
    auto what = name ? dyn_cast<NameLoc>(name.getChildLoc()) : NameLoc();
    if (!what)
      return WalkResult::advance();
    text = "node '" + name.getName().str() + "' (" +
           what.getName().getValue().split(',').first.str() + ")";
    return WalkResult::interrupt();
  });
  return text.empty() ? op->getName().getStringRef().str() : text;
}

/// Records each pair of dims the rules took to be equal on the function
/// (`dlc.size_checks`: [size, size, message]); the runtime compares them before each run.
/// Sizes the model computes (NonZero's count) are known only after it: an error.
LogicalResult checkAssumptions(func::FuncOp func,
                               ArrayRef<graph::SymbolicShapes::Assumption> assumptions) {
  llvm::StringSet<> computed;
  if (auto names = func->getAttrOfType<ArrayAttr>(graph::kComputedDimsAttr))
    for (StringRef name : names.getAsValueRange<StringAttr>())
      computed.insert(name);
  Builder b(func.getContext());
  SmallVector<Attribute> checks;
  llvm::StringSet<> seen;
  for (const graph::SymbolicShapes::Assumption &a : assumptions) {
    auto operand = [&](Value v) {
      for (OpOperand &o : a.op->getOpOperands())
        if (o.get() == v)
          return std::to_string(o.getOperandNumber());
      return std::string("?");
    };
    std::string what = (a.dimA < 0 ? "the element count of input " + operand(a.a)
                                    : "dim " + std::to_string(a.dimA) + " of input " +
                                          operand(a.a)) +
                       " (" + a.sizeA.str() + ") and " +
                       (a.b ? "dim " + std::to_string(a.dimB) + " of input " + operand(a.b) +
                                  " (" + a.sizeB.str() + ")"
                            : (a.dimA < 0 ? "the result's " : "the size ") + a.sizeB.str());
    for (const graph::SymbolicSize *size : {&a.sizeA, &a.sizeB})
      for (const std::string &sym : graph::baseSymbols(*size))
        if (computed.contains(sym))
          return a.op->emitError() << "dynamic dims (--dims): " << what
                                   << " meet, and one is computed by the model";
    std::string message =
        nodeText(a.op) + ": " +
        (!a.message.empty()
             ? a.message
             : what + " differ; they must be equal" +
                   (a.dimA < 0 ? "" : " (dims of dlc compile --dims sizes do not broadcast)"));
    if (!seen.insert(a.sizeA.str() + " " + a.sizeB.str() + " " + message).second)
      continue;
    checks.push_back(b.getStrArrayAttr({a.sizeA.str(), a.sizeB.str(), message}));
  }
  if (!checks.empty())
    func->setAttr(graph::kSizeChecksAttr, b.getArrayAttr(checks));
  return success();
}

} // namespace

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
  if (failed(checkAssumptions(func, shapes.assumptions())))
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
