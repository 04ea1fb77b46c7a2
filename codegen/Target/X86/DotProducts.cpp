// Integer contractions as dot-product instructions (QUANT-NOTES.md §3.3): a vector.contract
// of zero-extended u8 activations and sign-extended s8 weights in 4-byte K groups becomes one
// dlc_x86.dot_u8s8 (AVX-512 VNNI vpdpbusd) per (row, 16 columns); one of i16 operands in
// pairs (8-bit values widened) one dlc_x86.dot_i16 (AVX2 vpmaddwd + vpaddd) per (row, 8
// columns); one of bf16 operands in pairs into f32 one dlc_x86.dot_bf16 (AVX512-BF16
// vdpbf16ps) per (row, 16 columns). dlc-x86-lower-intrinsics turns those into the
// intrinsics once buffers are final.
#include "codegen/Target/X86/CpuTarget.h"
#include "codegen/Target/X86/IR/X86Dialect.h"
#include "codegen/Target/X86/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dlc::x86 {
#define GEN_PASS_DEF_LOWERINTRINSICS
#include "codegen/Target/X86/Passes.h.inc"
} // namespace dlc::x86

using namespace mlir;

namespace dlc::x86 {
namespace {

/// A dot-product instruction: `lanes` 32-bit sums of `group` products of `bits`-wide
/// operands, the activations zero-extended (`unsignedLhs`) or sign-extended; or, `bf16`,
/// f32 sums of bf16 products (operands widened by extf).
struct DotShape {
  int64_t lanes, group;
  unsigned bits;
  bool unsignedLhs;
  bool bf16 = false;
  /// The operands' element type (as read, before widening) and the lanes' type.
  Type operandType(MLIRContext *ctx) const {
    return bf16 ? Type(BFloat16Type::get(ctx)) : Type(IntegerType::get(ctx, bits));
  }
  Type laneType(MLIRContext *ctx) const {
    return bf16 ? Type(Float32Type::get(ctx)) : Type(IntegerType::get(ctx, 32));
  }
};
/// vpdpbusd zmm: 16 lanes of 4 u8 x s8. vpmaddwd ymm: 8 lanes of 2 i16 x i16. vdpbf16ps
/// zmm: 16 f32 lanes of 2 bf16 x bf16.
constexpr DotShape kVnni{16, 4, 8, true}, kPairs{8, 2, 16, false},
    kBf16{16, 2, 16, false, /*bf16=*/true};

/// The vector of `bits`-wide integers that `v` widens by `ExtOp`, or null.
template <typename ExtOp>
Value widenedFrom(Value v, unsigned bits) {
  auto ext = v.getDefiningOp<ExtOp>();
  if (!ext)
    return {};
  auto type = dyn_cast<VectorType>(ext.getIn().getType());
  return type && type.getElementType().isInteger(bits) ? ext.getIn() : Value();
}

/// The bf16 vector that `v` widens (arith.extf), or null.
Value widenedFromBf16(Value v) {
  auto ext = v.getDefiningOp<arith::ExtFOp>();
  if (!ext)
    return {};
  auto type = dyn_cast<VectorType>(ext.getIn().getType());
  return type && type.getElementType().isBF16() ? ext.getIn() : Value();
}

/// The loops of a contraction in the dot-product form: the lane columns n0 and the K group
/// k0, and the products of the row dims (rows) and of the other column dims (column
/// blocks). Unit dims (a batch of 1, a K-group loop tiled by one) may appear anywhere.
struct DotLoops {
  int64_t n0 = -1, k0 = -1;
  int64_t rows = 1, blocks = 1;
  /// The one column-block dim of more than one iteration (-1: none).
  int64_t block = -1;
};

/// Result position of dim `d` in `map` (-1: absent).
int64_t positionOf(AffineMap map, int64_t d) {
  if (d < 0)
    return -1;
  std::optional<unsigned> p = map.getResultPosition(getAffineDimExpr(d, map.getContext()));
  return p ? int64_t(*p) : -1;
}

/// The dims of `map`'s results, in order, that have more than one iteration.
SmallVector<int64_t> nonUnitDims(AffineMap map, ArrayRef<int64_t> bounds) {
  SmallVector<int64_t> dims;
  for (AffineExpr e : map.getResults()) {
    int64_t d = cast<AffineDimExpr>(e).getPosition();
    if (bounds[d] != 1)
      dims.push_back(d);
  }
  return dims;
}

/// Classifies the loops of `op` (lhs: rows x K, rhs: K x columns, acc: rows x columns), or
/// fails when it is not a contraction the dot product computes: with unit dims dropped,
/// lhs [rows..., k0], rhs [blocks..., n0, k0] (any order of blocks and unit K dims) and
/// acc [rows..., blocks..., n0], rows and blocks in the same order everywhere.
FailureOr<DotLoops> dotLoops(vector::ContractionOp op, const DotShape &shape) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!llvm::all_of(maps, [](AffineMap m) { return m.isProjectedPermutation(); }))
    return failure();
  SmallVector<int64_t> bounds;
  op.getIterationBounds(bounds);
  DotLoops l;
  unsigned rr = maps[1].getNumResults();
  if (rr < 2)
    return failure();
  auto dimAt = [](AffineMap map, unsigned p) {
    return int64_t(cast<AffineDimExpr>(map.getResult(p)).getPosition());
  };
  l.n0 = dimAt(maps[1], rr - 2);
  l.k0 = dimAt(maps[1], rr - 1);
  if (bounds[l.n0] != shape.lanes || bounds[l.k0] != shape.group || maps[0].isFunctionOfDim(l.n0) ||
      maps[2].isFunctionOfDim(l.k0))
    return failure();
  SmallVector<int64_t> lhs = nonUnitDims(maps[0], bounds), rhs = nonUnitDims(maps[1], bounds),
                       acc = nonUnitDims(maps[2], bounds);
  // lhs: rows..., k0. rhs: blocks..., n0, k0.
  if (lhs.empty() || lhs.back() != l.k0 || rhs.size() < 2 || rhs.back() != l.k0 ||
      rhs[rhs.size() - 2] != l.n0)
    return failure();
  SmallVector<int64_t> rows(lhs.begin(), lhs.end() - 1), blocks(rhs.begin(), rhs.end() - 2);
  SmallVector<int64_t> expected(rows);
  llvm::append_range(expected, blocks);
  expected.push_back(l.n0);
  if (acc != expected)
    return failure();
  for (int64_t d : rows)
    l.rows *= bounds[d];
  for (int64_t d : blocks)
    l.blocks *= bounds[d];
  if (blocks.size() == 1)
    l.block = blocks.front();
  return l;
}

