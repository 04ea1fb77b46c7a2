// dlc-autodiff: gradients of a function's loss by one reverse walk over the Differentiable interface.
#include "passes/Autodiff/Autodiff.h"
#include "dialects/Graph/IR/Names.h"
#include "passes/Autodiff/GradientBuilder.h"
#include "passes/Autodiff/Passes.h"

#include "dialects/Interfaces/Differentiable.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace dlc::autodiff {
#define GEN_PASS_DEF_AUTODIFF
#include "passes/Autodiff/Passes.h.inc"
} // namespace dlc::autodiff

using namespace mlir;

namespace dlc::autodiff {
namespace {

bool isFloatTensor(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && isa<FloatType>(t.getElementType());
}

/// Values on a path from one of `sources` to `target` inside `block` (float
/// tensors only): the ones whose gradient the walk needs.
llvm::DenseSet<Value> activeValues(Block &block, ArrayRef<Value> sources, Value target) {
  llvm::DenseSet<Value> forward(sources.begin(), sources.end());
  for (Operation &op : block)
    if (llvm::any_of(op.getOperands(), [&](Value v) { return forward.contains(v); }))
      for (Value r : op.getResults())
        if (isFloatTensor(r))
          forward.insert(r);
  llvm::DenseSet<Value> active;
  if (!forward.contains(target))
    return active;
  active.insert(target);
  for (Operation &op : llvm::reverse(block))
    if (llvm::any_of(op.getResults(), [&](Value r) { return active.contains(r); }))
      for (Value v : op.getOperands())
        if (forward.contains(v))
          active.insert(v);
  return active;
}

} // namespace

LogicalResult appendGradients(func::FuncOp func, unsigned loss, ArrayRef<unsigned> wrt) {
  if (!func.getBody().hasOneBlock())
    return func.emitError("dlc-autodiff expects a function with one block");
  Block &block = func.getBody().front();
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  if (loss >= ret.getNumOperands())
    return func.emitError("dlc-autodiff: no result ") << loss;
  Value target = ret.getOperand(loss);
  if (!isFloatTensor(target))
    return func.emitError("dlc-autodiff: the loss (result ") << loss << ") is not a float tensor";
  SmallVector<Value> sources;
  for (unsigned a : wrt) {
    if (a >= func.getNumArguments() || !isFloatTensor(func.getArgument(a)))
      return func.emitError("dlc-autodiff: argument ") << a << " is not a float tensor";
    sources.push_back(func.getArgument(a));
  }
  llvm::DenseSet<Value> active = activeValues(block, sources, target);

  OpBuilder b(ret);
  llvm::DenseMap<Value, Value> grads;
  auto accumulate = [&](Value v, Value g) {
    Value &slot = grads[v];
    slot = slot ? Value(graph::AddOp::create(b, g.getLoc(), slot, g)) : g;
  };
  // d(sum(loss))/d(loss) = 1 everywhere.
  accumulate(target, splat(b, target.getLoc(), tensorTypeOf(target), 1.0));

  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops)) {
    SmallVector<Value> resultGrads;
    bool any = false;
    for (Value r : op->getResults()) {
      resultGrads.push_back(active.contains(r) ? grads.lookup(r) : Value());
      any |= bool(resultGrads.back());
    }
    if (!any)
      continue;
    auto diff = dyn_cast<DifferentiableOpInterface>(op);
    if (!diff)
      return op->emitError("dlc-autodiff: '")
             << op->getName() << "' is not differentiable, but the loss depends on it";
    SmallVector<Value> operandGrads;
    if (failed(diff.buildVjp(b, resultGrads, operandGrads)))
      return failure();
    for (auto [operand, g] : llvm::zip(op->getOperands(), operandGrads))
      if (g && active.contains(operand))
        accumulate(operand, g);
  }

  // One new result per argument, after the existing ones.
  SmallVector<Value> results(ret.getOperands());
  unsigned first = results.size();
  for (auto [a, source] : llvm::zip(wrt, sources)) {
    Value g = grads.lookup(source);
    results.push_back(g ? g : splat(b, func.getLoc(), tensorTypeOf(source), 0.0));
  }
  func::ReturnOp::create(b, ret.getLoc(), results);
  ret.erase();
  for (auto [i, a] : llvm::enumerate(wrt)) {
    NamedAttrList argAttrs(func.getArgAttrDict(a)), attrs;
    auto name = argAttrs.get(dlc::graph::kNameAttr);
    if (auto dtype = argAttrs.get(dlc::graph::kDtypeAttr))
      attrs.set(dlc::graph::kDtypeAttr, dtype);
    std::string gradName =
        "grad_" + (name ? cast<StringAttr>(name).str() : ("arg" + std::to_string(a)));
    attrs.set(dlc::graph::kNameAttr, b.getStringAttr(gradName));
    if (failed(func.insertResult(first + i, sources[i].getType(),
                                 attrs.getDictionary(func.getContext()))))
      return failure();
  }
  return success();
}

namespace {

struct AutodiffPass : impl::AutodiffBase<AutodiffPass> {
  using AutodiffBase::AutodiffBase;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    auto nameOf = [](DictionaryAttr attrs) -> StringRef {
      auto n = attrs ? attrs.getAs<StringAttr>(dlc::graph::kNameAttr) : StringAttr();
      return n ? n.getValue() : StringRef();
    };
    unsigned lossIndex = 0;
    if (!loss.empty()) {
      bool found = false;
      for (unsigned r = 0; r < func.getNumResults(); ++r)
        if (nameOf(func.getResultAttrDict(r)) == loss)
          lossIndex = r, found = true;
      if (!found) {
        func.emitError("dlc-autodiff: no output named '") << loss << "'";
        return signalPassFailure();
      }
    }
    SmallVector<unsigned> args;
    for (unsigned a = 0; a < func.getNumArguments(); ++a) {
      bool wanted = wrt.empty() ? isFloatTensor(func.getArgument(a))
                                : llvm::is_contained(wrt, nameOf(func.getArgAttrDict(a)));
      if (wanted)
        args.push_back(a);
    }
    if (failed(appendGradients(func, lossIndex, args)))
      return signalPassFailure();
    // Initializers made arguments for differentiation (dlc compile --grad-of
    // --grad-initializers) become constants again: only their gradients are new.
    llvm::BitVector params(func.getNumArguments());
    OpBuilder b(func.getBody());
    for (unsigned a = 0; a < func.getNumArguments(); ++a) {
      auto init = func.getArgAttrOfType<ElementsAttr>(a, "dlc.param_init");
      if (!init)
        continue;
      Value c = arith::ConstantOp::create(b, func.getArgument(a).getLoc(), cast<TypedAttr>(init));
      func.getArgument(a).replaceAllUsesWith(c);
      params.set(a);
    }
    if (params.any() && failed(func.eraseArguments(params)))
      signalPassFailure();
  }
};

} // namespace
} // namespace dlc::autodiff
