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
#include "codegen/Target/CUDA/ScheduleUtils.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace dlc::cuda {

namespace {

/// The loop dims the schedule tiles, and the rest.
struct MmaDims {
  unsigned m, n, k;
  SmallVector<unsigned> outer; // batch and the other m/n dims: one block row each
  SmallVector<unsigned> kLoops; // other reduction dims (a convolution's window): loops
};

/// The coefficient of loop dim `d` in `e`, a linear (pure affine) index expression.
int64_t coefficientOf(AffineExpr e, unsigned d, unsigned numDims) {
  MLIRContext *ctx = e.getContext();
  SmallVector<AffineExpr> zeros(numDims, getAffineConstantExpr(0, ctx)), unit = zeros;
  unit[d] = getAffineConstantExpr(1, ctx);
  auto at = [&](ArrayRef<AffineExpr> dims) {
    return cast<AffineConstantExpr>(simplifyAffineExpr(e.replaceDimsAndSymbols(dims, {}),
                                                       0, 0))
        .getValue();
  };
  return at(unit) - at(zeros);
}

/// The results of `map` that use loop dim `d`.
SmallVector<unsigned> resultsUsing(AffineMap map, unsigned d) {
  SmallVector<unsigned> results;
  for (auto [i, e] : llvm::enumerate(map.getResults()))
    if (e.isFunctionOfDim(d))
      results.push_back(i);
  return results;
}

/// Whether `d` is, alone, exactly one result of `map`.
bool isPureIn(AffineMap map, unsigned d) {
  SmallVector<unsigned> r = resultsUsing(map, d);
  return r.size() == 1 && isa<AffineDimExpr>(map.getResult(r[0]));
}

/// Whether the body is out + a * b in f32.
bool isMulAdd(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  if (body->getOperations().size() != 3)
    return false;
  auto add = dyn_cast<arith::AddFOp>(body->getTerminator()->getOperand(0).getDefiningOp());
  if (!add)
    return false;
  Value out = body->getArgument(2);
  Value prod = add.getLhs() == out ? add.getRhs() : add.getRhs() == out ? add.getLhs() : Value();
  auto mul = prod ? prod.getDefiningOp<arith::MulFOp>() : arith::MulFOp();
  return mul && ((mul.getLhs() == body->getArgument(0) && mul.getRhs() == body->getArgument(1)) ||
                 (mul.getLhs() == body->getArgument(1) && mul.getRhs() == body->getArgument(0)));
}

/// Whether `op` is an f32 contraction the schedule takes (a matmul, a packed-weight GEMM,
/// a convolution as an implicit GEMM): out += A x B, every index linear in the loop dims.
/// The tile dims: M (in A and the output, not B; alone in the output, in one index of A
/// with coefficient 1 and without K: a stride-1 convolution's ow + dilation * kw), N (alone in B and the output) and K (a reduction dim alone in A and
/// B, the longest such), at least 16 x 8 x 8; the other reduction dims longer than 1 are
/// loops around K's, the other parallel dims outer block dims.
std::optional<MmaDims> mmaDims(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 || !op.hasPureBufferSemantics() ||
      !isMulAdd(op))
    return std::nullopt;
  for (OpOperand &o : op->getOpOperands())
    if (!cast<MemRefType>(o.get().getType()).getElementType().isF32() ||
        !llvm::all_of(op.getMatchingIndexingMap(&o).getResults(),
                      [](AffineExpr e) { return e.isPureAffine(); }))
      return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, [](int64_t r) { return ShapedType::isDynamic(r) || r == 0; }))
    return std::nullopt;
  AffineMap a = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap b = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  AffineMap c = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!c.isProjectedPermutation())
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> ms, ns, ks;
  for (unsigned d = 0; d < ranges.size(); ++d) {
    bool inA = !resultsUsing(a, d).empty(), inB = !resultsUsing(b, d).empty(),
         inC = !resultsUsing(c, d).empty();
    if (iterators[d] == utils::IteratorType::parallel) {
      if (inA && inC && !inB)
        ms.push_back(d);
      else if (inB && inC && !inA)
        ns.push_back(d);
      else if (!inC)
        return std::nullopt;
    } else if (!inC && inA && inB) {
      ks.push_back(d);
    } else {
      return std::nullopt;
    }
  }
  if (ms.empty() || ns.empty() || ks.empty())
    return std::nullopt;
  MmaDims d{ms.back(), ns.back(), 0, {}, {}};
  std::optional<unsigned> k;
  for (unsigned kd : ks)
    if (ranges[kd] > 1 && isPureIn(a, kd) && isPureIn(b, kd) && (!k || ranges[kd] > ranges[*k]))
      k = kd;
  if (!k)
    return std::nullopt;
  d.k = *k;
  // (Consecutive rows of an A tile: consecutive elements of one index.)
  SmallVector<unsigned> mIndex = resultsUsing(a, d.m);
  if (!isPureIn(c, d.m) || mIndex.size() != 1 || a.getResult(mIndex[0]).isFunctionOfDim(d.k) ||
      coefficientOf(a.getResult(mIndex[0]), d.m, a.getNumDims()) != 1 || !isPureIn(b, d.n) ||
      !isPureIn(c, d.n))
    return std::nullopt;
  if (ranges[d.m] < kMmaM || ranges[d.n] < kMmaN || ranges[d.k] < kMmaK)
    return std::nullopt;
  for (unsigned i = 0; i < ranges.size(); ++i) {
    if (i == d.m || i == d.n || i == d.k)
      continue;
    if (iterators[i] == utils::IteratorType::reduction && ranges[i] > 1)
      d.kLoops.push_back(i);
    else
      d.outer.push_back(i);
  }
  return d;
}

