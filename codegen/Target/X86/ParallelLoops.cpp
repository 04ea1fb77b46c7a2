// Multithreading through the runtime (dlc_abi.h, dlc_runtime_parallel_for):
//  - dlc-outline-parallel-loops (memref + scf level): each scf.for marked `dlc.parallel`
//    (the outer tile loop of a parallel dimension) becomes a call of a new function
//    `dlc_parallel_body_N(captures..., begin, end, ctx)` that runs iterations
//    [begin, end); dlc_main gets a trailing `!llvm.ptr` argument, the runtime context.
//  - dlc-lower-parallel-calls (LLVM dialect): each call of a body function becomes
//    dlc_runtime_parallel_for(ctx, end - begin, trampoline, closure), the captures
//    stored in a stack closure that the trampoline unpacks.
#include "codegen/Target/X86/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

namespace dlc::x86 {
#define GEN_PASS_DEF_OUTLINEPARALLELLOOPS
#define GEN_PASS_DEF_LOWERPARALLELCALLS
#include "codegen/Target/X86/Passes.h.inc"
} // namespace dlc::x86

using namespace mlir;

namespace {

/// Ops that are cheaper to repeat inside the body than to pass in: constants
/// (any pure op without operands: arith.constant, ub.poison, ...), globals and
/// views (whose strided types the bare-pointer convention cannot pass).
bool isRematerializable(Operation *op) {
  if (!op || op->getNumRegions() != 0 || op->getNumResults() != 1)
    return false;
  return (op->getNumOperands() == 0 && isPure(op)) || isa<memref::GetGlobalOp>(op) ||
         isa<ViewLikeOpInterface>(op) || isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(op);
}

/// A value that can be a body argument under the bare-pointer convention, or a buffer with
/// dynamic dims (dlc compile --dims) passed as its base pointer and sizes (DynamicBuffer).
bool isPassable(Value v) {
  Type t = v.getType();
  if (auto m = dyn_cast<MemRefType>(t))
    return m.getLayout().isIdentity();
  return t.isIntOrIndexOrFloat();
}

/// A row-major buffer with dynamic dims crosses into a parallel body as a one-element
/// buffer at its base (which the bare-pointer convention passes) and its dynamic sizes;
/// the body views the base with those sizes again.
struct DynamicBuffer {
  static bool is(Value v) {
    auto m = dyn_cast<MemRefType>(v.getType());
    return m && !m.hasStaticShape() && m.getLayout().isIdentity();
  }
  /// The values passed for `v`: its base, then its dynamic sizes.
  static SmallVector<Value> pass(OpBuilder &b, Location loc, Value v) {
    auto type = cast<MemRefType>(v.getType());
    auto baseType = MemRefType::get({1}, type.getElementType(), MemRefLayoutAttrInterface(),
                                    type.getMemorySpace());
    SmallVector<Value> out = {memref::ReinterpretCastOp::create(
        b, loc, baseType, v, /*offset=*/0, /*sizes=*/ArrayRef<int64_t>{1},
        /*strides=*/ArrayRef<int64_t>{1})};
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        out.push_back(memref::DimOp::create(b, loc, v, d));
    return out;
  }
  static SmallVector<Type> types(Value v) {
    auto type = cast<MemRefType>(v.getType());
    SmallVector<Type> out = {MemRefType::get({1}, type.getElementType(),
                                             MemRefLayoutAttrInterface(), type.getMemorySpace())};
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        out.push_back(IndexType::get(v.getContext()));
    return out;
  }
  /// The buffer again, in the body, from the arguments `args` (base, sizes).
  static Value rebuild(OpBuilder &b, Location loc, MemRefType type, ValueRange args) {
    SmallVector<OpFoldResult> sizes, strides(type.getRank());
    unsigned next = 1;
    for (int64_t d = 0; d < type.getRank(); ++d)
      sizes.push_back(type.isDynamicDim(d) ? OpFoldResult(args[next++])
                                           : OpFoldResult(b.getIndexAttr(type.getDimSize(d))));
    OpFoldResult stride = b.getIndexAttr(1);
    SmallVector<int64_t> staticStrides(type.getRank());
    for (int64_t d = type.getRank() - 1; d >= 0; --d) {
      strides[d] = stride;
      auto c = getConstantIntValue(stride);
      staticStrides[d] = c ? *c : ShapedType::kDynamic;
      auto size = getConstantIntValue(sizes[d]);
      if (c && size)
        stride = b.getIndexAttr(*c * *size);
      else
        stride = arith::MulIOp::create(b, loc, getValueOrCreateConstantIndexOp(b, loc, stride),
                                       getValueOrCreateConstantIndexOp(b, loc, sizes[d]))
                     .getResult();
    }
    auto strided = MemRefType::get(type.getShape(), type.getElementType(),
                                   StridedLayoutAttr::get(b.getContext(), 0, staticStrides),
                                   type.getMemorySpace());
    Value view = memref::ReinterpretCastOp::create(b, loc, strided, args[0], b.getIndexAttr(0),
                                                   sizes, strides);
    return memref::CastOp::create(b, loc, type, view);
  }
};

/// The body's arguments and the ops to re-create inside it (in order), or
/// failure when some captured value can be neither.
LogicalResult collectCaptures(scf::ForOp loop, SmallVectorImpl<Value> &args,
                              SmallVectorImpl<Operation *> &clones) {
  SetVector<Value> captured;
  getUsedValuesDefinedAbove(loop.getRegion(), captured);
  llvm::SetVector<Operation *> toClone;
  llvm::SetVector<Value> toPass;
  SmallVector<Value> work(captured.begin(), captured.end());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (isRematerializable(def)) {
      if (toClone.insert(def))
        for (Value operand : def->getOperands())
          work.push_back(operand);
      continue;
    }
    if (!isPassable(v))
      return failure();
    toPass.insert(v);
  }
  args.assign(toPass.begin(), toPass.end());
  clones.assign(toClone.begin(), toClone.end());
  // Definitions before uses: the ops' order in the parent block.
  llvm::sort(clones, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return success();
}

struct OutlineParallelLoopsPass
    : dlc::x86::impl::OutlineParallelLoopsBase<OutlineParallelLoopsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto main = module.lookupSymbol<func::FuncOp>("dlc_main");
    if (!main)
      return;
    MLIRContext *ctx = &getContext();
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    // The runtime context rides along as dlc_main's last argument.
    if (failed(main.insertArgument(main.getNumArguments(), ptrType, {}, main.getLoc())))
      return signalPassFailure();
    module->setAttr(dlc::codegen::kRuntimeCtxArgAttr, UnitAttr::get(ctx));
    Value runtimeCtx = main.getArgument(main.getNumArguments() - 1);

