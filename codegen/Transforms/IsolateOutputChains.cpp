// dlc-isolate-output-chains: the tensors an output is computed through before it lands in the
// caller's buffer are not shared with another op that writes them.
#include "codegen/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace dlc::codegen {
#define GEN_PASS_DEF_ISOLATEOUTPUTCHAINS
#include "codegen/Transforms/Passes.h.inc"
} // namespace dlc::codegen

using namespace mlir;

namespace {

// ---- 1. Fresh tensors (cheap to remake): one copy per user ----------------

/// A vector that is a compile-time constant (a constant, or a broadcast of one).
bool isConstantVector(Value v) {
  if (matchPattern(v, m_Constant()))
    return true;
  auto bc = v.getDefiningOp<vector::BroadcastOp>();
  return bc && matchPattern(bc.getSource(), m_Constant());
}

/// Whether `v` is a tensor whose contents are made from constants only: a tensor.empty,
/// a linalg.fill of one with a constant, or a constant vector written into one.
bool isFresh(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def || !isa<RankedTensorType>(v.getType()))
    return false;
  if (isa<tensor::EmptyOp>(def))
    return true;
  if (auto fill = dyn_cast<linalg::FillOp>(def))
    return matchPattern(fill.value(), m_Constant()) && isFresh(fill.getOutputs()[0]);
  if (auto w = dyn_cast<vector::TransferWriteOp>(def))
    return isConstantVector(w.getVector()) && isFresh(w.getBase()) &&
           llvm::all_of(w.getIndices(), [](Value i) { return matchPattern(i, m_Constant()); });
  return false;
}

/// Clones `v`'s fresh producer chain at `b`'s insertion point; returns the copy of `v`.
Value cloneFresh(OpBuilder &b, Value v) {
  Operation *def = v.getDefiningOp();
  IRMapping map;
  for (Value operand : def->getOperands())
    if (isFresh(operand))
      map.map(operand, cloneFresh(b, operand));
  return b.clone(*def, map)->getResult(cast<OpResult>(v).getResultNumber());
}

void unshareFreshTensors(func::FuncOp func) {
  SmallVector<Value> fresh;
  func.walk([&](Operation *op) {
    for (Value r : op->getResults())
      if (isFresh(r))
        fresh.push_back(r);
  });
  // Outermost first (a fill before its empty): each copy of a fill brings its own empty.
  for (Value v : llvm::reverse(fresh)) {
    SmallVector<Operation *> users;
    for (Operation *u : v.getUsers())
      if (!llvm::is_contained(users, u))
        users.push_back(u);
    for (Operation *user : llvm::drop_begin(users)) { // the first user keeps the original
      OpBuilder b(user);
      user->replaceUsesOfWith(v, cloneFresh(b, v));
    }
  }
}

// ---- 2. Output chains with a shared link: computed out of place ---------------

/// Whether `use` makes its owner write the used tensor's buffer in place (as a destination),
/// directly or through a view of it.
bool writesInPlace(OpOperand &use) {
  Operation *owner = use.getOwner();
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(owner))
    return dps.isDpsInit(&use);
  if (auto ins = dyn_cast<tensor::InsertSliceOp>(owner))
    return use.get() == ins.getDest();
  if (auto w = dyn_cast<vector::TransferWriteOp>(owner))
    return use.get() == w.getBase();
  if (auto loop = dyn_cast<scf::ForOp>(owner))
    return llvm::is_contained(loop.getInitArgs(), use.get());
  if (isa<tensor::ExtractSliceOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp>(owner))
    return llvm::any_of(owner->getResult(0).getUses(),
                        [](OpOperand &u) { return writesInPlace(u); });
  return false;
}

/// The tensor `v` was computed in place on (the previous link of its chain), or null.
OpOperand *previousLink(Value v) {
  auto r = dyn_cast<OpResult>(v);
  if (!r)
    return nullptr;
  Operation *def = r.getOwner();
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(def))
    return dps.getTiedOpOperand(r);
  if (auto ins = dyn_cast<tensor::InsertSliceOp>(def))
    return &ins.getDestMutable();
  if (auto w = dyn_cast<vector::TransferWriteOp>(def))
    return &w.getBaseMutable();
  if (auto loop = dyn_cast<scf::ForOp>(def))
    return &loop.getInitArgsMutable()[r.getResultNumber()];
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
    return &def->getOpOperand(0);
  return nullptr;
}

/// `eliminate-empty-tensors` computes an output's chain (the tensor.empty at its root, then
/// every op that wrote it in place) directly in the caller's buffer, which the
/// `to_tensor restrict` it makes promises is reached through that chain alone. A link
/// another op also writes breaks the promise: bufferization may put that op's result in
/// the output buffer, and the output's final copy then overwrites it (two Concats sharing
/// their first input: the first output overwrote the second). Such a chain keeps its own
/// allocation (its root becomes bufferization.alloc_tensor) and is copied out at the end.
void isolateSharedChains(func::FuncOp func) {
  SmallVector<tensor::EmptyOp> roots;
  func.walk([&](bufferization::MaterializeInDestinationOp m) {
    if (!isa<BaseMemRefType>(m.getDest().getType()))
      return;
    OpOperand *link = nullptr;
    bool shared = false;
    for (Value v = m.getSource();; v = link->get()) {
      link = previousLink(v);
      if (!link)
        break;
      Value prev = link->get();
      for (OpOperand &use : prev.getUses())
        if (&use != link && writesInPlace(use))
          shared = true;
      if (auto empty = prev.getDefiningOp<tensor::EmptyOp>()) {
        if (shared && !llvm::is_contained(roots, empty))
          roots.push_back(empty);
        break;
      }
    }
  });
  for (tensor::EmptyOp empty : roots) {
    OpBuilder b(empty);
    auto alloc = bufferization::AllocTensorOp::create(b, empty.getLoc(), empty.getType(),
                                                      empty.getDynamicSizes());
    empty.replaceAllUsesWith(alloc.getResult());
    empty.erase();
  }
}

struct IsolateOutputChainsPass
    : dlc::codegen::impl::IsolateOutputChainsBase<IsolateOutputChainsPass> {
  void runOnOperation() override {
    unshareFreshTensors(getOperation());
    isolateSharedChains(getOperation());
  }
};

} // namespace