/// A masked read or write of one tile of `operand`: indices at `at` (per loop dim), the
/// tile's rows and columns along loop dims `rowDim` and `colDim`.
struct TileAccess {
  SmallVector<Value> indices;
  AffineMap map; // operand dims -> (row, col)
};

/// Index expression `e` (of loop dims) at `at`.
Value sumAt(AffineExpr e, ArrayRef<Value> at, Location loc, OpBuilder &b) {
  SmallVector<Value> operands;
  SmallVector<AffineExpr> renumber;
  for (unsigned d = 0; d < at.size(); ++d) {
    renumber.push_back(b.getAffineDimExpr(operands.size()));
    if (e.isFunctionOfDim(d))
      operands.push_back(at[d]);
  }
  AffineExpr local = e.replaceDimsAndSymbols(renumber, {});
  return affine::AffineApplyOp::create(b, loc, AffineMap::get(operands.size(), 0, local), operands);
}

TileAccess tileAccess(linalg::LinalgOp op, OpOperand &operand, ArrayRef<Value> at,
                      unsigned rowDim, unsigned colDim, OpBuilder &b) {
  AffineMap m = op.getMatchingIndexingMap(&operand);
  TileAccess t;
  int64_t rowPos = -1, colPos = -1;
  for (auto [pos, e] : llvm::enumerate(m.getResults())) {
    if (auto d = dyn_cast<AffineDimExpr>(e))
      t.indices.push_back(at[d.getPosition()]);
    else // (an expression of dims: the tile's origin along it)
      t.indices.push_back(sumAt(e, at, op.getLoc(), b));
    if (e.isFunctionOfDim(rowDim))
      rowPos = pos;
    if (e.isFunctionOfDim(colDim))
      colPos = pos;
  }
  t.map = AffineMap::get(m.getNumResults(), 0,
                         {b.getAffineDimExpr(rowPos), b.getAffineDimExpr(colPos)},
                         b.getContext());
  return t;
}

/// The byte range a buffer covers: its root (a function argument, allocation, global)
/// and, for a view at a constant offset of a root, where in it; nullopt range: unknown.
struct ByteRange {
  Value root;
  std::optional<std::pair<int64_t, int64_t>> range; // [begin, end)
};

ByteRange byteRange(Value buffer) {
  Value v = buffer;
  while (Operation *def = v.getDefiningOp()) {
    if (auto view = dyn_cast<memref::ViewOp>(def)) {
      auto type = cast<MemRefType>(view.getType());
      std::optional<int64_t> offset = getConstantIntValue(view.getByteShift());
      if (!offset || !type.hasStaticShape() || !type.getLayout().isIdentity() ||
          v != buffer || !type.getElementType().isIntOrFloat())
        return {view.getSource(), std::nullopt};
      int64_t bytes = type.getNumElements() * type.getElementTypeBitWidth() / 8;
      return {view.getSource(), std::make_pair(*offset, *offset + bytes)};
    }
    auto like = dyn_cast<ViewLikeOpInterface>(def);
    if (!like)
      break;
    // (A reshape of a whole buffer covers what it covers.)
    if (!isa<memref::CollapseShapeOp, memref::ExpandShapeOp, memref::CastOp>(def))
      return {like.getViewSource(), std::nullopt};
    v = like.getViewSource();
    buffer = v;
  }
  return {v, std::nullopt};
}

/// Whether buffers `a` and `b` may share bytes (the same bytes included).
bool sharesBytes(Value a, Value b) {
  ByteRange ra = byteRange(a), rb = byteRange(b);
  if (ra.root != rb.root)
    return false; // distinct arguments, allocations, globals
  if (!ra.range || !rb.range)
    return true;
  return ra.range->first < rb.range->second && rb.range->first < ra.range->second;
}

