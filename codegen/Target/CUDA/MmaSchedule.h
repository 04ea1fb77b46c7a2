// The tensor-core schedule of f32 contractions (mma.sync m16n8k8 in TF32): its tile
// sizes, shared by the schedule (MmaSchedule.cpp) and its lowering to lanes (WarpMma.cpp).
#ifndef DLC_CODEGEN_TARGET_CUDA_MMASCHEDULE_H
#define DLC_CODEGEN_TARGET_CUDA_MMASCHEDULE_H

#include "codegen/Target/CUDA/Passes.h"

namespace dlc::cuda {

/// One mma.sync: a 16x8 tile of C += a 16x8 tile of A times an 8x8 tile of B.
constexpr int64_t kMmaM = 16, kMmaN = 8, kMmaK = 8;
/// A warp's tiles (32x32 outputs) and a block's warps (2x2: 64x64 outputs, 128 threads).
constexpr int64_t kTilesM = 2, kTilesN = 4, kWarpsM = 2, kWarpsN = 2;
constexpr int64_t kWarpTileM = kTilesM * kMmaM, kWarpTileN = kTilesN * kMmaN;
constexpr int64_t kBlockM = kWarpsM * kWarpTileM, kBlockN = kWarpsN * kWarpTileN;
/// Marks the schedule's tile reads and writes with the mma operand they hold: "a", "b"
/// or "c" (the accumulator).
constexpr llvm::StringLiteral kMmaRoleAttr = "dlc.mma_role";

/// Whether `op` (on buffers) is a contraction the tensor-core schedule takes: f32, one
/// reduction dim, projected-permutation maps, at least one mma tile in M, N and K.
bool takesMmaSchedule(mlir::linalg::LinalgOp op);
/// Replaces `op` by its tensor-core schedule: a forall over blocks holding a forall over
/// warps (#gpu.warp<x>), each warp's tiles read, multiplied over K and written back.
mlir::LogicalResult buildMmaSchedule(mlir::linalg::LinalgOp op, mlir::RewriterBase &b);

} // namespace dlc::cuda

#endif
