// dlc-lower-global-state: a training step's ml_program globals as memref globals, before bufferization.
#include "codegen/Target/X86/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace dlc::x86 {
#define GEN_PASS_DEF_LOWERGLOBALSTATE
#include "codegen/Target/X86/Passes.h.inc"
} // namespace dlc::x86

using namespace mlir;

namespace {

MemRefType bufferType(Type tensor) {
  auto t = cast<RankedTensorType>(tensor);
  return MemRefType::get(t.getShape(), t.getElementType());
}

struct LowerGlobalStatePass : dlc::x86::impl::LowerGlobalStateBase<LowerGlobalStatePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    IRRewriter b(&getContext());
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
        b.replaceOpWithNewOp<bufferization::ToTensorOp>(load, load.getType(), buffer,
                                                        /*restrict=*/true);
      } else if (auto store = dyn_cast<ml_program::GlobalStoreOp>(op)) {
        // Reads the stored value (upstream's model of global_store does not say so,
        // which lets bufferization overwrite the value before the copy).
        Value buffer = memref::GetGlobalOp::create(b, store.getLoc(),
                                                   bufferType(store.getValue().getType()),
                                                   store.getGlobalAttr().getLeafReference());
        bufferization::MaterializeInDestinationOp::create(b, store.getLoc(), Type(),
                                                          store.getValue(), buffer,
                                                          /*restrict=*/true, /*writable=*/true);
        b.eraseOp(store);
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