/// Whether `a` and `b` are known to cover exactly the same bytes.
bool sameBytes(Value a, Value b) {
  if (a == b)
    return true;
  ByteRange ra = byteRange(a), rb = byteRange(b);
  return ra.root == rb.root && ra.range && rb.range && *ra.range == *rb.range;
}

/// The ancestor of `op` in `block`, or null.
Operation *ancestorIn(Block *block, Operation *op) {
  while (op && op->getBlock() != block)
    op = op->getParentOp();
  return op;
}

/// `epilogue`'s body on an accumulator tile `acc` of `op` (tile rows along op's loop dim
/// `rowDim`, columns along `colDim`, loop dims at `at`): the other inputs read as tiles
/// (role "e"; dims the epilogue broadcasts stay in bounds), the ops on tile vectors.
Value epilogueTile(linalg::LinalgOp op, linalg::GenericOp epilogue, Value acc, ArrayRef<Value> at,
                   unsigned rowDim, unsigned colDim, RewriterBase &b) {
  Location loc = epilogue.getLoc();
  MLIRContext *ctx = b.getContext();
  auto tileType = cast<VectorType>(acc.getType());
  // The epilogue's loop dims are the accumulator's dims (its map for it is the identity).
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  auto loopDimOf = [&](unsigned epilogueDim) {
    return cast<AffineDimExpr>(outMap.getResult(epilogueDim)).getPosition();
  };
  Value accBuffer = op.getDpsInitOperand(0)->get();
  Block *body = epilogue.getBody();
  IRMapping map;
  auto tileOf = [&](Value v) -> Value {
    if (Value m = map.lookupOrNull(v))
      return m;
    return vector::BroadcastOp::create(b, loc, VectorType::get(tileType.getShape(), v.getType()),
                                       v);
  };
  for (OpOperand *in : epilogue.getDpsInputOperands()) {
    Value arg = body->getArgument(in->getOperandNumber());
    if (in->get() == accBuffer) {
      map.map(arg, acc);
      continue;
    }
    AffineMap m = epilogue.getMatchingIndexingMap(in);
    SmallVector<Value> indices;
    SmallVector<AffineExpr> perm(2, getAffineConstantExpr(0, ctx));
    SmallVector<bool> inBounds(2, true);
    for (auto [pos, e] : llvm::enumerate(m.getResults())) {
      unsigned d = loopDimOf(cast<AffineDimExpr>(e).getPosition());
      indices.push_back(at[d]);
      for (auto [t, tileDim] : llvm::enumerate(std::array<unsigned, 2>{rowDim, colDim}))
        if (d == tileDim) {
          perm[t] = getAffineDimExpr(pos, ctx);
          inBounds[t] = false;
        }
    }
    Type element = getElementTypeOrSelf(in->get().getType());
    auto read = vector::TransferReadOp::create(
        b, loc, VectorType::get(tileType.getShape(), element), in->get(), indices,
        AffineMapAttr::get(AffineMap::get(m.getNumResults(), 0, perm, ctx)),
        arith::ConstantOp::create(b, loc, b.getZeroAttr(element)), Value(),
        b.getBoolArrayAttr(inBounds));
    read->setAttr(kMmaRoleAttr, b.getStringAttr("e"));
    map.map(arg, read);
  }
  cloneOnVectors(body, tileType.getShape(), map, b, loc);
  return tileOf(body->getTerminator()->getOperand(0));
}

} // namespace

