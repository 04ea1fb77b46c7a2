// dlc-cuda-tiles-to-loops: the CPU check's lowering of the tensor-core schedules' group
// tiles: each tile a buffer on the stack, read and written element by element with the
// GPU lowerings' own masking (MmaLowering.h), multiplied by loops. Vector values of a
// warpgroup's 64x64 tiles would make the CPU module huge to compile.
#include "codegen/Target/CUDA/MmaLowering.h"

#include "mlir/Dialect/SCF/Utils/Utils.h"

namespace dlc::cuda {
#define GEN_PASS_DEF_TILESTOLOOPS
#include "codegen/Target/CUDA/Passes.h.inc"
} // namespace dlc::cuda

using namespace mlir;
using namespace dlc::cuda;

namespace {

struct LoopLowering : MmaLowering {
  Block *entry = nullptr; // the function's entry block, where the tiles' buffers live

  static Value c(OpBuilder &b, Location loc, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }
  /// Loops over [0, sizes) calling `body` with the indices.
  static void loops(ArrayRef<int64_t> sizes, OpBuilder &b, Location loc,
                    function_ref<void(OpBuilder &, ValueRange)> body) {
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t s : sizes) {
      lbs.push_back(c(b, loc, 0));
      ubs.push_back(c(b, loc, s));
      steps.push_back(c(b, loc, 1));
    }
    scf::buildLoopNest(b, loc, lbs, ubs, steps,
                       [&](OpBuilder &nb, Location, ValueRange ivs) { body(nb, ivs); });
  }
  /// A tile's buffer, allocated once on the function's stack (blocks and groups run one
  /// after another on the CPU, each filling it before use).
  Value buffer(VectorType type, OpBuilder &b, Location loc) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(entry);
    return memref::AllocaOp::create(b, loc,
                                    MemRefType::get(type.getShape(), type.getElementType()));
  }

  bool isGroup(scf::ForallOp f) const override {
    return isMappedTo<gpu::GPUWarpMappingAttr, gpu::GPUWarpgroupMappingAttr>(f);
  }
  void begin(scf::ForallOp group, OpBuilder &) override {
    entry = &group->getParentOfType<FunctionOpInterface>().getFunctionBody().front();
  }
  Value readOperand(vector::TransferReadOp read, ValueRange indices, OpBuilder &b) override {
    Location loc = read.getLoc();
    Value tile = buffer(read.getVectorType(), b, loc);
    loops(read.getVectorType().getShape(), b, loc, [&](OpBuilder &nb, ValueRange ij) {
      Value v = loadTileElement(read.getBase(), indices, read.getPermutationMap(), ij[0], ij[1],
                                nb, loc);
      memref::StoreOp::create(nb, loc, v, tile, ij);
    });
    return tile;
  }
  Value readAccumulator(vector::TransferReadOp read, ValueRange indices, OpBuilder &b) override {
    return readOperand(read, indices, b);
  }
  Value multiply(vector::ContractionOp contract, Value lhs, Value rhs, Value acc,
                 OpBuilder &b) override {
    // The schedule's contractions: (m, k) x (k, n) -> (m, n).
    Location loc = contract.getLoc();
    ArrayRef<int64_t> a = contract.getLhsType().getShape();
    int64_t n = cast<VectorType>(contract.getAccType()).getShape()[1];
    loops({a[0], n, a[1]}, b, loc, [&](OpBuilder &nb, ValueRange ijk) {
      Value x = memref::LoadOp::create(nb, loc, lhs, ValueRange{ijk[0], ijk[2]});
      Value y = memref::LoadOp::create(nb, loc, rhs, ValueRange{ijk[2], ijk[1]});
      Value s = memref::LoadOp::create(nb, loc, acc, ValueRange{ijk[0], ijk[1]});
      Value p = arith::MulFOp::create(nb, loc, x, y);
      memref::StoreOp::create(nb, loc, arith::AddFOp::create(nb, loc, s, p), acc,
                              ValueRange{ijk[0], ijk[1]});
    });
    return acc;
  }
  void forEachAccumulator(Value acc, OpBuilder &b,
                          function_ref<void(OpBuilder &, Value, Value, Value)> fn) override {
    Location loc = acc.getLoc();
    loops(cast<MemRefType>(acc.getType()).getShape(), b, loc, [&](OpBuilder &nb, ValueRange ij) {
      fn(nb, ij[0], ij[1], memref::LoadOp::create(nb, loc, acc, ij));
    });
  }
};

struct TilesToLoops : dlc::cuda::impl::TilesToLoopsBase<TilesToLoops> {
  void runOnOperation() override {
    LoopLowering lowering;
    if (failed(lowerMmaGroups(getOperation(), lowering)))
      signalPassFailure();
  }
};

} // namespace
