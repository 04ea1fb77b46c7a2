// dlc-cuda-map-to-threads: each linalg op on buffers as block and thread foralls, one
// point of its parallel dims per thread.
#include "codegen/Target/CUDA/MmaSchedule.h"
#include "codegen/Target/CUDA/RowReduction.h"
#include "codegen/Target/CUDA/ScheduleUtils.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"

namespace dlc::cuda {
#define GEN_PASS_DEF_MAPTOTHREADS
#include "codegen/Target/CUDA/Passes.h.inc"
} // namespace dlc::cuda

using namespace mlir;

namespace {

/// The op's parallel loop dims, outermost first, in the order of its first output's
/// dims (so the innermost is the output's contiguous one), then any others.
SmallVector<unsigned> parallelDimsInOutputOrder(linalg::LinalgOp op) {
  SmallVector<unsigned> dims;
  llvm::SmallDenseSet<unsigned> seen;
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (AffineExpr e : out.getResults())
    if (auto d = dyn_cast<AffineDimExpr>(e))
      if (iterators[d.getPosition()] == utils::IteratorType::parallel &&
          seen.insert(d.getPosition()).second)
        dims.push_back(d.getPosition());
  SmallVector<unsigned> rest;
  for (unsigned d = 0; d < iterators.size(); ++d)
    if ((iterators[d] == utils::IteratorType::parallel) && !seen.contains(d))
      rest.push_back(d);
  rest.append(dims.begin(), dims.end());
  return rest;
}

/// Elements per thread along the innermost parallel dim `inner`: 4 (one 16-byte vector
/// load or store per operand) for an elementwise op of 32-bit elements whose operands are
/// contiguous along it with every other stride and offset a multiple of 4 (or do not
/// depend on it), the dim a multiple of 4, the body plain arithmetic; else 1.
int64_t vectorWidth(linalg::LinalgOp op, unsigned inner, ArrayRef<int64_t> ranges) {
  constexpr int64_t kWidth = 4;
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || op.getNumReductionLoops() != 0 || ranges[inner] % kWidth != 0)
    return 1;
  for (Operation &body : generic.getBody()->without_terminator())
    if (!isa<arith::ArithDialect, math::MathDialect>(body.getDialect()) ||
        body.getNumRegions() != 0)
      return 1;
  for (OpOperand &o : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(o.get().getType());
    if (!type || !type.getElementType().isIntOrFloat() ||
        type.getElementType().getIntOrFloatBitWidth() != 32)
      return 1;
    AffineMap map = op.getMatchingIndexingMap(&o);
    if (!map.isProjectedPermutation())
      return 1;
    std::optional<unsigned> pos = map.getResultPosition(getAffineDimExpr(inner, op.getContext()));
    if (!pos)
      continue; // the same value for the thread's elements
    SmallVector<int64_t> strides;
    int64_t offset;
    if (*pos != map.getNumResults() - 1 || failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1 || ShapedType::isDynamic(offset) || offset % kWidth != 0)
      return 1;
    for (int64_t stride : ArrayRef<int64_t>(strides).drop_back())
      if (ShapedType::isDynamic(stride) || stride % kWidth != 0)
        return 1;
  }
  return kWidth;
}