linalg::GenericOp fusableEpilogue(linalg::LinalgOp op) {
  Value acc = op.getDpsInitOperand(0)->get();
  auto accType = cast<MemRefType>(acc.getType());
  // The next op that touches memory.
  Operation *next = op->getNextNode();
  while (next && isMemoryEffectFree(next) && next->getNumRegions() == 0)
    next = next->getNextNode();
  auto epilogue = dyn_cast_or_null<linalg::GenericOp>(next);
  if (!epilogue || epilogue.getNumDpsInits() != 1 || !epilogue.hasPureBufferSemantics() ||
      epilogue.getNumLoops() != epilogue.getNumParallelLoops())
    return {};
  OpOperand *dest = epilogue.getDpsInitOperand(0);
  auto destType = cast<MemRefType>(dest->get().getType());
  if (destType.getShape() != accType.getShape() || !destType.getElementType().isF32() ||
      !epilogue.getMatchingIndexingMap(dest).isIdentity() || !accType.hasStaticShape())
    return {};
  int uses = 0;
  for (OpOperand *in : epilogue.getDpsInputOperands()) {
    if (!epilogue.getMatchingIndexingMap(in).isProjectedPermutation())
      return {};
    if (in->get() == acc) {
      ++uses;
      if (!epilogue.getMatchingIndexingMap(in).isIdentity())
        return {};
    } else if (sharesBytes(in->get(), acc)) {
      return {}; // (it would read what the kernel no longer writes)
    }
  }
  if (uses != 1 || epilogue.getRegionOutputArgs()[0].use_empty() == false)
    return {};
  if (!isScalarArithmetic(epilogue.getBody()))
    return {};
  // The kernel writes the epilogue's output while its blocks still read the contraction's
  // inputs: they must not share bytes (the arena may have given the output an input's
  // place once the contraction was done).
  for (OpOperand *in : op.getDpsInputOperands())
    if (sharesBytes(dest->get(), in->get()))
      return {};
  if (sharesBytes(dest->get(), acc) && !sameBytes(dest->get(), acc))
    return {};
  // The accumulator buffer is dead after the epilogue: nothing later reads it (or a view
  // of it), and it is not a model output or weight.
  ByteRange accRange = byteRange(acc);
  if (isa<BlockArgument>(accRange.root) || accRange.root.getDefiningOp<memref::GetGlobalOp>())
    return {};
  SmallVector<Value> aliases{acc};
  while (!aliases.empty()) {
    Value v = aliases.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<ViewLikeOpInterface>(user) && user->getNumResults() == 1) {
        aliases.push_back(user->getResult(0));
        continue;
      }
      Operation *at = ancestorIn(epilogue->getBlock(), user);
      if (!at || (at != epilogue && epilogue->isBeforeInBlock(at)))
        return {};
    }
  }
  // The pure ops in between (views, constants) move before `op`, where the kernel will be.
  for (Operation *between = op->getNextNode(); between != epilogue;) {
    Operation *move = between;
    between = between->getNextNode();
    move->moveBefore(op);
  }
  return epilogue;
}

bool takesMmaSchedule(linalg::LinalgOp op) { return mmaDims(op).has_value(); }

LogicalResult buildMmaSchedule(linalg::LinalgOp op, const MmaConfig &cfg, RewriterBase &b,
                               linalg::GenericOp epilogue) {
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
  Attribute groupMapping =
      cfg.warpgroups
          ? Attribute(gpu::GPUWarpgroupMappingAttr::get(ctx, gpu::MappingId::DimX))
          : Attribute(gpu::GPUWarpMappingAttr::get(ctx, gpu::MappingId::DimX));
  auto [grid, warps] =
      createKernelForalls(b, loc, blocks, cfg.groupsM * cfg.groupsN, groupMapping);
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
  // The other reduction dims (a convolution's window) as loops around K's, carrying the
  // accumulators.
  SmallVector<scf::ForOp> kLoops;
  ValueRange carried = inits;
  for (unsigned kd : dims->kLoops) {
    auto outerLoop = scf::ForOp::create(b, loc, c(0), c(ranges[kd]), c(1), carried);
    if (!kLoops.empty())
      scf::YieldOp::create(b, loc, outerLoop.getResults());
    b.setInsertionPointToStart(outerLoop.getBody());
    at[kd] = outerLoop.getInductionVar();
    carried = outerLoop.getRegionIterArgs();
    kLoops.push_back(outerLoop);
  }
  auto loop = scf::ForOp::create(b, loc, c(0), c(ranges[dims->k]), c(cfg.tileK), carried);
  if (!kLoops.empty()) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfter(loop);
    scf::YieldOp::create(b, loc, loop.getResults());
  }
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
  scf::ForOp outermost = kLoops.empty() ? loop : kLoops.front();
  b.setInsertionPointAfter(outermost);
  for (unsigned kd : dims->kLoops)
    at[kd] = c(0);
  for (int64_t i = 0; i < cfg.tilesM; ++i)
    for (int64_t j = 0; j < cfg.tilesN; ++j) {
      at[dims->m] = tileOrigin(m0, i, cfg.tileM);
      at[dims->n] = tileOrigin(n0, j, cfg.tileN);
      at[dims->k] = c(0);
      TileAccess t = tileAccess(op, *out, at, dims->m, dims->n, b);
      Value tile = outermost.getResult(i * cfg.tilesN + j);
      Value dest = out->get();
      if (epilogue) {
        tile = epilogueTile(op, epilogue, tile, at, dims->m, dims->n, b);
        dest = epilogue.getDpsInitOperand(0)->get();
      }
      auto write = vector::TransferWriteOp::create(b, loc, tile, dest, t.indices,
                                                   AffineMapAttr::get(t.map), inBounds);
      role(write, "c");
    }
  if (epilogue)
    b.eraseOp(epilogue);
  b.eraseOp(op);
  return success();
}

} // namespace dlc::cuda
