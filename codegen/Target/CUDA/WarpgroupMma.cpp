// dlc-cuda-warpgroup-mma: the warpgroup schedule's tiles -> operands staged in shared
// memory, multiplied by wgmma.mma_async (m64n64k8, TF32; sm_90a) or, with wgmma=false, by
// the four warps' mma.sync (m16n8k8, TF32) on fragments read with ldmatrix; accumulators
// in registers.
//
// Each K stage, the warpgroup's 128 threads copy the A (64x32) and B (32x64) tiles into
// shared memory in wgmma's K-major layout without swizzling: core matrices of 8 rows
// (M for A, N for B) by 16 bytes (4 K-columns), 128 contiguous bytes each. Element
// (r, k) of a 64x32 stage sits at f32 offset
//     (r / 8) * 256 + (k / 4) * 32 + (r % 8) * 4 + k % 4,
// so core matrices adjacent along K are 128 bytes apart (the descriptor's leading byte
// offset) and along M/N 1024 bytes (its stride byte offset); the stage's four k8 steps
// start 256 bytes apart. Then a proxy fence (generic stores -> wgmma's async reads), a
// barrier, four wgmma.mma_async, commit, wait, and a barrier before the next stage.
//
// Accumulator (D of m64nNk8, PTX ISA), thread t = 32 w + 4 g + q, for each 8-column
// chunk j: (16w+g, 8j+2q), (16w+g, 8j+2q+1), (16w+g+8, 8j+2q), (16w+g+8, 8j+2q+1).
//
// mma.sync: warp w computes the 32x32 quarter (32 (w/2), 32 (w%2)) as 2x4 16x8 tiles; its
// fragments (WarpMma.cpp's layout) come from the stages by ldmatrix: an A tile's four 8x4
// f32 blocks (rows +0/+8, K +0/+4) are exactly its (g, t), (g+8, t), (g, t+4), (g+8, t+4)
// fragment (ldmatrix.x4, lane l addressing row l % 8 of block l / 8), and a B tile's two
// K-major 8x4 blocks its (t, g), (t+4, g) (ldmatrix.x2). Accumulator (i*4 + j)*4 + e is
// element e of tile (i, j): (g, 2q), (g, 2q+1), (g+8, 2q), (g+8, 2q+1).
#include "codegen/Target/CUDA/MmaLowering.h"

namespace dlc::cuda {
#define GEN_PASS_DEF_WARPGROUPMMA
#include "codegen/Target/CUDA/Passes.h.inc"
} // namespace dlc::cuda

using namespace mlir;
using namespace dlc::cuda;

namespace {

constexpr int64_t kThreads = 128;
constexpr int64_t kCoreRows = 8, kCoreCols = 4; // a core matrix: 8 rows x 16 bytes of f32
constexpr int64_t kStageElements = kWgmmaM * kWgmmaStageK;
constexpr int64_t kLeadingBytes = kCoreRows * kCoreCols * 4;                   // 128
constexpr int64_t kStrideBytes = kLeadingBytes * (kWgmmaStageK / kCoreCols);   // 1024
constexpr int64_t kAccumulators = kWgmmaM * kWgmmaN / kThreads;                // 32

struct StagedLowering : MmaLowering {
  bool wgmma;
  Value thread, lane, warp, g, q;
  Value quarterRow, quarterCol; // mma.sync: the warp's 32x32 quarter of the tile
  Value stageA, stageB;         // shared memory, a 64x32 stage each

  explicit StagedLowering(bool wgmma) : wgmma(wgmma) {}

