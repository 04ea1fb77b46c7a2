// Rematerialization of cheap forward values in the backward pass (see Rematerialization.h).
#include "passes/Autodiff/Rematerialization.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/Recompute.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"

#include <functional>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::autodiff {

/// Ops cheap enough to run again in the backward pass: elementwise and data
/// movement. Contractions, convolutions, pools and reductions stay stored.
static bool isRecomputable(Operation *op) {
  return op->hasTrait<GraphElementwise>() ||
         isa<ReshapeOp, TransposeOp, ExpandOp, SliceOp, ConcatOp, PadOp, IdentityOp>(op);
}

static int64_t byteSize(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() ? t.getNumElements() * t.getElementTypeBitWidth() / 8 : 0;
}

void rematerialize(Block &block, const llvm::DenseSet<Operation *> &forward,
                   RematPolicy policy, int64_t budgetBytes) {
  if (policy == RematPolicy::StoreAll)
    return;
  llvm::DenseMap<Operation *, unsigned> position;
  unsigned n = 0;
  for (Operation &op : block)
    position[&op] = n++;
  auto isBackward = [&](Operation *op) { return !forward.contains(op); };
  // Saved values of cheap ops, with their first backward user.
  SmallVector<std::pair<Value, Operation *>> saved;
  for (Operation &op : block) {
    if (!forward.contains(&op) || !isRecomputable(&op))
      continue;
    for (Value r : op.getResults()) {
      Operation *first = nullptr;
      for (Operation *u : r.getUsers())
        if (isBackward(u) && (!first || position[u] < position[first]))
          first = u;
      if (first)
        saved.push_back({r, first});
    }
  }
  if (policy == RematPolicy::Auto) {
    // The largest first, until what stays saved fits the budget.
    int64_t total = 0;
    for (Operation &op : block)
      if (forward.contains(&op) && !isa<arith::ConstantOp>(op))
        for (Value r : op.getResults())
          if (llvm::any_of(r.getUsers(), isBackward))
            total += byteSize(r);
    llvm::stable_sort(saved, [](auto &a, auto &b) { return byteSize(a.first) > byteSize(b.first); });
    size_t keep = 0;
    while (keep < saved.size() && total > budgetBytes)
      total -= byteSize(saved[keep++].first);
    saved.resize(keep);
  }
  llvm::stable_sort(saved, [&](auto &a, auto &b) { return position[a.second] < position[b.second]; });
  llvm::DenseMap<Value, Value> clones;
  std::function<Value(Value, OpBuilder &)> recompute = [&](Value v, OpBuilder &b) -> Value {
    Operation *def = v.getDefiningOp();
    if (!def || !forward.contains(def) || !isRecomputable(def))
      return v;
    if (Value c = clones.lookup(v))
      return c;
    IRMapping map;
    for (Value operand : def->getOperands())
      map.map(operand, recompute(operand, b));
    Operation *copy = b.clone(*def, map);
    markRecomputed(copy);
    for (auto [orig, fresh] : llvm::zip(def->getResults(), copy->getResults()))
      clones[orig] = fresh;
    return clones.lookup(v);
  };
  for (auto [value, first] : saved) {
    OpBuilder b(first);
    Value fresh = recompute(value, b);
    value.replaceUsesWithIf(fresh, [&](OpOperand &use) { return isBackward(use.getOwner()) &&
                                                                 use.getOwner() != fresh.getDefiningOp(); });
  }
}

} // namespace dlc::autodiff
