// The warp schedule of a row reduction: see RowReduction.h.
#include "codegen/Target/CUDA/RowReduction.h"
#include "codegen/Target/CUDA/ScheduleUtils.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace dlc::cuda {

namespace {

struct RowReduction {
  unsigned dim;                   // the reduction loop dim
  Operation *combiner;            // out = combiner(out, value)
  vector::CombiningKind kind;
  SmallVector<unsigned> parallel; // the parallel loop dims
};

std::optional<RowReduction> rowReduction(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || op.getNumDpsInits() != 1 || !op.hasPureBufferSemantics() ||
      op.getNumReductionLoops() != 1)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, [](int64_t r) { return ShapedType::isDynamic(r) || r == 0; }))
    return std::nullopt;
  RowReduction r;
  SmallVector<unsigned> dims;
  op.getReductionDims(dims);
  r.dim = dims.front();
  if (ranges[r.dim] < kWarpLanes)
    return std::nullopt;
  for (OpOperand &o : op->getOpOperands())
    if (!isa<MemRefType>(o.get().getType()) ||
        !op.getMatchingIndexingMap(&o).isProjectedPermutation())
      return std::nullopt;
  if (!getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType()).isF32())
    return std::nullopt;
  if (!isScalarArithmetic(generic.getBody()))
    return std::nullopt;
  SmallVector<Operation *> combiners;
  if (!matchReduction(generic.getRegionOutputArgs(), 0, combiners) || combiners.size() != 1)
    return std::nullopt;
  r.combiner = combiners.front();
  std::optional<vector::CombiningKind> kind = linalg::getCombinerOpKind(r.combiner);
  if (!kind || !arith::getNeutralElement(r.combiner))
    return std::nullopt;
  r.kind = *kind;
  for (unsigned d = 0; d < ranges.size(); ++d)
    if (d != r.dim)
      r.parallel.push_back(d);
  return r;
}

} // namespace

bool takesWarpReduction(linalg::LinalgOp op) { return rowReduction(op).has_value(); }

LogicalResult buildWarpReduction(linalg::LinalgOp op, RewriterBase &b) {
  std::optional<RowReduction> red = rowReduction(op);
  if (!red)
    return failure();
  auto generic = cast<linalg::GenericOp>(op.getOperation());
  MLIRContext *ctx = b.getContext();
  Location loc = op.getLoc();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t points = 1;
  SmallVector<int64_t> basis;
  for (unsigned d : red->parallel) {
    points *= ranges[d];
    basis.push_back(ranges[d]);
  }
  int64_t warps = std::min<int64_t>(kReductionWarps, points);
  b.setInsertionPoint(op);
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v).getResult(); };
  auto [grid, group] =
      createKernelForalls(b, loc, llvm::divideCeil(points, warps), warps,
                          gpu::GPUWarpMappingAttr::get(ctx, gpu::MappingId::DimX));
  // The warp's output element (warps past the end idle).
  Value point = guardedPoint(b, loc, grid, group, warps, points);
  SmallVector<Value> at(ranges.size());
  if (basis.empty()) {
    // (a full reduction to one element: one warp)
  } else if (basis.size() == 1) {
    at[red->parallel.front()] = point;
  } else {
    auto delin = affine::AffineDelinearizeIndexOp::create(b, loc, point, basis, true);
    for (auto [d, v] : llvm::zip(red->parallel, delin.getResults()))
      at[d] = v;
  }
  Type f32 = b.getF32Type();
  auto lanesOf = [&](Type t) { return VectorType::get({kWarpLanes}, t); };
  auto indicesOf = [&](OpOperand &o) {
    SmallVector<Value> indices;
    for (AffineExpr e : op.getMatchingIndexingMap(&o).getResults())
      indices.push_back(at[cast<AffineDimExpr>(e).getPosition()]);
    return indices;
  };
  Attribute neutral = *arith::getNeutralElement(red->combiner);
  Value init = vector::BroadcastOp::create(
      b, loc, lanesOf(f32), arith::ConstantOp::create(b, loc, cast<TypedAttr>(neutral)));
  int64_t length = ranges[red->dim];
  auto loop = scf::ForOp::create(b, loc, c(0), c(length), c(kWarpLanes), ValueRange{init});
  b.setInsertionPointToStart(loop.getBody());
  Value k0 = loop.getInductionVar();
  at[red->dim] = k0;
  // Lane l takes element k0 + l of the row (masked past its end).
  Value lanes = vector::StepOp::create(b, loc, lanesOf(b.getIndexType()));
  Value k = arith::AddIOp::create(b, loc, lanes,
                                  vector::BroadcastOp::create(b, loc, lanes.getType(), k0));
  Value mask = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ult, k,
      vector::BroadcastOp::create(b, loc, lanes.getType(), c(length)));
  IRMapping map;
  Block *body = generic.getBody();
  for (OpOperand *in : op.getDpsInputOperands()) {
    Value arg = body->getArgument(in->getOperandNumber());
    Type element = getElementTypeOrSelf(in->get().getType());
    AffineMap m = op.getMatchingIndexingMap(in);
    std::optional<unsigned> pos = m.getResultPosition(getAffineDimExpr(red->dim, ctx));
    Value lanesValue;
    if (pos) {
      auto read = vector::TransferReadOp::create(
          b, loc, lanesOf(element), in->get(), indicesOf(*in),
          AffineMapAttr::get(AffineMap::get(m.getNumResults(), 0, b.getAffineDimExpr(*pos))),
          arith::ConstantOp::create(b, loc, b.getZeroAttr(element)), Value(),
          b.getBoolArrayAttr({false}));
      read->setAttr(kWarpRoleAttr, b.getStringAttr("lanes"));
      lanesValue = read;
    } else {
      // The same element for every lane (does not vary along the row).
      Value v = memref::LoadOp::create(b, loc, in->get(), indicesOf(*in));
      lanesValue = vector::BroadcastOp::create(b, loc, lanesOf(element), v);
    }
    map.map(arg, lanesValue);
  }
  // The body on the lanes' elements, up to the combiner; masked lanes keep their partial.
  Value acc = loop.getRegionIterArgs()[0];
  map.map(body->getArgument(op.getNumDpsInputs()), acc);
  // (Values from outside the body and constants: the same for every lane.)
  cloneOnVectors(body, {kWarpLanes}, map, b, loc);
  Value next = map.lookup(red->combiner->getResult(0));
  scf::YieldOp::create(b, loc, ValueRange{arith::SelectOp::create(b, loc, mask, next, acc)});
  b.setInsertionPointAfter(loop);
  // The lanes' partials reduced, then combined into the output element.
  Value total = vector::ReductionOp::create(b, loc, red->kind, loop.getResult(0));
  OpOperand *out = op.getDpsInitOperand(0);
  SmallVector<Value> outAt = indicesOf(*out);
  Value old = memref::LoadOp::create(b, loc, out->get(), outAt);
  Value result = vector::makeArithReduction(b, loc, red->kind, total, old);
  auto store = memref::StoreOp::create(b, loc, result, out->get(), outAt);
  store->setAttr(kWarpRoleAttr, b.getStringAttr("result"));
  b.eraseOp(op);
  return success();
}

} // namespace dlc::cuda
