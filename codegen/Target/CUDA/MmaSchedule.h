// The tensor-core schedules of f32 contractions and the tile shapes they use, shared by
// the schedule (MmaSchedule.cpp) and its lowerings: to warps' mma.sync fragments
// (WarpMma.cpp) and to warpgroups' wgmma (WarpgroupMma.cpp), both through MmaLowering.h.
#ifndef DLC_CODEGEN_TARGET_CUDA_MMASCHEDULE_H
#define DLC_CODEGEN_TARGET_CUDA_MMASCHEDULE_H

#include "codegen/Target/CUDA/Passes.h"

namespace dlc::cuda {

/// A tensor-core schedule's shape: a block computes groupsM x groupsN groups of threads
/// (warps, or warpgroups of four warps), each tilesM x tilesN tiles of tileM x tileN
/// outputs, accumulated over K in steps of tileK.
struct MmaConfig {
  int64_t tileM, tileN, tileK, tilesM, tilesN, groupsM, groupsN;
  /// Groups are warpgroups (128 threads, #gpu.warpgroup<x>), else warps (#gpu.warp<x>).
  bool warpgroups;
  constexpr int64_t groupTileM() const { return tilesM * tileM; }
  constexpr int64_t groupTileN() const { return tilesN * tileN; }
  constexpr int64_t blockM() const { return groupsM * groupTileM(); }
  constexpr int64_t blockN() const { return groupsN * groupTileN(); }
};

/// mma.sync m16n8k8 (TF32): a 16x8 tile of C += a 16x8 tile of A times an 8x8 tile of B;
/// each warp 2x4 tiles (32x32), a block 2x2 warps (64x64 outputs, 128 threads).
constexpr int64_t kMmaM = 16, kMmaN = 8, kMmaK = 8;
constexpr MmaConfig kMmaSyncConfig{kMmaM, kMmaN, kMmaK, 2, 4, 2, 2, /*warpgroups=*/false};
/// wgmma (sm_90a, TF32): one warpgroup per block computes a 64x64 tile from operand tiles
/// staged in shared memory 32 K-columns at a time (four m64n64k8 instructions each).
constexpr int64_t kWgmmaM = 64, kWgmmaN = 64, kWgmmaK = 8, kWgmmaStageK = 32;
constexpr MmaConfig kWgmmaConfig{kWgmmaM, kWgmmaN, kWgmmaStageK, 1, 1, 1, 1,
                                 /*warpgroups=*/true};

/// Marks the schedule's tile reads and writes with the mma operand they hold: "a", "b"
/// or "c" (the accumulator).
constexpr llvm::StringLiteral kMmaRoleAttr = "dlc.mma_role";

/// Whether `op` (on buffers) is a contraction the tensor-core schedules take: f32, one
/// reduction dim, projected-permutation maps, at least one mma.sync tile in M, N and K.
bool takesMmaSchedule(mlir::linalg::LinalgOp op);
/// The elementwise op right after `op` that can be computed on `op`'s accumulators
/// instead of in a kernel of its own (a bias, an activation, a residual), or null: it
/// reads `op`'s output once at the same indices and nothing later reads that output; its
/// output (f32, `op`'s shape) shares no bytes with `op`'s inputs.
mlir::linalg::GenericOp fusableEpilogue(mlir::linalg::LinalgOp op);
/// Replaces `op` by its tensor-core schedule of shape `config`: a forall over blocks
/// holding a forall over the groups (warps or warpgroups), each group's tiles read (whole
/// tiles, masked at the edges), multiplied over K (vector.contract) and written back;
/// with `epilogue` (from fusableEpilogue, then erased), its body is applied to the tiles
/// (other inputs read as tiles, role "e") and the results written to its output instead.
mlir::LogicalResult buildMmaSchedule(mlir::linalg::LinalgOp op, const MmaConfig &config,
                                     mlir::RewriterBase &b,
                                     mlir::linalg::GenericOp epilogue = {});

} // namespace dlc::cuda

#endif
