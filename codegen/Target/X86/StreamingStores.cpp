// dlc-streaming-stores: whole-cache-line vector stores into large outputs bypass the caches.
#include "codegen/Target/X86/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

namespace dlc::x86 {
#define GEN_PASS_DEF_STREAMINGSTORES
#include "codegen/Target/X86/Passes.h.inc"
} // namespace dlc::x86

using namespace mlir;

namespace {

/// Outputs at least this large stream past the caches: they exceed what a core's
/// share of L2 + L3 keeps until the caller reads them, so caching them only costs
/// a read-for-ownership of every line and evicts the working set.
constexpr int64_t kMinStreamingBytes = 4 << 20;
constexpr int64_t kLineBytes = 64;

/// The function argument `v` views (through subviews and casts), if any.
BlockArgument viewedArgument(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto subview = dyn_cast<memref::SubViewOp>(def))
      v = subview.getSource();
    else if (auto cast = dyn_cast<memref::CastOp>(def))
      v = cast.getSource();
    else
      return {};
  }
  return dyn_cast<BlockArgument>(v);
}

bool isLargeOutput(BlockArgument arg, func::FuncOp func) {
  auto type = dyn_cast<MemRefType>(arg.getType());
  if (!type || !type.hasStaticShape() || arg.getOwner() != &func.getBody().front())
    return false;
  return type.getNumElements() * type.getElementTypeBitWidth() / 8 >= kMinStreamingBytes;
}

/// A write of whole cache lines along the innermost, contiguous dim of its memref:
/// a vector of 1 x .. x 1 x N elements, N * size a multiple of the line.
bool writesWholeLines(vector::TransferWriteOp write) {
  auto memref = dyn_cast<MemRefType>(write.getShapedType());
  VectorType vec = write.getVectorType();
  if (!memref || write.getMask() || !write.getPermutationMap().isMinorIdentity() ||
      llvm::any_of(write.getInBoundsValues(), [](bool b) { return !b; }))
    return false;
  if (llvm::any_of(vec.getShape().drop_back(), [](int64_t d) { return d != 1; }) ||
      vec.isScalable())
    return false;
  int64_t bytes = vec.getNumElements() * vec.getElementTypeBitWidth() / 8;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)) || strides.empty() ||
      strides.back() != 1)
    return false;
  return bytes % kLineBytes == 0;
}

/// `if (address % 64 == 0) non-temporal store else the original write`: the
/// buffer's alignment is the caller's (the ABI does not require 64 bytes), and an
/// aligned streaming store needs it.
void streamWrite(RewriterBase &b, vector::TransferWriteOp write) {
  Location loc = write.getLoc();
  b.setInsertionPoint(write);
  Value dest = write.getBase();
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, dest);
  Value linear = meta.getOffset();
  for (auto [index, stride] : llvm::zip(write.getIndices(), meta.getStrides()))
    linear = arith::AddIOp::create(b, loc, linear, arith::MulIOp::create(b, loc, index, stride));
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, dest);
  int64_t eltBytes = write.getVectorType().getElementTypeBitWidth() / 8;
  Value bytes = arith::MulIOp::create(b, loc, linear,
                                      arith::ConstantIndexOp::create(b, loc, eltBytes));
  Value address = arith::AddIOp::create(b, loc, base, bytes);
  Value low = arith::AndIOp::create(b, loc, address,
                                    arith::ConstantIndexOp::create(b, loc, kLineBytes - 1));
  Value aligned = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, low,
                                        arith::ConstantIndexOp::create(b, loc, 0));
  auto branch = scf::IfOp::create(b, loc, aligned, /*withElseRegion=*/true);
  b.setInsertionPointToStart(branch.thenBlock());
  VectorType vec = write.getVectorType();
  Value flat = vector::ShapeCastOp::create(
      b, loc, VectorType::get({vec.getNumElements()}, vec.getElementType()), write.getVector());
  vector::StoreOp::create(b, loc, flat, dest, write.getIndices(), /*nontemporal=*/true,
                          llvm::MaybeAlign(kLineBytes));
  b.moveOpBefore(write, branch.elseBlock(), branch.elseBlock()->begin());
}

struct StreamingStoresPass : dlc::x86::impl::StreamingStoresBase<StreamingStoresPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    SmallVector<vector::TransferWriteOp> writes;
    func.walk([&](vector::TransferWriteOp write) {
      BlockArgument arg = viewedArgument(write.getBase());
      if (arg && isLargeOutput(arg, func) && writesWholeLines(write))
        writes.push_back(write);
    });
    IRRewriter b(&getContext());
    llvm::SetVector<Operation *> fenced; // top-level ops holding streaming stores
    for (vector::TransferWriteOp write : writes) {
      Operation *top = write;
      while (top->getParentOp() != func)
        top = top->getParentOp();
      fenced.insert(top);
      streamWrite(b, write);
    }
    // Streaming stores are weakly ordered: fence them before whatever tells another
    // thread (or the caller) the data is there. In a loop the fence ends each
    // iteration, so a thread that runs a share of a parallel loop fences its own.
    for (Operation *top : fenced) {
      if (auto loop = dyn_cast<scf::ForOp>(top))
        b.setInsertionPoint(loop.getBody()->getTerminator());
      else
        b.setInsertionPointAfter(top);
      LLVM::CallIntrinsicOp::create(b, top->getLoc(), b.getStringAttr("llvm.x86.sse.sfence"),
                                    ValueRange{});
    }
  }
};

} // namespace
