// dlc-cuda-lower-launches: the host side of a CUDA module: the PTX as a global, launches,
// allocations and weights as calls of the runtime's CUDA layer.
#include "codegen/Target/CUDA/Passes.h"
#include "codegen/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <functional>

namespace dlc::cuda {
#define GEN_PASS_DEF_LOWERLAUNCHES
#include "codegen/Target/CUDA/Passes.h.inc"
} // namespace dlc::cuda

using namespace mlir;

namespace {

/// The runtime's CUDA entry points the host code calls (runtime/cuda/dlc_cuda.h).
struct RuntimeCalls {
  func::FuncOp launch, alloc, free, constant, read;

  static RuntimeCalls declare(ModuleOp module) {
    MLIRContext *ctx = module.getContext();
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    Type i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
    auto declare = [&](StringRef name, TypeRange args, TypeRange results) {
      if (auto f = module.lookupSymbol<func::FuncOp>(name))
        return f;
      auto f = func::FuncOp::create(b, module.getLoc(), name, b.getFunctionType(args, results));
      f.setPrivate();
      return f;
    };
    RuntimeCalls calls;
    calls.launch = declare("dlc_cuda_launch", {i32, i64, i64, i64, i64, i64, i64, i32, i64, i32}, {});
    calls.alloc = declare("dlc_cuda_alloc", {i64}, {i64});
    calls.free = declare("dlc_cuda_free", {i64}, {});
    calls.constant = declare("dlc_cuda_constant", {i64, i64}, {i64});
    calls.read = declare("dlc_cuda_read", {i64, i64}, {i64});
    return calls;
  }
};

int64_t bytesOf(MemRefType type) {
  return type.getNumElements() * llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

Value addressOf(Value memref, OpBuilder &b, Location loc) {
  Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), index);
}

/// A scalar kernel parameter in an 8-byte slot (the low bytes, little-endian).
FailureOr<Value> slotOf(Value v, OpBuilder &b, Location loc) {
  Type t = v.getType(), i64 = b.getI64Type();
  if (t.isIndex())
    return arith::IndexCastOp::create(b, loc, i64, v).getResult();
  if (auto it = dyn_cast<IntegerType>(t)) {
    if (it.getWidth() == 64)
      return v;
    if (it.getWidth() < 64)
      return arith::ExtUIOp::create(b, loc, i64, v).getResult();
  }
  if (auto ft = dyn_cast<FloatType>(t)) {
    unsigned w = ft.getWidth();
    Value bits = arith::BitcastOp::create(b, loc, b.getIntegerType(w), v);
    return w == 64 ? bits : arith::ExtUIOp::create(b, loc, i64, bits).getResult();
  }
  return failure();
}

struct LowerLaunches : dlc::cuda::impl::LowerLaunchesBase<LowerLaunches> {
  using LowerLaunchesBase::LowerLaunchesBase;