/// vector.contract(ext(a), extsi(b)) with a K group and lane columns of `DotOp`'s shape
/// (dot_u8s8: a u8 zero-extended, b s8, groups of 4, 16 columns; dot_i16: a and b i16
/// sign-extended, pairs, 8 columns; dot_bf16: a and b bf16 by extf, pairs, 16 f32
/// columns) -> per accumulator row and column block, one `DotOp` of the row's group
/// broadcast (one 32-bit word) and the block's weights.
template <typename DotOp>
struct ContractToDot : OpRewritePattern<vector::ContractionOp> {
  ContractToDot(MLIRContext *ctx, DotShape shape, PatternBenefit benefit)
      : OpRewritePattern(ctx, benefit), shape(shape) {}
  DotShape shape;

  LogicalResult matchAndRewrite(vector::ContractionOp op,
                                PatternRewriter &rewriter) const override {
    auto accType = dyn_cast<VectorType>(op.getAccType());
    Value lhs = shape.bf16          ? widenedFromBf16(op.getLhs())
                : shape.unsignedLhs ? widenedFrom<arith::ExtUIOp>(op.getLhs(), shape.bits)
                                    : widenedFrom<arith::ExtSIOp>(op.getLhs(), shape.bits);
    Value rhs = shape.bf16 ? widenedFromBf16(op.getRhs())
                           : widenedFrom<arith::ExtSIOp>(op.getRhs(), shape.bits);
    MLIRContext *ctx = op.getContext();
    if (op.getKind() != vector::CombiningKind::ADD || !accType ||
        accType.getElementType() != shape.laneType(ctx) || !lhs || !rhs)
      return failure();
    auto loops = dotLoops(op, shape);
    if (failed(loops))
      return failure();
    int64_t rows = loops->rows, blocks = loops->blocks;
    // 32 accumulators and more spill (QUANT-NOTES.md §4): the tiles keep to 16.
    if (rows * blocks > 32)
      return failure();
    Location loc = op.getLoc();
    Type elt = shape.operandType(ctx), i32 = rewriter.getI32Type();
    auto words = VectorType::get({shape.lanes * shape.group}, elt);
    auto splats = VectorType::get({shape.lanes}, i32); // the broadcast 32-bit groups
    auto lanes = VectorType::get({shape.lanes}, shape.laneType(ctx));
    // Unit dims drop out of every operand, leaving a [rows, G], b [blocks, L, G] (the
    // blocks before or after a unit k1: the same order) and acc [rows, blocks, L].
    Value a = vector::ShapeCastOp::create(rewriter, loc,
                                          VectorType::get({rows, shape.group}, elt), lhs);
    auto blockRows = blockReads(rewriter, loc, rhs, *loops, op, blocks, shape);
    Value acc = vector::ShapeCastOp::create(
        rewriter, loc, VectorType::get({rows, blocks, shape.lanes}, shape.laneType(ctx)),
        op.getAcc());
    SmallVector<Value> broadcasts;
    for (int64_t r = 0; r < rows; ++r) {
      Value group = vector::ExtractOp::create(rewriter, loc, a, ArrayRef<int64_t>{r});
      Value word = vector::BitCastOp::create(rewriter, loc, VectorType::get({1}, i32), group);
      Value scalar = vector::ExtractOp::create(rewriter, loc, word, ArrayRef<int64_t>{0});
      Value splat = vector::BroadcastOp::create(rewriter, loc, splats, scalar);
      broadcasts.push_back(vector::BitCastOp::create(rewriter, loc, words, splat));
    }
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < blocks; ++j) {
        Value sum = vector::ExtractOp::create(rewriter, loc, acc, ArrayRef<int64_t>{r, j});
        sum = DotOp::create(rewriter, loc, lanes, sum, broadcasts[r], blockRows[j]);
        acc = vector::InsertOp::create(rewriter, loc, sum, acc, ArrayRef<int64_t>{r, j});
      }
    rewriter.replaceOpWithNewOp<vector::ShapeCastOp>(op, accType, acc);
    return success();
  }

  /// The [L, G] weights of each column block. When the weights come from one
  /// in-bounds transfer_read, each block is read on its own (contiguous in the packed
  /// layout; dlc-x86-lower-intrinsics makes it one 64-byte load), else it is extracted
  /// from the whole vector.
  static SmallVector<Value> blockReads(PatternRewriter &rewriter, Location loc, Value rhs,
                                       const DotLoops &loops, vector::ContractionOp op,
                                       int64_t blocks, const DotShape &shape) {
    Type elt = shape.operandType(rewriter.getContext());
    auto tile = VectorType::get({shape.lanes, shape.group}, elt);
    SmallVector<Value> out;
    // A read whose two innermost vector dims are the source's two innermost (the packed
    // [L, G] block), the column blocks along one source dim.
    auto read = rhs.getDefiningOp<vector::TransferReadOp>();
    AffineMap map = read ? read.getPermutationMap() : AffineMap();
    int64_t srcRank = read ? int64_t(read.getIndices().size()) : 0;
    auto sourceDimOf = [&](int64_t vectorDim) -> int64_t {
      auto d = dyn_cast<AffineDimExpr>(map.getResult(vectorDim));
      return d ? int64_t(d.getPosition()) : -1;
    };
    unsigned vr = map ? map.getNumResults() : 0;
    int64_t blockPos = positionOf(op.getIndexingMapsArray()[1], loops.block);
    bool fresh = read && !read.getMask() && !read.hasOutOfBoundsDim() && vr >= 2 &&
                 sourceDimOf(vr - 2) == srcRank - 2 && sourceDimOf(vr - 1) == srcRank - 1 &&
                 (blocks == 1 || (blockPos >= 0 && sourceDimOf(blockPos) >= 0));
    if (fresh) {
      int64_t blockDim = blocks == 1 ? -1 : sourceDimOf(blockPos);
      AffineMap minor = AffineMap::getMinorIdentityMap(srcRank, 2, rewriter.getContext());
      for (int64_t j = 0; j < blocks; ++j) {
        SmallVector<Value> indices(read.getIndices());
        if (blockDim >= 0 && j > 0) {
          Value step = arith::ConstantIndexOp::create(rewriter, loc, j);
          indices[blockDim] = arith::AddIOp::create(rewriter, loc, indices[blockDim], step);
        }
        out.push_back(vector::TransferReadOp::create(
            rewriter, loc, tile, read.getBase(), indices, AffineMapAttr::get(minor),
            read.getPadding(), /*mask=*/Value(), rewriter.getBoolArrayAttr({true, true})));
      }
      return out;
    }
    Value all = vector::ShapeCastOp::create(
        rewriter, loc, VectorType::get({blocks, shape.lanes, shape.group}, elt), rhs);
    for (int64_t j = 0; j < blocks; ++j)
      out.push_back(vector::ExtractOp::create(rewriter, loc, all, ArrayRef<int64_t>{j}));
    return out;
  }
};

