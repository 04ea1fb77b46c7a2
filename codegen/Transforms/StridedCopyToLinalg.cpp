// dlc-strided-copy-to-linalg: strided memref.copy as vector loops or linalg.copy, so no
// runtime library is needed.
#include "codegen/Transforms/Passes.h"
#include "codegen/Transforms/RewriteConfig.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dlc::codegen {
#define GEN_PASS_DEF_STRIDEDCOPYTOLINALG
#include "codegen/Transforms/Passes.h.inc"
} // namespace dlc::codegen

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
  /// outer dims, the innermost dim moved 16 elements at a time and its remainder in
  /// one vector per set bit (8, 4, 2, 1): a row of 113 is 7 x 16 + 1. (linalg.copy
  /// would become scalar loops: bufferization leaves such copies where a result or
  /// an input lands in a padded buffer's interior.)
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
    // A memref of i1 holds a byte per element, but vector<Nxi1> loads and stores are
    // bit packed (N bits): such copies stay scalar (linalg.copy).
    if (src.getElementTypeBitWidth() % 8 != 0)
      return failure();
    constexpr int64_t kWidth = 16;
    int64_t inner = src.getShape().back(), whole = inner / kWidth * kWidth;
    Location loc = op.getLoc();
    auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
    SmallVector<Value> ivs;
    // No loop for one iteration: a Split into 10,000 rows would otherwise leave 10,000
    // loops in one block, which scf-to-cf splits one by one (quadratic).
    for (int64_t d = 0; d + 1 < src.getRank(); ++d) {
      if (src.getDimSize(d) == 1) {
        ivs.push_back(index(0));
        continue;
      }
      auto loop = scf::ForOp::create(b, loc, index(0), index(src.getDimSize(d)), index(1));
      ivs.push_back(loop.getInductionVar());
      b.setInsertionPointToStart(loop.getBody());
    }
    auto move = [&](int64_t width, Value at) {
      SmallVector<Value> idx(ivs);
      idx.push_back(at);
      auto vec = VectorType::get({width}, src.getElementType());
      Value v = vector::LoadOp::create(b, loc, vec, op.getSource(), idx);
      vector::StoreOp::create(b, loc, v, op.getTarget(), idx);
    };
    if (whole == kWidth) {
      move(kWidth, index(0));
    } else if (whole > 0) {
      OpBuilder::InsertionGuard guard(b);
      auto loop = scf::ForOp::create(b, loc, index(0), index(whole), index(kWidth));
      b.setInsertionPointToStart(loop.getBody());
      move(kWidth, loop.getInductionVar());
    }
    int64_t at = whole;
    for (int64_t width = kWidth / 2; width >= 1; width /= 2)
      if ((inner - whole) & width) {
        move(width, index(at));
        at += width;
      }
    b.eraseOp(op);
    return success();
  }
};

struct StridedCopyToLinalgPass
    : dlc::codegen::impl::StridedCopyToLinalgBase<StridedCopyToLinalgPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<StridedCopy>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     dlc::codegen::patternPassConfig())))
      signalPassFailure();
  }
};
} // namespace
