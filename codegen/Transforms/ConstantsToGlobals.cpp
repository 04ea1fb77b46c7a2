// dlc-constants-to-globals: tensor constants become memref.globals before bufferization, in O(n).
#include "codegen/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"

namespace dlc::codegen {
#define GEN_PASS_DEF_CONSTANTSTOGLOBALS
#include "codegen/Transforms/Passes.h.inc"
} // namespace dlc::codegen

using namespace mlir;

namespace {
struct ConstantsToGlobalsPass
    : dlc::codegen::impl::ConstantsToGlobalsBase<ConstantsToGlobalsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    llvm::DenseMap<Attribute, memref::GlobalOp> globals; // one per distinct value
    SmallVector<arith::ConstantOp> constants;
    module.walk([&](arith::ConstantOp op) {
      if (isa<RankedTensorType>(op.getType()) && isa<ElementsAttr>(op.getValue()))
        constants.push_back(op);
    });
    OpBuilder b(&getContext());
    unsigned counter = 0;
    for (arith::ConstantOp op : constants) {
      auto type = cast<RankedTensorType>(op.getType());
      auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
      memref::GlobalOp &global = globals[op.getValue()];
      if (!global) {
        b.setInsertionPointToStart(module.getBody());
        global = memref::GlobalOp::create(
            b, op.getLoc(), "__dlc_constant_" + std::to_string(counter++),
            b.getStringAttr("private"), memrefType, cast<ElementsAttr>(op.getValue()),
            /*constant=*/true, b.getI64IntegerAttr(64));
        symbols.insert(global); // renames it on a clash, in O(1)
      }
      b.setInsertionPoint(op);
      Value buffer = memref::GetGlobalOp::create(b, op.getLoc(), memrefType, global.getSymName());
      // Read-only, like a bufferized constant: a write into it gets a copy.
      auto tensor = bufferization::ToTensorOp::create(b, op.getLoc(), type, buffer,
                                                      /*restrict=*/b.getUnitAttr());
      op.replaceAllUsesWith(tensor.getResult());
      op.erase();
    }
  }
};
} // namespace
