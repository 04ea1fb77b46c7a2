// dlc-cuda-warp-mma: the tensor-core schedule's warp-level tiles -> each lane's share of
// them (mma.sync m16n8k8 fragments) and nvgpu.mma.sync in TF32.
//
// Fragment layout (PTX ISA, mma.m16n8k8 .tf32), lane = 4 * g + t:
//   A (16x8): (g, t), (g+8, t), (g, t+4), (g+8, t+4)      -> vector<4x1xf32>
//   B (8x8):  (t, g), (t+4, g)                            -> vector<2x1xf32>
//   C (16x8): (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1)  -> vector<2x2xf32>
#include "codegen/Target/CUDA/MmaLowering.h"

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

struct SyncLowering : MmaLowering {
  Lane lane;

  bool isGroup(scf::ForallOp f) const override { return isMappedTo<gpu::GPUWarpMappingAttr>(f); }
  void begin(scf::ForallOp group, OpBuilder &b) override {
    Location loc = group.getLoc();
    Value id = gpu::LaneIdOp::create(b, loc, b.getIntegerAttr(b.getIndexType(), 32));
    lane = {arith::DivUIOp::create(b, loc, id, arith::ConstantIndexOp::create(b, loc, 4)),
            arith::RemUIOp::create(b, loc, id, arith::ConstantIndexOp::create(b, loc, 4))};
  }
  /// A lane's fragment of a tile read: its elements loaded (0 outside the buffer).
  Value readOperand(vector::TransferReadOp read, ValueRange indices, OpBuilder &b) override {
    Location loc = read.getLoc();
    StringRef role = mmaRole(read);
    SmallVector<Value> elements;
    for (auto [row, col] : fragmentCoords(role, lane, b, loc))
      elements.push_back(loadTileElement(read.getBase(), indices, read.getPermutationMap(), row,
                                         col, b, loc));
    return vector::FromElementsOp::create(b, loc, fragmentType(role, b), elements);
  }
  Value readAccumulator(vector::TransferReadOp read, ValueRange indices, OpBuilder &b) override {
    return readOperand(read, indices, b);
  }
  Value multiply(vector::ContractionOp contract, Value lhs, Value rhs, Value acc,
                 OpBuilder &b) override {
    return nvgpu::MmaSyncOp::create(b, contract.getLoc(), lhs, rhs, acc,
                                    ArrayRef<int64_t>{kMmaM, kMmaN, kMmaK},
                                    /*tf32Enabled=*/true);
  }
  void forEachAccumulator(Value fragment, OpBuilder &b,
                          function_ref<void(OpBuilder &, Value, Value, Value)> fn) override {
    Location loc = fragment.getLoc();
    for (auto [i, rc] : llvm::enumerate(fragmentCoords("c", lane, b, loc))) {
      // (2-D to_elements does not lower to NVVM; static extracts do.)
      Value part = vector::ExtractOp::create(b, loc, fragment,
                                             ArrayRef<int64_t>{(int64_t)i / 2, (int64_t)i % 2});
      fn(b, rc.first, rc.second, part);
    }
  }
};

struct WarpMma : dlc::cuda::impl::WarpMmaBase<WarpMma> {
  void runOnOperation() override {
    SyncLowering lowering;
    if (failed(lowerMmaGroups(getOperation(), lowering)))
      signalPassFailure();
  }
};

} // namespace