    SmallVector<scf::ForOp> loops;
    main.walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
      if (!loop->hasAttr(dlc::codegen::kParallelLoopAttr))
        return WalkResult::advance();
      loops.push_back(loop);
      return WalkResult::skip(); // nested marked loops run inside this one
    });
    OpBuilder b(ctx);
    int counter = 0;
    for (scf::ForOp loop : loops) {
      loop->removeAttr(dlc::codegen::kParallelLoopAttr);
      // A dynamic upper bound (dlc compile --dims): the trip count is computed at the call.
      auto lb = getConstantIntValue(loop.getLowerBound()),
           ub = getConstantIntValue(loop.getUpperBound()), step = getConstantIntValue(loop.getStep());
      if (loop.getNumResults() || !lb || !step || *step <= 0 || (ub && *ub - *lb <= *step))
        continue;
      SmallVector<Value> args;
      SmallVector<Operation *> clones;
      if (failed(collectCaptures(loop, args, clones)))
        continue;
      // func.func private @dlc_parallel_body_N(args..., begin, end, ctx)
      SmallVector<Type> types;
      for (Value a : args) {
        if (DynamicBuffer::is(a))
          llvm::append_range(types, DynamicBuffer::types(a));
        else
          types.push_back(a.getType());
      }
      types.append({b.getIndexType(), b.getIndexType(), ptrType});
      b.setInsertionPoint(main);
      std::string name = std::string(dlc::x86::kParallelBodyPrefix) + std::to_string(counter++);
      auto body = func::FuncOp::create(b, loop.getLoc(), name, b.getFunctionType(types, {}));
      body.setPrivate();
      Block *entry = body.addEntryBlock();
      b.setInsertionPointToStart(entry);
      IRMapping map;
      unsigned nextArg = 0;
      for (Value a : args) {
        if (!DynamicBuffer::is(a)) {
          map.map(a, entry->getArgument(nextArg++));
          continue;
        }
        unsigned count = DynamicBuffer::types(a).size();
        map.map(a, DynamicBuffer::rebuild(b, loop.getLoc(), cast<MemRefType>(a.getType()),
                                          entry->getArguments().slice(nextArg, count)));
        nextArg += count;
      }
      for (Operation *op : clones)
        b.clone(*op, map);
      Value begin = entry->getArgument(nextArg), end = entry->getArgument(nextArg + 1);
      Value one = arith::ConstantIndexOp::create(b, loop.getLoc(), 1);
      auto inner = scf::ForOp::create(b, loop.getLoc(), begin, end, one);
      b.setInsertionPointToStart(inner.getBody());
      // iv = lb + k * step
      Value iv = arith::AddIOp::create(
          b, loop.getLoc(), arith::ConstantIndexOp::create(b, loop.getLoc(), *lb),
          arith::MulIOp::create(b, loop.getLoc(), inner.getInductionVar(),
                                arith::ConstantIndexOp::create(b, loop.getLoc(), *step)));
      map.map(loop.getInductionVar(), iv);
      for (Operation &op : loop.getBody()->without_terminator())
        b.clone(op, map);
      b.setInsertionPointToEnd(entry);
      func::ReturnOp::create(b, loop.getLoc());

      // The loop becomes one call over all its iterations (split by the runtime).
      b.setInsertionPoint(loop);
      SmallVector<Value> operands;
      for (Value a : args) {
        if (DynamicBuffer::is(a))
          llvm::append_range(operands, DynamicBuffer::pass(b, loop.getLoc(), a));
        else
          operands.push_back(a);
      }
      operands.push_back(arith::ConstantIndexOp::create(b, loop.getLoc(), 0));
      if (ub) {
        operands.push_back(
            arith::ConstantIndexOp::create(b, loop.getLoc(), (*ub - *lb + *step - 1) / *step));
      } else {
        // ceil((ub - lb) / step), at least 0.
        Location l = loop.getLoc();
        Value span = arith::SubIOp::create(b, l, loop.getUpperBound(),
                                           arith::ConstantIndexOp::create(b, l, *lb));
        span = arith::MaxSIOp::create(b, l, span, arith::ConstantIndexOp::create(b, l, 0));
        operands.push_back(arith::CeilDivUIOp::create(
            b, l, span, arith::ConstantIndexOp::create(b, l, *step)));
      }
      operands.push_back(runtimeCtx);
      func::CallOp::create(b, loop.getLoc(), body, operands);
      loop.erase();
    }
  }
};

