// dlc-cuda-warp-mma: the tensor-core schedule's warp-level tiles -> each lane's share of
// them (mma.sync m16n8k8 fragments) and nvgpu.mma.sync in TF32.
//
// Fragment layout (PTX ISA, mma.m16n8k8 .tf32), lane = 4 * g + t:
//   A (16x8): (g, t), (g+8, t), (g, t+4), (g+8, t+4)      -> vector<4x1xf32>
//   B (8x8):  (t, g), (t+4, g)                            -> vector<2x1xf32>
//   C (16x8): (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1)  -> vector<2x2xf32>
#include "codegen/Target/CUDA/MmaSchedule.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace dlc::cuda {
#define GEN_PASS_DEF_WARPMMA
#include "codegen/Target/CUDA/Passes.h.inc"
} // namespace dlc::cuda

using namespace mlir;
using namespace dlc::cuda;

namespace {

/// A lane's coordinates in the tile fragments: g = lane / 4, t = lane % 4.
struct Lane {
  Value g, t;
};

/// The (row, col) tile coordinates of a lane's elements of a fragment, in order.
SmallVector<std::pair<Value, Value>> fragmentCoords(StringRef role, Lane lane, OpBuilder &b,
                                                    Location loc) {
  auto add = [&](Value v, int64_t k) {
    return arith::AddIOp::create(b, loc, v, arith::ConstantIndexOp::create(b, loc, k))
        .getResult();
  };
  Value g8 = add(lane.g, 8), t4 = add(lane.t, 4);
  if (role == "a")
    return {{lane.g, lane.t}, {g8, lane.t}, {lane.g, t4}, {g8, t4}};
  if (role == "b")
    return {{lane.t, lane.g}, {t4, lane.g}};
  Value t2 = arith::MulIOp::create(b, loc, lane.t, arith::ConstantIndexOp::create(b, loc, 2));
  Value t21 = add(t2, 1);
  return {{lane.g, t2}, {lane.g, t21}, {g8, t2}, {g8, t21}};
}

VectorType fragmentType(StringRef role, OpBuilder &b) {
  Type f32 = b.getF32Type();
  if (role == "a")
    return VectorType::get({4, 1}, f32);
  if (role == "b")
    return VectorType::get({2, 1}, f32);
  return VectorType::get({2, 2}, f32);
}

/// The memref indices of tile element (row, col) of a transfer at `indices` with
/// permutation `map` (operand dims -> (row, col)), and whether it lies inside the memref.
std::pair<SmallVector<Value>, Value> elementAt(Value base, ValueRange indices, AffineMap map,
                                               Value row, Value col, OpBuilder &b,
                                               Location loc) {
  SmallVector<Value> at(indices.begin(), indices.end());
  unsigned rowPos = cast<AffineDimExpr>(map.getResult(0)).getPosition();
  unsigned colPos = cast<AffineDimExpr>(map.getResult(1)).getPosition();
  at[rowPos] = arith::AddIOp::create(b, loc, at[rowPos], row);
  at[colPos] = arith::AddIOp::create(b, loc, at[colPos], col);
  Value inside;
  for (unsigned pos : {rowPos, colPos}) {
    Value size = memref::DimOp::create(b, loc, base, pos);
    Value lt = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, at[pos], size);
    inside = inside ? arith::AndIOp::create(b, loc, inside, lt).getResult() : lt;
    // Clamped, so a masked-off element is still read from inside the buffer.
    Value last = arith::SubIOp::create(b, loc, size, arith::ConstantIndexOp::create(b, loc, 1));
    at[pos] = arith::MinUIOp::create(b, loc, at[pos], last);
  }
  return {at, inside};
}

/// A lane's fragment of a tile read: its elements loaded (0 outside the buffer).
Value lowerRead(vector::TransferReadOp read, ValueRange indices, Lane lane, OpBuilder &b) {
  Location loc = read.getLoc();
  StringRef role = read->getAttrOfType<StringAttr>(kMmaRoleAttr).getValue();
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  SmallVector<Value> elements;
  for (auto [row, col] : fragmentCoords(role, lane, b, loc)) {
    auto [at, inside] =
        elementAt(read.getBase(), indices, read.getPermutationMap(), row, col, b, loc);
    Value v = memref::LoadOp::create(b, loc, read.getBase(), at);
    elements.push_back(arith::SelectOp::create(b, loc, inside, v, zero));
  }
  return vector::FromElementsOp::create(b, loc, fragmentType(role, b), elements);
}

/// A lane's fragment of the accumulator written back (elements inside the buffer only).
void lowerWrite(vector::TransferWriteOp write, Value fragment, Lane lane, OpBuilder &b) {
  Location loc = write.getLoc();
  auto coords = fragmentCoords("c", lane, b, loc);
  for (auto [i, rc] : llvm::enumerate(coords)) {
    // (2-D to_elements does not lower to NVVM; static extracts do.)
    Value part = vector::ExtractOp::create(b, loc, fragment,
                                           ArrayRef<int64_t>{(int64_t)i / 2, (int64_t)i % 2});
    auto [at, inside] = elementAt(write.getBase(), write.getIndices(), write.getPermutationMap(),
                                  rc.first, rc.second, b, loc);
    auto guard = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard ig(b);
    b.setInsertionPointToStart(guard.thenBlock());
    memref::StoreOp::create(b, loc, part, write.getBase(), at);
  }
}

