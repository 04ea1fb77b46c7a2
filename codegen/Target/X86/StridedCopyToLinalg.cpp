// dlc-strided-copy-to-linalg: strided memref.copy as linalg.copy, so no runtime library is needed.
#include "codegen/Target/X86/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dlc::x86 {
#define GEN_PASS_DEF_STRIDEDCOPYTOLINALG
#include "codegen/Target/X86/Passes.h.inc"
} // namespace dlc::x86

using namespace mlir;

namespace {
struct StridedCopy : OpRewritePattern<memref::CopyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(memref::CopyOp op, PatternRewriter &b) const override {
    // A buffer copied onto itself (what bufferization leaves for in-place slices).
    if (op.getSource() == op.getTarget()) {
      b.eraseOp(op);
      return success();
    }
    auto src = cast<MemRefType>(op.getSource().getType());
    auto dst = cast<MemRefType>(op.getTarget().getType());
    // Contiguous copies stay memcpy.
    if (src.getLayout().isIdentity() && dst.getLayout().isIdentity())
      return failure();
    b.replaceOpWithNewOp<linalg::CopyOp>(op, op.getSource(), op.getTarget());
    return success();
  }
};

struct StridedCopyToLinalgPass
    : dlc::x86::impl::StridedCopyToLinalgBase<StridedCopyToLinalgPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<StridedCopy>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