/// A dot op whose instruction accumulates itself -> its intrinsic `name`(acc, a, b), the
/// weight tile flattened to a's type: dlc_x86.dot_u8s8 -> llvm.x86.avx512.vpdpbusd.512
/// (LLVM 22 types: i32 x 16, i8 x 64 x 2; the unsigned operand second, as in Intel's
/// VPDPBUSD zmm1, zmm2(u8), zmm3(s8)); dlc_x86.dot_bf16 -> llvm.x86.avx512bf16.dpbf16ps.512
/// (f32 x 16, bf16 x 32 x 2; x86vector.avx512.dot's intrinsic, without that dialect).
template <typename DotOp>
struct AccumulatingDotToIntrinsic : OpRewritePattern<DotOp> {
  AccumulatingDotToIntrinsic(MLIRContext *ctx, StringRef name)
      : OpRewritePattern<DotOp>(ctx), name(name) {}
  std::string name;
  LogicalResult matchAndRewrite(DotOp op, PatternRewriter &rewriter) const override {
    Value b = vector::ShapeCastOp::create(rewriter, op.getLoc(), op.getA().getType(), op.getB());
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(op, op.getType(),
                                                       rewriter.getStringAttr(name),
                                                       ValueRange{op.getAcc(), op.getA(), b});
    return success();
  }
};

