// The tensor-core schedule of a contraction (MmaConfig): blocks of output tiles, groups of
// threads (warps or warpgroups) within them, each group's tiles kept as accumulators
// across K. For mma.sync: 64x64 blocks, four warps of 32x32, each 2x4 tiles of 16x8, K
// steps of 8; for wgmma: one warpgroup's 64x64 tile, K steps of 32.
//
// It is written at group level (vector.transfer_read / vector.contract / transfer_write of
// whole tiles, masked at the edges), which runs on the CPU as it is; the GPU lowerings
// distribute each tile over the group's lanes (WarpMma.cpp: mma.sync fragments;
// WarpgroupMma.cpp: operands staged in shared memory, wgmma accumulators).
#include "codegen/Target/CUDA/MmaSchedule.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace dlc::cuda {

namespace {

/// The loop dims the schedule tiles, and the rest.
struct MmaDims {
  unsigned m, n, k;
  SmallVector<unsigned> outer; // batch and the other m/n dims: one block row each
};

/// Whether `op` is an f32 contraction the schedule takes: one reduction dim longer than
/// 1 (the others, of size 1, are outer dims), every operand map a projected permutation,
/// M >= 16, N >= 8, K >= 8 along the innermost M and N dims.
std::optional<MmaDims> mmaDims(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 || !op.hasPureBufferSemantics() ||
      !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  for (OpOperand &o : op->getOpOperands())
    if (!cast<MemRefType>(o.get().getType()).getElementType().isF32() ||
        !op.getMatchingIndexingMap(&o).isProjectedPermutation())
      return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims = linalg::inferContractionDims(op);
  if (failed(dims) || dims->k.empty() || dims->m.empty() || dims->n.empty())
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  // One reduction dim of more than one step (a 1x1 convolution's window dims are 1).
  SmallVector<unsigned> k;
  for (unsigned d : dims->k)
    if (ranges[d] != 1)
      k.push_back(d);
  if (k.size() != 1)
    return std::nullopt;
  MmaDims d{dims->m.back(), dims->n.back(), k.front(), {}};
  if (ranges[d.m] < kMmaM || ranges[d.n] < kMmaN || ranges[d.k] < kMmaK ||
      llvm::is_contained(ranges, 0))
    return std::nullopt;
  for (unsigned i = 0; i < ranges.size(); ++i)
    if (i != d.m && i != d.n && i != d.k)
      d.outer.push_back(i);
  return d;
}

/// A masked read or write of one tile of `operand`: indices at `at` (per loop dim), the
/// tile's rows and columns along loop dims `rowDim` and `colDim`.
struct TileAccess {
  SmallVector<Value> indices;
  AffineMap map; // operand dims -> (row, col)
};

TileAccess tileAccess(linalg::LinalgOp op, OpOperand &operand, ArrayRef<Value> at,
                      unsigned rowDim, unsigned colDim, OpBuilder &b) {
  AffineMap m = op.getMatchingIndexingMap(&operand);
  TileAccess t;
  int64_t rowPos = -1, colPos = -1;
  for (auto [pos, e] : llvm::enumerate(m.getResults())) {
    unsigned d = cast<AffineDimExpr>(e).getPosition();
    t.indices.push_back(at[d]);
    if (d == rowDim)
      rowPos = pos;
    if (d == colDim)
      colPos = pos;
  }
  t.map = AffineMap::get(m.getNumResults(), 0,
                         {b.getAffineDimExpr(rowPos), b.getAffineDimExpr(colPos)},
                         b.getContext());
  return t;
}

} // namespace

bool takesMmaSchedule(linalg::LinalgOp op) { return mmaDims(op).has_value(); }