LogicalResult mapOp(linalg::LinalgOp op, int64_t blockThreads, RewriterBase &b) {
  if (!op.hasPureBufferSemantics())
    return op->emitOpError("reached the cuda kernel schedule on tensors (expected buffers)");
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return op->emitOpError("has dynamic loop bounds: the cuda target needs static shapes");
  SmallVector<unsigned> par = parallelDimsInOutputOrder(op);
  int64_t width = par.empty() ? 1 : vectorWidth(op, par.back(), ranges);
  int64_t points = 1;
  for (unsigned d : par)
    points *= d == par.back() ? ranges[d] / width : ranges[d];
  if (points == 0 || llvm::any_of(ranges, [](int64_t r) { return r == 0; })) {
    b.eraseOp(op); // nothing to compute (an empty output, or an empty sum into an init
                   // that bufferization already wrote)
    return success();
  }
  int64_t threads = std::min<int64_t>(blockThreads, llvm::alignTo(points, 32));
  int64_t blocks = llvm::divideCeil(points, threads);
  MLIRContext *ctx = b.getContext();
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  auto [grid, block] = dlc::cuda::createKernelForalls(
      b, loc, blocks, threads, gpu::GPUThreadMappingAttr::get(ctx, gpu::MappingId::DimX));
  // point = block * threads + thread; threads past the last point do nothing.
  Value point = dlc::cuda::guardedPoint(b, loc, grid, block, threads, points);
  SmallVector<int64_t> basis;
  for (unsigned d : par)
    basis.push_back(d == par.back() ? ranges[d] / width : ranges[d]);
  SmallVector<Value> coords;
  if (par.size() == 1) {
    coords.push_back(point);
  } else {
    auto delin = affine::AffineDelinearizeIndexOp::create(b, loc, point, basis,
                                                          /*hasOuterBound=*/true);
    coords.assign(delin.getResults().begin(), delin.getResults().end());
  }
  // The op at that point: unit parallel dims, whole reduction dims.
  SmallVector<OpFoldResult> offsets, sizes;
  for (int64_t r : ranges) {
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(b.getIndexAttr(r));
  }
  for (auto [d, c] : llvm::zip(par, coords)) {
    offsets[d] = c;
    sizes[d] = b.getIndexAttr(1);
  }
  if (width > 1) {
    offsets[par.back()] = affine::AffineApplyOp::create(
        b, loc, AffineMap::get(1, 0, getAffineDimExpr(0, ctx) * width), coords.back())
                              .getResult();
    sizes[par.back()] = b.getIndexAttr(width);
  }
  auto tiling = cast<TilingInterface>(op.getOperation());
  FailureOr<TilingResult> tiled = tiling.getTiledImplementation(b, offsets, sizes);
  if (failed(tiled))
    return op->emitOpError("could not be tiled for the cuda kernel schedule");
  b.eraseOp(op);
  // A thread's 4 elements as vectors: one transfer per operand (16-byte aligned on the
  // GPU, where dlc-cuda-vector-loads says so to the loads and stores).
  if (width > 1)
    for (Operation *t : tiled->tiledOps)
      if (auto tiledOp = dyn_cast<linalg::LinalgOp>(t)) {
        b.setInsertionPoint(tiledOp);
        if (succeeded(linalg::vectorize(b, tiledOp)))
          b.eraseOp(tiledOp);
      }
  return success();
}

struct MapToThreads : dlc::cuda::impl::MapToThreadsBase<MapToThreads> {
  using MapToThreadsBase::MapToThreadsBase;
  void runOnOperation() override {
    if (blockThreads <= 0 || blockThreads % 32 != 0 || blockThreads > 1024) {
      getOperation().emitError("block-threads must be a multiple of 32 up to 1024");
      return signalPassFailure();
    }
    IRRewriter b(&getContext());
    // Copies (bufferization's, and slices written into padded buffers) are kernels too.
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies) {
      b.setInsertionPoint(copy);
      if (copy.getSource() != copy.getTarget())
        linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(), copy.getTarget());
      b.eraseOp(copy);
    }
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!op->getParentOfType<scf::ForallOp>() && !op->getParentOfType<gpu::LaunchOp>())
        ops.push_back(op);
    });
    llvm::DenseSet<Operation *> fused; // epilogues computed in a contraction's kernel
    for (linalg::LinalgOp op : ops) {
      if (fused.contains(op))
        continue;
      // Contractions on tensor cores (warp tiles); everything else a point per thread.
      if (mma && dlc::cuda::takesMmaSchedule(op)) {
        linalg::GenericOp epilogue = epilogues ? dlc::cuda::fusableEpilogue(op) : nullptr;
        if (epilogue)
          fused.insert(epilogue);
        if (failed(dlc::cuda::buildMmaSchedule(
                op, warpgroups ? dlc::cuda::kWgmmaConfig : dlc::cuda::kMmaSyncConfig, b,
                epilogue)))
          return signalPassFailure();
        continue;
      }
      // Row reductions: a warp per output element.
      if (warpReductions && dlc::cuda::takesWarpReduction(op)) {
        if (failed(dlc::cuda::buildWarpReduction(op, b)))
          return signalPassFailure();
        continue;
      }
      if (failed(mapOp(op, blockThreads, b)))
        return signalPassFailure();
    }
  }
};

} // namespace
