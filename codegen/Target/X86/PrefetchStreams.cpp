// dlc-prefetch-streams: software prefetch ahead of whole-line reads of large inputs.
#include "codegen/Target/X86/Passes.h"
#include "codegen/Target/X86/StreamAccess.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace dlc::x86 {
#define GEN_PASS_DEF_PREFETCHSTREAMS
#include "codegen/Target/X86/Passes.h.inc"
} // namespace dlc::x86

using namespace mlir;
using namespace dlc::x86;

namespace {


/// One prefetch (into all cache levels) per line `read` covers, kPrefetchBytes
/// ahead. Past the buffer's end it fetches someone else's line (x86 prefetches do
/// not fault).
void prefetchAhead(RewriterBase &b, vector::TransferReadOp read) {
  Location loc = read.getLoc();
  b.setInsertionPoint(read);
  Value address = transferAddress(b, read);
  VectorType vec = read.getVectorType();
  int64_t bytes = vec.getNumElements() * vec.getElementTypeBitWidth() / 8;
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  for (int64_t offset = 0; offset < bytes; offset += kCacheLineBytes) {
    Value ahead = arith::AddIOp::create(
        b, loc, address, arith::ConstantIndexOp::create(b, loc, offset + kPrefetchBytes));
    Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), ahead);
    Value ptr = LLVM::IntToPtrOp::create(b, loc, ptrType, i64);
    LLVM::Prefetch::create(b, loc, ptr, /*rw=*/0, /*hint=*/3, /*cache=*/1);
  }
}

struct PrefetchStreamsPass : dlc::x86::impl::PrefetchStreamsBase<PrefetchStreamsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    SmallVector<vector::TransferReadOp> reads;
    func.walk([&](vector::TransferReadOp read) {
      BlockArgument arg = viewedArgument(read.getBase());
      if (arg && isLargeArgument(arg, func) && read->getParentOfType<scf::ForOp>() &&
          transfersWholeLines(read))
        reads.push_back(read);
    });
    IRRewriter b(&getContext());
    for (vector::TransferReadOp read : reads)
      prefetchAhead(b, read);
  }
};

} // namespace