LogicalResult buildMmaSchedule(linalg::LinalgOp op, const MmaConfig &cfg, RewriterBase &b) {
  std::optional<MmaDims> dims = mmaDims(op);
  if (!dims)
    return failure();
  MLIRContext *ctx = b.getContext();
  Location loc = op.getLoc();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t mBlocks = llvm::divideCeil(ranges[dims->m], cfg.blockM());
  int64_t nBlocks = llvm::divideCeil(ranges[dims->n], cfg.blockN());
  SmallVector<int64_t> basis;
  for (unsigned d : dims->outer)
    basis.push_back(ranges[d]);
  basis.append({mBlocks, nBlocks});
  int64_t blocks = 1;
  for (int64_t v : basis)
    blocks *= v;
  b.setInsertionPoint(op);
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v).getResult(); };
  auto grid = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(blocks)}, ValueRange{},
      b.getArrayAttr({gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimX)}));
  b.setInsertionPointToStart(grid.getBody());
  Attribute groupMapping =
      cfg.warpgroups
          ? Attribute(gpu::GPUWarpgroupMappingAttr::get(ctx, gpu::MappingId::DimX))
          : Attribute(gpu::GPUWarpMappingAttr::get(ctx, gpu::MappingId::DimX));
  auto warps = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(cfg.groupsM * cfg.groupsN)}, ValueRange{},
      b.getArrayAttr({groupMapping}));
  b.setInsertionPointToStart(warps.getBody());
  // Which outer point and block tile, which warp tile.
  SmallVector<Value> blockCoords =
      affine::AffineDelinearizeIndexOp::create(b, loc, grid.getInductionVar(0), basis, true)
          .getResults();
  SmallVector<Value> warpCoords =
      affine::AffineDelinearizeIndexOp::create(b, loc, warps.getInductionVar(0),
                                               ArrayRef<int64_t>{cfg.groupsM, cfg.groupsN}, true)
          .getResults();
  SmallVector<Value> at(ranges.size());
  for (auto [d, v] : llvm::zip(dims->outer, blockCoords))
    at[d] = v;
  AffineExpr blk, wrp;
  bindDims(ctx, blk, wrp);
  auto origin = [&](Value block, Value warp, int64_t blockTile, int64_t warpTile) {
    return affine::AffineApplyOp::create(b, loc,
                                         AffineMap::get(2, 0, blk * blockTile + wrp * warpTile),
                                         ValueRange{block, warp})
        .getResult();
  };
  Value m0 = origin(blockCoords[blockCoords.size() - 2], warpCoords[0], cfg.blockM(),
                    cfg.groupTileM());
  Value n0 = origin(blockCoords.back(), warpCoords[1], cfg.blockN(), cfg.groupTileN());
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  auto inBounds = b.getBoolArrayAttr({false, false});
  auto role = [&](Operation *o, StringRef r) { o->setAttr(kMmaRoleAttr, b.getStringAttr(r)); };
  // A rows x cols tile of `operand` at `at` along loop dims rowDim, colDim, as mma operand
  // `r` (masked: out-of-bounds elements read as 0).
  auto readTile = [&](OpOperand &operand, int64_t rows, int64_t cols, unsigned rowDim,
                      unsigned colDim, StringRef r) {
    TileAccess t = tileAccess(op, operand, at, rowDim, colDim, b);
    auto read = vector::TransferReadOp::create(
        b, loc, VectorType::get({rows, cols}, b.getF32Type()), operand.get(), t.indices,
        AffineMapAttr::get(t.map), zero, Value(), inBounds);
    role(read, r);
    return read.getResult();
  };
  OpOperand *lhs = op.getDpsInputOperand(0), *rhs = op.getDpsInputOperand(1),
             *out = op.getDpsInitOperand(0);
  // The accumulators: C's tiles (the op adds to what C holds).
  auto tileOrigin = [&](Value base, int64_t i, int64_t size) {
    return i == 0 ? base : arith::AddIOp::create(b, loc, base, c(i * size)).getResult();
  };
  SmallVector<Value> inits;
  for (int64_t i = 0; i < cfg.tilesM; ++i)
    for (int64_t j = 0; j < cfg.tilesN; ++j) {
      at[dims->m] = tileOrigin(m0, i, cfg.tileM);
      at[dims->n] = tileOrigin(n0, j, cfg.tileN);
      at[dims->k] = c(0);
      inits.push_back(readTile(*out, cfg.tileM, cfg.tileN, dims->m, dims->n, "c"));
    }
  auto loop = scf::ForOp::create(b, loc, c(0), c(ranges[dims->k]), c(cfg.tileK), inits);
  b.setInsertionPointToStart(loop.getBody());
  at[dims->k] = loop.getInductionVar();
  SmallVector<Value> as, bs;
  for (int64_t i = 0; i < cfg.tilesM; ++i) {
    at[dims->m] = tileOrigin(m0, i, cfg.tileM);
    as.push_back(readTile(*lhs, cfg.tileM, cfg.tileK, dims->m, dims->k, "a"));
  }
  for (int64_t j = 0; j < cfg.tilesN; ++j) {
    at[dims->n] = tileOrigin(n0, j, cfg.tileN);
    bs.push_back(readTile(*rhs, cfg.tileK, cfg.tileN, dims->k, dims->n, "b"));
  }
  AffineExpr mm, nn, kk;
  bindDims(ctx, mm, nn, kk);
  auto maps = b.getAffineMapArrayAttr({AffineMap::get(3, 0, {mm, kk}, ctx),
                                       AffineMap::get(3, 0, {kk, nn}, ctx),
                                       AffineMap::get(3, 0, {mm, nn}, ctx)});
  auto iters = b.getArrayAttr({vector::IteratorTypeAttr::get(ctx, vector::IteratorType::parallel),
                               vector::IteratorTypeAttr::get(ctx, vector::IteratorType::parallel),
                               vector::IteratorTypeAttr::get(ctx, vector::IteratorType::reduction)});
  SmallVector<Value> sums;
  for (int64_t i = 0; i < cfg.tilesM; ++i)
    for (int64_t j = 0; j < cfg.tilesN; ++j)
      sums.push_back(vector::ContractionOp::create(b, loc, as[i], bs[j],
                                                   loop.getRegionIterArgs()[i * cfg.tilesN + j],
                                                   maps, iters));
  scf::YieldOp::create(b, loc, sums);
  b.setInsertionPointAfter(loop);
  for (int64_t i = 0; i < cfg.tilesM; ++i)
    for (int64_t j = 0; j < cfg.tilesN; ++j) {
      at[dims->m] = tileOrigin(m0, i, cfg.tileM);
      at[dims->n] = tileOrigin(n0, j, cfg.tileN);
      at[dims->k] = c(0);
      TileAccess t = tileAccess(op, *out, at, dims->m, dims->n, b);
      auto write = vector::TransferWriteOp::create(b, loc, loop.getResult(i * cfg.tilesN + j),
                                                   out->get(), t.indices,
                                                   AffineMapAttr::get(t.map), inBounds);
      role(write, "c");
    }
  b.eraseOp(op);
  return success();
}

} // namespace dlc::cuda