struct LowerParallelCallsPass : dlc::x86::impl::LowerParallelCallsBase<LowerParallelCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<LLVM::CallOp> calls;
    module.walk([&](LLVM::CallOp call) {
      auto callee = call.getCallee();
      if (callee && callee->starts_with(dlc::x86::kParallelBodyPrefix))
        calls.push_back(call);
    });
    if (calls.empty())
      return;
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto i64 = IntegerType::get(ctx, 64);
    auto voidType = LLVM::LLVMVoidType::get(ctx);
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    Location loc = module.getLoc();
    auto dispatch = module.lookupSymbol<LLVM::LLVMFuncOp>("dlc_runtime_parallel_for");
    if (!dispatch)
      dispatch = LLVM::LLVMFuncOp::create(b, loc, "dlc_runtime_parallel_for",
                                          LLVM::LLVMFunctionType::get(voidType, {ptr, i64, ptr, ptr}));
    for (LLVM::CallOp call : calls) {
      auto body = module.lookupSymbol<LLVM::LLVMFuncOp>(*call.getCallee());
      body.setLinkage(LLVM::Linkage::Internal);
      unsigned n = call.getNumOperands() - 3; // captures, then begin, end, ctx
      SmallVector<Type> fields;
      for (unsigned i = 0; i < n; ++i)
        fields.push_back(call.getOperand(i).getType());
      auto closureType = LLVM::LLVMStructType::getLiteral(ctx, fields.empty() ? SmallVector<Type>{i64} : fields);

      // void trampoline(ptr closure, i64 begin, i64 end): unpack, call the body.
      b.setInsertionPointToEnd(module.getBody());
      auto tramp = LLVM::LLVMFuncOp::create(b, call.getLoc(), (*call.getCallee() + "_chunk").str(),
                                            LLVM::LLVMFunctionType::get(voidType, {ptr, i64, i64}),
                                            LLVM::Linkage::Internal);
      Block *tb = tramp.addEntryBlock(b);
      b.setInsertionPointToStart(tb);
      SmallVector<Value> args;
      for (unsigned i = 0; i < n; ++i) {
        Value slot = LLVM::GEPOp::create(b, call.getLoc(), ptr, closureType, tb->getArgument(0),
                                         ArrayRef<LLVM::GEPArg>{0, (int32_t)i});
        args.push_back(LLVM::LoadOp::create(b, call.getLoc(), fields[i], slot));
      }
      args.push_back(tb->getArgument(1));
      args.push_back(tb->getArgument(2));
      args.push_back(LLVM::ZeroOp::create(b, call.getLoc(), ptr));
      LLVM::CallOp::create(b, call.getLoc(), body, args);
      LLVM::ReturnOp::create(b, call.getLoc(), ValueRange{});

      // At the call: fill the closure, dispatch over [0, end - begin).
      auto caller = call->getParentOfType<LLVM::LLVMFuncOp>();
      b.setInsertionPointToStart(&caller.getBody().front());
      Value one = LLVM::ConstantOp::create(b, call.getLoc(), i64, b.getI64IntegerAttr(1));
      Value closure = LLVM::AllocaOp::create(b, call.getLoc(), ptr, closureType, one);
      b.setInsertionPoint(call);
      for (unsigned i = 0; i < n; ++i) {
        Value slot = LLVM::GEPOp::create(b, call.getLoc(), ptr, closureType, closure,
                                         ArrayRef<LLVM::GEPArg>{0, (int32_t)i});
        LLVM::StoreOp::create(b, call.getLoc(), call.getOperand(i), slot);
      }
      Value count = LLVM::SubOp::create(b, call.getLoc(), call.getOperand(n + 1), call.getOperand(n));
      Value fn = LLVM::AddressOfOp::create(b, call.getLoc(), ptr, tramp.getSymName());
      LLVM::CallOp::create(b, call.getLoc(), dispatch,
                           ValueRange{call.getOperand(n + 2), count, fn, closure});
      call.erase();
    }
  }
};

} // namespace