  /// The cubin ptxas makes of `ptx` for `chip`.
  FailureOr<std::string> assemble(StringRef ptx, StringRef chip) {
    SmallString<128> in, out;
    if (llvm::sys::fs::createTemporaryFile("dlc-kernels", "ptx", in) ||
        llvm::sys::fs::createTemporaryFile("dlc-kernels", "cubin", out)) {
      getOperation().emitError("cannot create temporary files for ptxas");
      return failure();
    }
    llvm::scope_exit cleanup([&] {
      llvm::sys::fs::remove(in);
      llvm::sys::fs::remove(out);
    });
    {
      std::error_code ec;
      llvm::raw_fd_ostream os(in, ec);
      os << ptx;
    }
    std::string arch = ("-arch=" + chip).str(), errors;
    SmallVector<StringRef> args{ptxas, arch, "-O3", in, "-o", out};
    SmallString<128> log;
    llvm::sys::fs::createTemporaryFile("dlc-ptxas", "log", log);
    llvm::scope_exit dropLog([&] { llvm::sys::fs::remove(log); });
    std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log), StringRef(log)};
    int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0, 0, &errors);
    auto cubin = llvm::MemoryBuffer::getFile(out, /*IsText=*/false);
    if (rc != 0 || !cubin) {
      auto text = llvm::MemoryBuffer::getFile(log);
      getOperation().emitError("ptxas failed on the kernels (")
          << ptxas << " " << arch << "): "
          << (text ? (*text)->getBuffer().trim().take_front(600) : StringRef(errors));
      return failure();
    }
    return (*cubin)->getBuffer().str();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto binary = module.lookupSymbol<gpu::BinaryOp>(dlc::cuda::kKernelModule);
    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp l) { launches.push_back(l); });
    if (!binary) {
      if (!launches.empty()) {
        launches.front().emitOpError("launches a kernel of no gpu.binary @dlc_kernels");
        return signalPassFailure();
      }
      return;
    }
    auto object = dyn_cast<gpu::ObjectAttr>(binary.getObjectsAttr()[0]);
    if (!object || object.getFormat() != gpu::CompilationTarget::Assembly) {
      binary.emitOpError("expected the kernels as PTX (gpu-module-to-binary format=isa)");
      return signalPassFailure();
    }
    std::string chip = "sm_80";
    if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget()))
      chip = nvvm.getChip().str();
    RuntimeCalls calls = RuntimeCalls::declare(module);
    IRRewriter b(ctx);
    // Kernel indices in order of first launch; the table's line of each.
    llvm::StringMap<int> kernelIndex;
    std::string table;
    for (gpu::LaunchFuncOp launch : launches) {
      StringRef name = launch.getKernelName().getValue();
      if (!kernelIndex.try_emplace(name, (int)kernelIndex.size()).second)
        continue;
      auto dims = [](gpu::KernelDim3 d) {
        std::string s;
        for (Value v : {d.x, d.y, d.z}) {
          std::optional<int64_t> c = getConstantIntValue(v);
          s += (s.empty() ? "" : ",") + (c ? std::to_string(*c) : std::string("?"));
        }
        return s;
      };
      std::optional<int64_t> smem = launch.getDynamicSharedMemorySize()
                                        ? getConstantIntValue(launch.getDynamicSharedMemorySize())
                                        : std::optional<int64_t>(0);
      table += (name + " " + dims(launch.getGridSizeOperandValues()) + " " +
                dims(launch.getBlockSizeOperandValues()) + " " +
                (smem ? std::to_string(*smem) : "?") + " " +
                std::to_string(launch.getKernelOperands().size()) + "\n")
                   .str();
    }
    auto i8 = IntegerType::get(ctx, 8);
    auto addString = [&](StringRef symbol, std::string text) {
      text.push_back('\0');
      b.setInsertionPointToEnd(module.getBody());
      LLVM::GlobalOp::create(b, module.getLoc(), LLVM::LLVMArrayType::get(i8, text.size()),
                             /*isConstant=*/true, LLVM::Linkage::External, symbol,
                             b.getStringAttr(text));
    };
    addString("dlc_cuda_ptx", object.getObject().str());
    addString("dlc_cuda_kernels", table);
    if (!ptxas.empty()) {
      FailureOr<std::string> cubin = assemble(object.getObject().getValue(), chip);
      if (failed(cubin))
        return signalPassFailure();
      b.setInsertionPointToEnd(module.getBody());
      LLVM::GlobalOp::create(b, module.getLoc(), LLVM::LLVMArrayType::get(i8, cubin->size()),
                             /*isConstant=*/true, LLVM::Linkage::External, "dlc_cuda_cubin",
                             b.getStringAttr(*cubin), /*alignment=*/8);
      LLVM::GlobalOp::create(b, module.getLoc(), b.getI64Type(), /*isConstant=*/true,
                             LLVM::Linkage::External, "dlc_cuda_cubin_size",
                             b.getI64IntegerAttr(cubin->size()));
    }
    b.eraseOp(binary);
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());

    // Allocations nothing reads (their views were moved into kernels) go first.
    SmallVector<memref::AllocOp> allocs;
    module.walk([&](memref::AllocOp a) { allocs.push_back(a); });
    for (memref::AllocOp alloc : allocs)
      if (llvm::all_of(alloc->getUsers(), [](Operation *u) { return isa<memref::DeallocOp>(u); })) {
        for (Operation *u : llvm::make_early_inc_range(alloc->getUsers()))
          b.eraseOp(u);
        b.eraseOp(alloc);
      }
    SmallVector<memref::AllocOp> deviceAllocs;
    // Device addresses of the buffers the launches take, one per root buffer.
    DenseMap<Value, Value> device;
    std::function<FailureOr<Value>(Value, Location)> deviceAddress =
        [&](Value memref, Location loc) -> FailureOr<Value> {
      if (Value known = device.lookup(memref))
        return known;
      Operation *def = memref.getDefiningOp();
      OpBuilder::InsertionGuard guard(b);
      Value address;
      if (!def) { // an entry buffer: the runtime passed a device address
        b.setInsertionPointToStart(memref.getParentBlock());
        address = addressOf(memref, b, loc);
      } else if (auto alloc = dyn_cast<memref::AllocOp>(def)) {
        if (!alloc.getType().hasStaticShape())
          return alloc.emitOpError("of dynamic size is not supported by the cuda target yet");
        b.setInsertionPoint(alloc);
        Value bytes = arith::ConstantIntOp::create(b, loc, bytesOf(alloc.getType()), 64);
        address = func::CallOp::create(b, loc, calls.alloc, bytes).getResult(0);
        deviceAllocs.push_back(alloc);
      } else if (auto global = dyn_cast<memref::GetGlobalOp>(def)) {
        b.setInsertionPointAfter(global);
        Value bytes = arith::ConstantIntOp::create(b, loc, bytesOf(global.getType()), 64);
        Value host = addressOf(global, b, loc);
        address = func::CallOp::create(b, loc, calls.constant, ValueRange{host, bytes}).getResult(0);
      } else if (auto view = dyn_cast<memref::ViewOp>(def)) {
        // A view of the arena (a scalar the host reads: a run-time check's flag).
        FailureOr<Value> base = deviceAddress(view.getSource(), loc);
        if (failed(base))
          return failure();
        b.setInsertionPoint(view);
        Value shift = arith::IndexCastOp::create(b, loc, b.getI64Type(), view.getByteShift());
        address = arith::AddIOp::create(b, loc, *base, shift);
      } else {
        return def->emitOpError("makes a buffer a kernel takes on the host (the cuda target "
                                "needs whole buffers: arguments, allocations, weights)");
      }
      device[memref] = address;
      return address;
    };

    for (gpu::LaunchFuncOp launch : launches) {
      Location loc = launch.getLoc();
      SmallVector<Value> params;
      for (Value operand : launch.getKernelOperands()) {
        FailureOr<Value> slot = isa<MemRefType>(operand.getType())
                                    ? deviceAddress(operand, loc)
                                    : (b.setInsertionPoint(launch), slotOf(operand, b, loc));
        if (failed(slot)) {
          launch.emitOpError("passes a kernel parameter of unsupported type ") << operand.getType();
          return signalPassFailure();
        }
        params.push_back(*slot);
      }
      b.setInsertionPoint(launch);
      auto i64 = b.getI64Type();
      auto table = memref::AllocaOp::create(
          b, loc, MemRefType::get({std::max<int64_t>(1, params.size())}, i64));
      for (auto [i, p] : llvm::enumerate(params))
        memref::StoreOp::create(b, loc, p, table, ValueRange{arith::ConstantIndexOp::create(b, loc, i)});
      auto cast64 = [&](Value v) { return arith::IndexCastOp::create(b, loc, i64, v).getResult(); };
      gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
      gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
      Value smem = launch.getDynamicSharedMemorySize();
      SmallVector<Value> args{
          arith::ConstantIntOp::create(b, loc, kernelIndex.lookup(launch.getKernelName().getValue()), 32),
          cast64(grid.x), cast64(grid.y), cast64(grid.z), cast64(block.x), cast64(block.y),
          cast64(block.z),
          smem ? smem : arith::ConstantIntOp::create(b, loc, 0, 32).getResult(),
          addressOf(table, b, loc),
          arith::ConstantIntOp::create(b, loc, params.size(), 32)};
      func::CallOp::create(b, loc, calls.launch, args);
      b.eraseOp(launch);
    }
    // Scalars the host reads (run-time checks' flags): copied from the device.
    SmallVector<memref::LoadOp> loads;
    module.walk([&](memref::LoadOp load) {
      if (!load.getMemref().getDefiningOp<memref::AllocaOp>())
        loads.push_back(load);
    });
    for (memref::LoadOp load : loads) {
      Location loc = load.getLoc();
      MemRefType type = load.getMemRefType();
      SmallVector<int64_t> strides;
      int64_t offset;
      Type elem = type.getElementType();
      unsigned bits = elem.getIntOrFloatBitWidth();
      if (failed(type.getStridesAndOffset(strides, offset)) ||
          ShapedType::isDynamic(offset) || llvm::any_of(strides, ShapedType::isDynamic) ||
          bits > 64 || !(elem.isIntOrFloat())) {
        load.emitOpError("would read device memory of this layout on the host: not "
                         "supported by the cuda target yet");
        return signalPassFailure();
      }
      FailureOr<Value> base = deviceAddress(load.getMemref(), loc);
      if (failed(base))
        return signalPassFailure();
      b.setInsertionPoint(load);
      int64_t bytes = llvm::divideCeil(bits, 8);
      Value index = arith::ConstantIndexOp::create(b, loc, offset);
      for (auto [i, stride] : llvm::zip(load.getIndices(), strides))
        index = arith::AddIOp::create(
            b, loc, index,
            arith::MulIOp::create(b, loc, i, arith::ConstantIndexOp::create(b, loc, stride)));
      Value byteOffset = arith::MulIOp::create(
          b, loc, arith::IndexCastOp::create(b, loc, b.getI64Type(), index),
          arith::ConstantIntOp::create(b, loc, bytes, 64));
      Value address = arith::AddIOp::create(b, loc, *base, byteOffset);
      Value raw = func::CallOp::create(b, loc, calls.read,
                                       ValueRange{address, arith::ConstantIntOp::create(b, loc, bytes, 64)})
                      .getResult(0);
      Value value = bits == 64 ? raw : arith::TruncIOp::create(b, loc, b.getIntegerType(bits), raw).getResult();
      if (isa<FloatType>(elem))
        value = arith::BitcastOp::create(b, loc, elem, value);
      b.replaceOp(load, value);
    }
    // Allocations' deallocations free device memory; nothing else may touch memory.
    SmallVector<Operation *> dead;
    WalkResult walk = module.walk([&](Operation *op) {
      if (isa<func::FuncOp, ModuleOp, LLVM::GlobalOp, memref::GlobalOp>(op))
        return WalkResult::advance();
      if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        if (Value address = device.lookup(dealloc.getMemref())) {
          b.setInsertionPoint(dealloc);
          func::CallOp::create(b, dealloc.getLoc(), calls.free, address);
          dead.push_back(dealloc);
          return WalkResult::advance();
        }
      }
      if (isMemoryEffectFree(op) || op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
          isa<memref::AllocaOp, memref::GetGlobalOp, func::CallOp,
                                        func::ReturnOp>(op))
        return WalkResult::advance();
      if (auto store = dyn_cast<memref::StoreOp>(op))
        if (store.getMemref().getDefiningOp<memref::AllocaOp>())
          return WalkResult::advance();
      if (auto load = dyn_cast<memref::LoadOp>(op))
        if (load.getMemref().getDefiningOp<memref::AllocaOp>())
          return WalkResult::advance();
      if (auto alloc = dyn_cast<memref::AllocOp>(op))
        if (device.count(alloc.getResult()))
          return WalkResult::advance();
      op->emitOpError("would run on the host over device memory: not supported by the cuda "
                      "target yet");
      return WalkResult::interrupt();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    for (Operation *op : dead)
      b.eraseOp(op);
    // Views the host no longer reads, then allocations only the kernels use.
    for (bool erased = true; erased;) {
      erased = false;
      SmallVector<Operation *> views;
      module.walk([&](ViewLikeOpInterface v) {
        if (v->use_empty() && isMemoryEffectFree(v))
          views.push_back(v);
      });
      for (Operation *v : views)
        b.eraseOp(v);
      erased = !views.empty();
    }
    // The allocations themselves are gone: their uses were the launches and deallocations.
    for (memref::AllocOp alloc : deviceAllocs)
      if (alloc->use_empty())
        b.eraseOp(alloc);
    // The runtime must run this module on a GPU.
    if (auto desc = module->getAttrOfType<StringAttr>(dlc::codegen::kDescriptorAttr)) {
      std::string text = desc.getValue().str();
      size_t eol = text.find('\n');
      text.insert(eol == std::string::npos ? text.size() : eol + 1,
                  "target cuda " + chip + "\n");
      module->setAttr(dlc::codegen::kDescriptorAttr, b.getStringAttr(text));
    }
  }
};

} // namespace