  Value c(OpBuilder &b, Location loc, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }
  Value add(OpBuilder &b, Location loc, Value v, int64_t k) {
    return arith::AddIOp::create(b, loc, v, c(b, loc, k));
  }
  Value mul(OpBuilder &b, Location loc, Value v, int64_t k) {
    return arith::MulIOp::create(b, loc, v, c(b, loc, k));
  }
  Type accumulatorType(OpBuilder &b) {
    return LLVM::LLVMStructType::getLiteral(b.getContext(),
                                            SmallVector<Type>(kAccumulators, b.getF32Type()));
  }
  /// The thread's accumulator elements' (row, col) in the 64x64 tile, in register order.
  SmallVector<std::pair<Value, Value>> accumulatorCoords(OpBuilder &b, Location loc) {
    Value col2 = mul(b, loc, q, 2);
    SmallVector<std::pair<Value, Value>> coords;
    auto tile = [&](Value row, Value col) {
      Value row8 = add(b, loc, row, 8), col1 = add(b, loc, col, 1);
      coords.append({{row, col}, {row, col1}, {row8, col}, {row8, col1}});
    };
    if (wgmma) {
      Value row = arith::AddIOp::create(b, loc, mul(b, loc, warp, 16), g);
      for (int64_t j = 0; j < kWgmmaN / 8; ++j)
        tile(row, add(b, loc, col2, 8 * j));
      return coords;
    }
    Value row0 = arith::AddIOp::create(b, loc, quarterRow, g);
    Value col0 = arith::AddIOp::create(b, loc, quarterCol, col2);
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 4; ++j)
        tile(add(b, loc, row0, 16 * i), add(b, loc, col0, 8 * j));
    return coords;
  }
  /// The f32 offset in a stage of element (r, k) (r: A's m or B's n).
  AffineMap stageOffset(MLIRContext *ctx) {
    AffineExpr r, k;
    bindDims(ctx, r, k);
    return AffineMap::get(2, 0,
                          r.floorDiv(kCoreRows) * (kCoreRows * kWgmmaStageK) +
                              k.floorDiv(kCoreCols) * (kCoreRows * kCoreCols) +
                              (r % kCoreRows) * kCoreCols + k % kCoreCols);
  }

