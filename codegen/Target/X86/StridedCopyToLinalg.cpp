// dlc-strided-copy-to-linalg: strided memref.copy as vector loops or linalg.copy, so no
// runtime library is needed.
#include "codegen/Target/X86/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
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
    if (succeeded(copyByVectors(op, src, dst, b)))
      return success();
    b.replaceOpWithNewOp<linalg::CopyOp>(op, op.getSource(), op.getTarget());
    return success();
  }

  /// Static shapes whose innermost dim is contiguous on both sides: loops over the
  /// outer dims, the innermost dim moved in the widest vectors (16, 8, 4, 2 or 1
  /// elements) that divide it. (linalg.copy would become scalar loops: bufferization
  /// leaves such copies where a result lands in a padded buffer's interior.)
  static LogicalResult copyByVectors(memref::CopyOp op, MemRefType src, MemRefType dst,
                                     PatternRewriter &b) {
    auto innerContiguous = [](MemRefType t) {
      SmallVector<int64_t> strides;
      int64_t offset;
      return t.hasStaticShape() && t.getRank() > 0 &&
             succeeded(t.getStridesAndOffset(strides, offset)) && strides.back() == 1;
    };
    if (!innerContiguous(src) || !innerContiguous(dst) || src.getNumElements() == 0)
      return failure();
    int64_t inner = src.getShape().back();
    int64_t width = 16;
    while (inner % width != 0)
      width /= 2;
    Location loc = op.getLoc();
    auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
    SmallVector<Value> ivs;
    for (int64_t d = 0; d < src.getRank(); ++d) {
      bool last = d + 1 == src.getRank();
      auto loop = scf::ForOp::create(b, loc, index(0), index(src.getDimSize(d)),
                                     index(last ? width : 1));
      ivs.push_back(loop.getInductionVar());
      b.setInsertionPointToStart(loop.getBody());
    }
    auto vec = VectorType::get({width}, src.getElementType());
    Value v = vector::LoadOp::create(b, loc, vec, op.getSource(), ivs);
    vector::StoreOp::create(b, loc, v, op.getTarget(), ivs);
    b.eraseOp(op);
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
