// dlc-pack-entry-arguments: dlc_main takes the runtime's buffer table, not one memref per tensor.
#include "codegen/Transforms/Passes.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/BitVector.h"

namespace dlc::codegen {
#define GEN_PASS_DEF_PACKENTRYARGUMENTS
#include "codegen/Transforms/Passes.h.inc"
} // namespace dlc::codegen

using namespace mlir;

namespace {
/// A memref the entry can describe from a bare pointer: static shape, strides and offset.
bool describable(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape())
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(memref.getStridesAndOffset(strides, offset)) &&
         !ShapedType::isDynamic(offset) && llvm::none_of(strides, ShapedType::isDynamic);
}

struct PackEntryArgumentsPass
    : dlc::codegen::impl::PackEntryArgumentsBase<PackEntryArgumentsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto main = module.lookupSymbol<func::FuncOp>("dlc_main");
    if (!main || main.isExternal())
      return;
    MLIRContext *ctx = &getContext();
    unsigned numBuffers = 0;
    while (numBuffers < main.getNumArguments() &&
           isa<MemRefType>(main.getArgument(numBuffers).getType()))
      ++numBuffers;
    for (unsigned i = 0; i < numBuffers; ++i)
      if (!describable(main.getArgument(i).getType())) {
        main.emitError("dlc-pack-entry-arguments: buffer argument ")
            << i << " has type " << main.getArgument(i).getType()
            << ", not a static strided memref";
        return signalPassFailure();
      }
    LLVMTypeConverter converter(ctx);
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    Block &entry = main.getBody().front();
    // The table goes first; the buffers' uses are rewired to descriptors built from it.
    if (failed(main.insertArgument(0u, ptr, {}, main.getLoc())))
      return signalPassFailure();
    Value table = main.getArgument(0);
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    Location loc = main.getLoc();
    for (unsigned i = 0; i < numBuffers; ++i) {
      BlockArgument arg = main.getArgument(i + 1);
      auto type = cast<MemRefType>(arg.getType());
      Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, table,
                                       ArrayRef<LLVM::GEPArg>{(int32_t)i});
      Value base = LLVM::LoadOp::create(b, loc, ptr, slot);
      Value desc = MemRefDescriptor::fromStaticShape(b, loc, converter, type, base);
      Value memref =
          UnrealizedConversionCastOp::create(b, loc, TypeRange{type}, ValueRange{desc})
              .getResult(0);
      arg.replaceAllUsesWith(memref);
    }
    llvm::BitVector erase(main.getNumArguments());
    erase.set(1, numBuffers + 1);
    if (failed(main.eraseArguments(erase)))
      return signalPassFailure();
    module->setAttr(dlc::codegen::kPackedBuffersAttr, UnitAttr::get(ctx));
  }
};
} // namespace