  bool isGroup(scf::ForallOp f) const override {
    return isMappedTo<gpu::GPUWarpgroupMappingAttr>(f);
  }
  void begin(scf::ForallOp group, OpBuilder &b) override {
    Location loc = group.getLoc();
    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    thread = arith::RemUIOp::create(b, loc, tid, c(b, loc, kThreads));
    warp = arith::DivUIOp::create(b, loc, thread, c(b, loc, 32));
    lane = arith::RemUIOp::create(b, loc, thread, c(b, loc, 32));
    g = arith::DivUIOp::create(b, loc, lane, c(b, loc, 4));
    q = arith::RemUIOp::create(b, loc, lane, c(b, loc, 4));
    quarterRow = mul(b, loc, arith::DivUIOp::create(b, loc, warp, c(b, loc, 2)), 32);
    quarterCol = mul(b, loc, arith::RemUIOp::create(b, loc, warp, c(b, loc, 2)), 32);
    // (Integer space 3: nvgpu.ldmatrix's lowering takes no #gpu.address_space.)
    auto shared = MemRefType::get({kStageElements}, b.getF32Type(), MemRefLayoutAttrInterface(),
                                  b.getI64IntegerAttr(3));
    stageA = memref::AllocOp::create(b, loc, shared);
    stageB = memref::AllocOp::create(b, loc, shared);
  }
  Value readAccumulator(vector::TransferReadOp read, ValueRange indices, OpBuilder &b) override {
    Location loc = read.getLoc();
    Value acc = LLVM::PoisonOp::create(b, loc, accumulatorType(b));
    for (auto [i, rc] : llvm::enumerate(accumulatorCoords(b, loc))) {
      Value v = loadTileElement(read.getBase(), indices, read.getPermutationMap(), rc.first,
                                rc.second, b, loc);
      acc = LLVM::InsertValueOp::create(b, loc, acc, v, ArrayRef<int64_t>{(int64_t)i});
    }
    return acc;
  }
  /// The tile copied into its stage by the 128 threads (consecutive threads take
  /// consecutive columns of the tile); the stage is what `multiply` gets.
  Value readOperand(vector::TransferReadOp read, ValueRange indices, OpBuilder &b) override {
    Location loc = read.getLoc();
    bool isA = mmaRole(read) == "a";
    ArrayRef<int64_t> shape = read.getVectorType().getShape(); // A: (m, k); B: (k, n)
    int64_t rows = shape[0], cols = shape[1], rowsPerPass = kThreads / cols;
    Value stage = isA ? stageA : stageB;
    Value rowInPass = arith::DivUIOp::create(b, loc, thread, c(b, loc, cols));
    Value col = arith::RemUIOp::create(b, loc, thread, c(b, loc, cols));
    AffineMap offset = stageOffset(b.getContext());
    for (int64_t pass = 0; pass < rows / rowsPerPass; ++pass) {
      Value row = arith::AddIOp::create(b, loc, rowInPass, c(b, loc, pass * rowsPerPass));
      Value v = loadTileElement(read.getBase(), indices, read.getPermutationMap(), row, col, b,
                                loc);
      // Stages are K-major: A's (m, k) and B's (n, k).
      Value at = affine::AffineApplyOp::create(b, loc, offset,
                                               isA ? ValueRange{row, col} : ValueRange{col, row});
      memref::StoreOp::create(b, loc, v, stage, at);
    }
    return stage;
  }
  /// The stage's shared-memory matrix descriptor (no swizzling) at its first k8 step.
  Value descriptor(Value stage, OpBuilder &b, Location loc) {
    Type i64 = b.getI64Type();
    auto k = [&](uint64_t v) { return arith::ConstantIntOp::create(b, loc, i64, v); };
    Value address = arith::IndexCastUIOp::create(
        b, loc, i64, memref::ExtractAlignedPointerAsIndexOp::create(b, loc, stage));
    Value start = arith::ShRUIOp::create(b, loc, arith::AndIOp::create(b, loc, address, k(0x3FFFF)),
                                         k(4));
    uint64_t fixed = uint64_t(kLeadingBytes >> 4) << 16 | uint64_t(kStrideBytes >> 4) << 32;
    return arith::OrIOp::create(b, loc, start, k(fixed));
  }
  /// The descriptor `step` k8 steps in: two core matrices along K further (the start
  /// address field, in 16-byte units, stays within its 14 bits: shared memory < 256 KiB).
  Value advance(Value descriptor, int64_t step, OpBuilder &b, Location loc) {
    if (step == 0)
      return descriptor;
    uint64_t stepBytes = 2 * kLeadingBytes;
    return arith::AddIOp::create(
        b, loc, descriptor,
        arith::ConstantIntOp::create(b, loc, b.getI64Type(), (step * stepBytes) >> 4));
  }
  Value multiply(vector::ContractionOp contract, Value lhs, Value rhs, Value acc,
                 OpBuilder &b) override {
    Location loc = contract.getLoc();
    MLIRContext *ctx = b.getContext();
    if (!wgmma) {
      gpu::BarrierOp::create(b, loc);
      acc = warpMma(lhs, rhs, acc, b, loc);
      gpu::BarrierOp::create(b, loc); // the stages are refilled next step
      return acc;
    }
    // The threads' generic-proxy stores, visible to wgmma's async-proxy reads.
    NVVM::FenceProxyOp::create(b, loc, NVVM::ProxyKind::async_shared,
                               NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    gpu::BarrierOp::create(b, loc);
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    auto tf32 = NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::tf32);
    auto one = NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one);
    Value descA = descriptor(lhs, b, loc), descB = descriptor(rhs, b, loc);
    for (int64_t step = 0; step < kWgmmaStageK / kWgmmaK; ++step)
      acc = NVVM::WgmmaMmaAsyncOp::create(
          b, loc, acc.getType(), acc, advance(descA, step, b, loc), advance(descB, step, b, loc),
          NVVM::MMAShapeAttr::get(ctx, kWgmmaM, kWgmmaN, kWgmmaK), tf32, tf32,
          NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
          NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one), one, one,
          NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row),
          NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::col), NVVM::MMAIntOverflowAttr());
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
    // The stages are refilled next step.
    gpu::BarrierOp::create(b, loc);
    return acc;
  }
  /// The warp's share of one stage: for each k8 step, its A and B fragments by ldmatrix,
  /// then its eight mma.sync on the accumulators.
  Value warpMma(Value stA, Value stB, Value acc, OpBuilder &b, Location loc) {
    auto add = [&](Value v, int64_t k) { return this->add(b, loc, v, k); };
    auto mul = [&](Value v, int64_t k) { return this->mul(b, loc, v, k); };
    AffineMap offset = stageOffset(b.getContext());
    Value rowIn = arith::RemUIOp::create(b, loc, lane, c(b, loc, 8)); // row within a block
    Value block = arith::DivUIOp::create(b, loc, lane, c(b, loc, 8));
    Value blockRow = mul(arith::AndIOp::create(b, loc, block, c(b, loc, 1)), 8);
    Value blockColA = mul(arith::DivUIOp::create(b, loc, block, c(b, loc, 2)), 4);
    Value blockColB = mul(arith::AndIOp::create(b, loc, block, c(b, loc, 1)), 4);
    Value m0 = quarterRow, n0 = quarterCol;
    Type f32 = b.getF32Type();
    for (int64_t step = 0; step < kWgmmaStageK / kMmaK; ++step) {
      SmallVector<Value> as, bs;
      for (int64_t i = 0; i < 2; ++i) {
        Value row = arith::AddIOp::create(b, loc, add(m0, 16 * i),
                                          arith::AddIOp::create(b, loc, rowIn, blockRow));
        Value col = add(blockColA, kMmaK * step);
        Value at = affine::AffineApplyOp::create(b, loc, offset, ValueRange{row, col});
        as.push_back(nvgpu::LdMatrixOp::create(b, loc, VectorType::get({4, 1}, f32), stA,
                                               ValueRange{at}, /*transpose=*/false,
                                               /*numTiles=*/4));
      }
      for (int64_t j = 0; j < 4; ++j) {
        Value row = arith::AddIOp::create(b, loc, add(n0, 8 * j), rowIn);
        Value col = add(blockColB, kMmaK * step);
        Value at = affine::AffineApplyOp::create(b, loc, offset, ValueRange{row, col});
        bs.push_back(nvgpu::LdMatrixOp::create(b, loc, VectorType::get({2, 1}, f32), stB,
                                               ValueRange{at}, /*transpose=*/false,
                                               /*numTiles=*/2));
      }
      for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 4; ++j) {
          int64_t base = (i * 4 + j) * 4;
          SmallVector<Value> parts;
          for (int64_t e = 0; e < 4; ++e)
            parts.push_back(LLVM::ExtractValueOp::create(b, loc, acc, ArrayRef<int64_t>{base + e}));
          Value frag = vector::FromElementsOp::create(b, loc, VectorType::get({2, 2}, f32), parts);
          Value d = nvgpu::MmaSyncOp::create(b, loc, as[i], bs[j], frag,
                                             ArrayRef<int64_t>{kMmaM, kMmaN, kMmaK},
                                             /*tf32Enabled=*/true);
          for (int64_t e = 0; e < 4; ++e) {
            Value v = vector::ExtractOp::create(b, loc, d, ArrayRef<int64_t>{e / 2, e % 2});
            acc = LLVM::InsertValueOp::create(b, loc, acc, v, ArrayRef<int64_t>{base + e});
          }
        }
    }
    return acc;
  }
  void forEachAccumulator(Value acc, OpBuilder &b,
                          function_ref<void(OpBuilder &, Value, Value, Value)> fn) override {
    Location loc = acc.getLoc();
    for (auto [i, rc] : llvm::enumerate(accumulatorCoords(b, loc)))
      fn(b, rc.first, rc.second,
         LLVM::ExtractValueOp::create(b, loc, acc, ArrayRef<int64_t>{(int64_t)i}));
  }
};

struct WarpgroupMma : dlc::cuda::impl::WarpgroupMmaBase<WarpgroupMma> {
  using WarpgroupMmaBase::WarpgroupMmaBase;
  void runOnOperation() override {
    StagedLowering lowering(wgmma);
    if (failed(lowerMmaGroups(getOperation(), lowering)))
      signalPassFailure();
  }
};

} // namespace
