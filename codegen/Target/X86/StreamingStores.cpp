// dlc-streaming-stores: whole-cache-line vector stores into large outputs bypass the caches.
#include "codegen/Target/X86/Passes.h"
#include "codegen/Target/X86/StreamAccess.h"

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
using namespace dlc::x86;

namespace {

/// `if (address % 64 == 0) non-temporal store else the original write`: the
/// buffer's alignment is the caller's (the ABI does not require 64 bytes), and an
/// aligned streaming store needs it.
void streamWrite(RewriterBase &b, vector::TransferWriteOp write) {
  Location loc = write.getLoc();
  b.setInsertionPoint(write);
  Value dest = write.getBase();
  Value address = transferAddress(b, write);
  Value low = arith::AndIOp::create(b, loc, address,
                                    arith::ConstantIndexOp::create(b, loc, kCacheLineBytes - 1));
  Value aligned = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, low,
                                        arith::ConstantIndexOp::create(b, loc, 0));
  auto branch = scf::IfOp::create(b, loc, aligned, /*withElseRegion=*/true);
  b.setInsertionPointToStart(branch.thenBlock());
  VectorType vec = write.getVectorType();
  Value flat = vector::ShapeCastOp::create(
      b, loc, VectorType::get({vec.getNumElements()}, vec.getElementType()), write.getVector());
  vector::StoreOp::create(b, loc, flat, dest, write.getIndices(), /*nontemporal=*/true,
                          llvm::MaybeAlign(kCacheLineBytes));
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
      if (arg && isLargeArgument(arg, func) && transfersWholeLines(write))
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