StringRef roleOf(Operation *op) {
  auto r = op->getAttrOfType<StringAttr>(kMmaRoleAttr);
  return r ? r.getValue() : StringRef();
}

/// Rewrites one warp forall's body: accumulator reads, the K loop, writes.
LogicalResult lowerWarpBody(scf::ForallOp warps, IRRewriter &b) {
  SmallVector<scf::ForOp> loops;
  warps.getBody()->walk([&](scf::ForOp loop) {
    if (llvm::any_of(loop.getInitArgs(), [](Value v) {
          Operation *def = v.getDefiningOp();
          return def && roleOf(def) == "c";
        }))
      loops.push_back(loop);
  });
  if (loops.empty())
    return success();
  b.setInsertionPointToStart(warps.getBody());
  Location loc = warps.getLoc();
  Value id = gpu::LaneIdOp::create(b, loc, b.getIntegerAttr(b.getIndexType(), 32));
  Lane lane{arith::DivUIOp::create(b, loc, id, arith::ConstantIndexOp::create(b, loc, 4)),
            arith::RemUIOp::create(b, loc, id, arith::ConstantIndexOp::create(b, loc, 4))};
  for (scf::ForOp loop : loops) {
    // The accumulators' initial fragments.
    SmallVector<Value> inits;
    for (Value init : loop.getInitArgs()) {
      auto read = init.getDefiningOp<vector::TransferReadOp>();
      if (!read || roleOf(read) != "c")
        return loop.emitOpError("carries a value the mma lowering does not know");
      b.setInsertionPoint(read);
      inits.push_back(lowerRead(read, read.getIndices(), lane, b));
    }
    b.setInsertionPoint(loop);
    auto lowered = scf::ForOp::create(b, loop.getLoc(), loop.getLowerBound(),
                                      loop.getUpperBound(), loop.getStep(), inits);
    IRMapping map;
    map.map(loop.getInductionVar(), lowered.getInductionVar());
    for (auto [from, to] : llvm::zip(loop.getRegionIterArgs(), lowered.getRegionIterArgs()))
      map.map(from, to);
    b.setInsertionPointToStart(lowered.getBody());
    for (Operation &op : loop.getBody()->without_terminator()) {
      if (auto read = dyn_cast<vector::TransferReadOp>(op); read && !roleOf(read).empty()) {
        SmallVector<Value> indices;
        for (Value i : read.getIndices())
          indices.push_back(map.lookupOrDefault(i));
        map.map(read.getResult(), lowerRead(read, indices, lane, b));
      } else if (auto contract = dyn_cast<vector::ContractionOp>(op)) {
        Value product = nvgpu::MmaSyncOp::create(
            b, contract.getLoc(), map.lookup(contract.getLhs()), map.lookup(contract.getRhs()),
            map.lookup(contract.getAcc()), ArrayRef<int64_t>{kMmaM, kMmaN, kMmaK},
            /*tf32Enabled=*/true);
        map.map(contract.getResult(), product);
      } else {
        b.clone(op, map);
      }
    }
    SmallVector<Value> yielded;
    for (Value v : loop.getBody()->getTerminator()->getOperands())
      yielded.push_back(map.lookup(v));
    scf::YieldOp::create(b, loop.getLoc(), yielded);
    // The writes of the loop's results.
    for (auto [result, fragment] : llvm::zip(loop.getResults(), lowered.getResults())) {
      for (Operation *user : llvm::make_early_inc_range(result.getUsers())) {
        auto write = dyn_cast<vector::TransferWriteOp>(user);
        if (!write || roleOf(write) != "c")
          return user->emitOpError("uses an mma accumulator the lowering does not know");
        b.setInsertionPoint(write);
        lowerWrite(write, fragment, lane, b);
        b.eraseOp(write);
      }
    }
    SmallVector<Operation *> oldInits;
    for (Value init : loop.getInitArgs())
      oldInits.push_back(init.getDefiningOp());
    b.eraseOp(loop);
    for (Operation *read : oldInits)
      if (read->use_empty())
        b.eraseOp(read);
  }
  return success();
}

struct WarpMma : dlc::cuda::impl::WarpMmaBase<WarpMma> {
  void runOnOperation() override {
    IRRewriter b(&getContext());
    SmallVector<scf::ForallOp> warps;
    getOperation().walk([&](scf::ForallOp f) {
      std::optional<ArrayAttr> mapping = f.getMapping();
      if (mapping && !mapping->empty() && isa<gpu::GPUWarpMappingAttr>((*mapping)[0]))
        warps.push_back(f);
    });
    for (scf::ForallOp f : warps)
      if (failed(lowerWarpBody(f, b)))
        return signalPassFailure();
  }
};

} // namespace
