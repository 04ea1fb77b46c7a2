// dlc-add-entry-point: the C entry `dlc_module_entry` and the `dlc_module_descriptor` global.
#include "codegen/Transforms/Passes.h"

#include "runtime/dlc_abi.h"

namespace dlc::codegen {
#define GEN_PASS_DEF_ADDENTRYPOINT
#include "codegen/Transforms/Passes.h.inc"
} // namespace dlc::codegen

using namespace mlir;

namespace {
struct AddEntryPointPass : dlc::codegen::impl::AddEntryPointBase<AddEntryPointPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto desc = module->getAttrOfType<StringAttr>(dlc::codegen::kDescriptorAttr);
    auto main = module.lookupSymbol<LLVM::LLVMFuncOp>("dlc_main");
    if (!desc || !main) {
      module.emitError("dlc-add-entry-point needs dlc_main lowered to LLVM and a descriptor");
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    Location loc = module.getLoc();
    main.setLinkage(LLVM::Linkage::Internal);

    std::string text = desc.getValue().str();
    text.push_back('\0');
    auto i8 = IntegerType::get(ctx, 8);
    LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(i8, text.size()), /*isConstant=*/true,
                           LLVM::Linkage::External, DLC_ABI_DESCRIPTOR_SYMBOL,
                           b.getStringAttr(text));

    auto ptr = LLVM::LLVMPointerType::get(ctx);
    // A training step's parameter buffers, in the order of its `state` records.
    if (auto state = module->getAttrOfType<ArrayAttr>(dlc::codegen::kStateAttr)) {
      auto arrayType = LLVM::LLVMArrayType::get(ptr, state.size());
      auto table = LLVM::GlobalOp::create(b, loc, arrayType, /*isConstant=*/true,
                                          LLVM::Linkage::External, DLC_ABI_STATE_DATA_SYMBOL,
                                          Attribute());
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(b.createBlock(&table.getInitializerRegion()));
      Value array = LLVM::UndefOp::create(b, loc, arrayType);
      for (auto [i, entry] : llvm::enumerate(state.getAsRange<DictionaryAttr>())) {
        auto sym = entry.getAs<FlatSymbolRefAttr>("symbol");
        if (!module.lookupSymbol<LLVM::GlobalOp>(sym.getAttr())) {
          module.emitError("dlc.state: no LLVM global ") << sym;
          return signalPassFailure();
        }
        Value address = LLVM::AddressOfOp::create(b, loc, ptr, sym.getValue());
        array = LLVM::InsertValueOp::create(b, loc, array, address, ArrayRef<int64_t>{(int64_t)i});
      }
      LLVM::ReturnOp::create(b, loc, array);
    }
    // The forward model a training step carries (dlc train --save-onnx).
    if (auto model = module->getAttrOfType<StringAttr>(dlc::codegen::kOnnxModelAttr)) {
      LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(i8, model.size()), /*isConstant=*/true,
                             LLVM::Linkage::External, DLC_ABI_ONNX_SYMBOL, model);
      auto i64 = IntegerType::get(ctx, 64);
      LLVM::GlobalOp::create(b, loc, i64, /*isConstant=*/true, LLVM::Linkage::External,
                             DLC_ABI_ONNX_SIZE_SYMBOL, b.getI64IntegerAttr(model.size()));
    }
    auto i32 = IntegerType::get(ctx, 32);
    auto fnType = LLVM::LLVMFunctionType::get(i32, {ptr, ptr});
    auto entry = LLVM::LLVMFuncOp::create(b, loc, DLC_ABI_ENTRY_SYMBOL, fnType);
    Block *block = entry.addEntryBlock(b);
    b.setInsertionPointToStart(block);
    SmallVector<Value> args;
    // Buffers (or the table itself, once packed), then (when dlc_main takes it) the
    // runtime context.
    bool takesCtx = module->hasAttr(dlc::codegen::kRuntimeCtxArgAttr);
    bool packed = module->hasAttr(dlc::codegen::kPackedBuffersAttr);
    unsigned numBuffers = main.getNumArguments() - (takesCtx ? 1 : 0);
    if (packed)
      args.push_back(block->getArgument(0));
    for (unsigned i = 0; !packed && i < numBuffers; ++i) {
      Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, block->getArgument(0),
                                       ArrayRef<LLVM::GEPArg>{(int32_t)i});
      args.push_back(LLVM::LoadOp::create(b, loc, ptr, slot));
    }
    if (takesCtx)
      args.push_back(block->getArgument(1));
    auto call = LLVM::CallOp::create(b, loc, main, args);
    // dlc_main returns the code of a failed run-time check (dlc-prepare-abi), if it has any.
    Value status = call.getNumResults() == 1 && call.getResult().getType() == i32
                       ? call.getResult()
                       : LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(0)).getResult();
    LLVM::ReturnOp::create(b, loc, status);
  }
};
} // namespace
