// dlc-lower-global-state: a training step's ml_program globals as memref globals, before bufferization.
#include "codegen/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace dlc::codegen {
#define GEN_PASS_DEF_LOWERGLOBALSTATE
#include "codegen/Transforms/Passes.h.inc"
} // namespace dlc::codegen

using namespace mlir;

namespace {

MemRefType bufferType(Type tensor) {
  auto t = cast<RankedTensorType>(tensor);
  return MemRefType::get(t.getShape(), t.getElementType());
}

/// The top-level op of `block` after which a store may write the global: after the
/// new value is computed and after the last read of the old value, through any
/// tensor derived from it (a reshape or slice bufferizes to a view of the global).
/// The old value is read straight from the global's buffer (a restrict to_tensor),
/// so a store before that read would be seen by it.
Operation *earliestStorePoint(Block &block, Value newValue, ArrayRef<Value> oldValues) {
  Operation *point = nullptr;
  auto later = [&](Operation *op) {
    if (Operation *top = op ? block.findAncestorOpInBlock(*op) : nullptr)
      if (!point || point->isBeforeInBlock(top))
        point = top;
  };
  later(newValue.getDefiningOp());
  SmallVector<Value> worklist(oldValues.begin(), oldValues.end());
  DenseSet<Value> seen(oldValues.begin(), oldValues.end());
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      later(user);
      // Results that may share the buffer: views (reshapes, slices, casts), a
      // destination-style op's results (its inits), a loop's results (its inits).
      auto dps = dyn_cast<DestinationStyleOpInterface>(user);
      bool aliases = dps ? dps.isDpsInit(&use)
                         : isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::ExtractSliceOp,
                               tensor::CastOp, tensor::ReshapeOp, RegionBranchOpInterface>(user);
      if (!aliases)
        continue;
      for (Value r : user->getResults())
        if (isa<TensorType>(r.getType()) && seen.insert(r).second)
          worklist.push_back(r);
    }
  }
  return point;
}

struct LowerGlobalStatePass : dlc::codegen::impl::LowerGlobalStateBase<LowerGlobalStatePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    IRRewriter b(&getContext());
    llvm::DenseMap<StringAttr, SmallVector<Value>> loaded; // old values per global
    SmallVector<std::pair<StringAttr, bufferization::MaterializeInDestinationOp>> stores;
    WalkResult result = module.walk([&](Operation *op) -> WalkResult {
      b.setInsertionPoint(op);
      if (auto global = dyn_cast<ml_program::GlobalOp>(op)) {
        if (!global.getValue() || !isa<RankedTensorType>(global.getType())) {
          global.emitError("dlc-lower-global-state: expected a ranked tensor global with a value");
          return WalkResult::interrupt();
        }
        b.replaceOpWithNewOp<memref::GlobalOp>(
            global, global.getSymName(), global.getSymVisibilityAttr(), bufferType(global.getType()),
            *global.getValue(), /*constant=*/!global.getIsMutable(), /*alignment=*/b.getI64IntegerAttr(64));
      } else if (auto load = dyn_cast<ml_program::GlobalLoadOp>(op)) {
        // A read-only view: bufferization copies before writing into it.
        Value buffer = memref::GetGlobalOp::create(b, load.getLoc(), bufferType(load.getType()),
                                                   load.getGlobalAttr().getLeafReference());
        StringAttr sym = load.getGlobalAttr().getLeafReference();
        loaded[sym].push_back(b.replaceOpWithNewOp<bufferization::ToTensorOp>(
            load, load.getType(), buffer, /*restrict=*/true));
      } else if (auto store = dyn_cast<ml_program::GlobalStoreOp>(op)) {
        // Reads the stored value (upstream's model of global_store does not say so,
        // which lets bufferization overwrite the value before the copy).
        Value buffer = memref::GetGlobalOp::create(b, store.getLoc(),
                                                   bufferType(store.getValue().getType()),
                                                   store.getGlobalAttr().getLeafReference());
        stores.push_back({store.getGlobalAttr().getLeafReference(),
                          bufferization::MaterializeInDestinationOp::create(
                              b, store.getLoc(), Type(), store.getValue(), buffer,
                              /*restrict=*/true, /*writable=*/true)});
        b.eraseOp(store);
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    // Each store right after its last read of the old value (the step emits them
    // all at its end): the new value's buffer is freed there, not at the end.
    for (auto [sym, store] : stores) {
      Block *block = store->getBlock();
      Operation *point = earliestStorePoint(*block, store.getSource(), loaded.lookup(sym));
      if (!point || !point->isBeforeInBlock(store))
        continue;
      Operation *buffer = store.getDest().getDefiningOp();
      store->moveAfter(point);
      buffer->moveBefore(store);
    }
  }
};

} // namespace
