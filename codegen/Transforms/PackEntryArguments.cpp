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
/// A memref the entry can describe from a bare pointer (and, for dynamic dims, the dims
/// table): identity layout, or static shape, strides and offset.
bool describable(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return false;
  if (!memref.hasStaticShape())
    return memref.getLayout().isIdentity();
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(memref.getStridesAndOffset(strides, offset)) &&
         !ShapedType::isDynamic(offset) && llvm::none_of(strides, ShapedType::isDynamic);
}

/// The descriptor of a row-major buffer at `base` whose dynamic dims are read from the
/// dims table (`symbols[d]`: the table index of dim d, -1 for a static dim).
Value dynamicDescriptor(OpBuilder &b, Location loc, const LLVMTypeConverter &converter,
                        MemRefType type, Value base, Value table, ArrayRef<int64_t> symbols) {
  MLIRContext *ctx = b.getContext();
  auto i64 = IntegerType::get(ctx, 64);
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto desc = MemRefDescriptor::poison(b, loc, converter.convertType(type));
  desc.setAllocatedPtr(b, loc, base);
  desc.setAlignedPtr(b, loc, base);
  desc.setConstantOffset(b, loc, 0);
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d)) {
      sizes.push_back(LLVM::ConstantOp::create(b, loc, i64, type.getDimSize(d)));
      continue;
    }
    Value slot = LLVM::GEPOp::create(b, loc, ptr, i64, table,
                                     ArrayRef<LLVM::GEPArg>{(int32_t)symbols[d]});
    sizes.push_back(LLVM::LoadOp::create(b, loc, i64, slot));
  }
  Value stride = LLVM::ConstantOp::create(b, loc, i64, 1);
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    desc.setSize(b, loc, d, sizes[d]);
    desc.setStride(b, loc, d, stride);
    stride = LLVM::MulOp::create(b, loc, stride, sizes[d]);
  }
  return desc;
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
    // Symbolic dims: the runtime passes their values after the buffers (dlc_abi.h).
    auto dimsAttr = main->getAttrOfType<ArrayAttr>(dlc::codegen::kBufferDimsAttr);
    // The inputs and outputs have an entry each; a model that computes dims (NonZero)
    // takes the table itself as one more static buffer, in the slot after the outputs.
    SmallVector<ArrayRef<int64_t>> bufferDims(numBuffers);
    unsigned tableSlot = numBuffers;
    if (dimsAttr && dimsAttr.size() <= numBuffers) {
      tableSlot = dimsAttr.size();
      for (unsigned i = 0; i < dimsAttr.size(); ++i)
        bufferDims[i] = cast<DenseI64ArrayAttr>(dimsAttr[i]).asArrayRef();
    }
    for (unsigned i = 0; i < numBuffers; ++i) {
      auto type = cast<MemRefType>(main.getArgument(i + 1).getType());
      if (!type.hasStaticShape() && bufferDims[i].size() != size_t(type.getRank())) {
        main.emitError("dlc-pack-entry-arguments: buffer argument ")
            << i << " has dynamic dims but no dlc.buffer_dims entry";
        return signalPassFailure();
      }
    }
    Value dims;
    auto dimsTable = [&]() {
      if (!dims) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&entry);
        Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, table,
                                         ArrayRef<LLVM::GEPArg>{(int32_t)tableSlot});
        dims = LLVM::LoadOp::create(b, loc, ptr, slot);
      }
      return dims;
    };
    for (unsigned i = 0; i < numBuffers; ++i) {
      BlockArgument arg = main.getArgument(i + 1);
      auto type = cast<MemRefType>(arg.getType());
      Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, table,
                                       ArrayRef<LLVM::GEPArg>{(int32_t)i});
      Value base = LLVM::LoadOp::create(b, loc, ptr, slot);
      Value desc = type.hasStaticShape()
                       ? MemRefDescriptor::fromStaticShape(b, loc, converter, type, base)
                       : dynamicDescriptor(b, loc, converter, type, base, dimsTable(),
                                           bufferDims[i]);
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