/// dlc_x86.dot_i16 -> llvm.x86.avx2.pmadd.wd (vpmaddwd: 8 sums of 2 i16 products) + acc.
struct DotI16ToIntrinsic : OpRewritePattern<DotI16Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DotI16Op op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value b = vector::ShapeCastOp::create(rewriter, loc, op.getA().getType(), op.getB());
    Value products = LLVM::CallIntrinsicOp::create(
                         rewriter, loc, op.getType(), rewriter.getStringAttr("llvm.x86.avx2.pmadd.wd"),
                         ValueRange{op.getA(), b})
                         .getResult(0);
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, op.getAcc(), products);
    return success();
  }
};

struct LowerIntrinsicsPass : impl::LowerIntrinsicsBase<LowerIntrinsicsPass> {
  using LowerIntrinsicsBase::LowerIntrinsicsBase;
  /// Whether the target converts f32 <-> bf16 itself (AVX512-BF16); resolved once.
  bool nativeBf16 = false;
  LogicalResult initialize(MLIRContext *) override {
    nativeBf16 = CpuTarget::resolve(cpu).bf16;
    return success();
  }

  void runOnOperation() override {
    // The weight tiles the dot products read: one 64-byte (32-byte) load each.
    SmallVector<Operation *> reads;
    getOperation().walk([&](Operation *op) {
      if (!isa<DotU8S8Op, DotI16Op, DotBf16Op>(op))
        return;
      if (auto read = op->getOperand(2).getDefiningOp<vector::TransferReadOp>())
        reads.push_back(read);
    });
    if (!reads.empty()) {
      RewritePatternSet flatten(&getContext());
      vector::populateFlattenVectorTransferPatterns(flatten);
      (void)applyOpPatternsGreedily(reads, std::move(flatten));
    }
    RewritePatternSet patterns(&getContext());
    patterns.add<DotI16ToIntrinsic>(&getContext());
    patterns.add<AccumulatingDotToIntrinsic<DotU8S8Op>>(&getContext(),
                                                        "llvm.x86.avx512.vpdpbusd.512");
    patterns.add<AccumulatingDotToIntrinsic<DotBf16Op>>(&getContext(),
                                                        "llvm.x86.avx512bf16.dpbf16ps.512");
    if (!nativeBf16)
      arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void populateDotProductPatterns(RewritePatternSet &patterns, bool vnni, bool bf16,
                                PatternBenefit benefit) {
  if (vnni)
    patterns.add<ContractToDot<DotU8S8Op>>(patterns.getContext(), kVnni, benefit);
  if (bf16)
    patterns.add<ContractToDot<DotBf16Op>>(patterns.getContext(), kBf16, benefit);
  patterns.add<ContractToDot<DotI16Op>>(patterns.getContext(), kPairs, benefit);
}

} // namespace dlc::x86
