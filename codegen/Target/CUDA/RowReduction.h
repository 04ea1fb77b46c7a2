// The warp schedule of a row reduction (a sum, max, ... along one dim: softmax's and
// LayerNorm's statistics, ReduceMean): one warp per output element, its 32 lanes
// striding along the row. Written at warp level on vector<32> values (one element per
// lane), which runs on the CPU as it is; dlc-cuda-warp-reduce distributes it to lanes
// and combines the lanes' partial results with shuffles.
#ifndef DLC_CODEGEN_TARGET_CUDA_ROWREDUCTION_H
#define DLC_CODEGEN_TARGET_CUDA_ROWREDUCTION_H

#include "codegen/Target/CUDA/Passes.h"

namespace dlc::cuda {

/// Lanes of a warp, and warps of a row-reduction block.
constexpr int64_t kWarpLanes = 32, kReductionWarps = 8;
/// Marks the schedule's per-lane reads ("lanes") and the warp's result store ("result").
constexpr llvm::StringLiteral kWarpRoleAttr = "dlc.warp_role";

/// Whether `op` (on buffers) is a reduction the warp schedule takes: one f32 output,
/// one reduction dim of at least a warp's length, a body of arith/math ops folded into
/// the output by one combiner (add, mul, max, min).
bool takesWarpReduction(mlir::linalg::LinalgOp op);
/// Replaces `op` by its warp schedule: a forall over blocks holding a forall over warps
/// (#gpu.warp<x>); each warp takes one output element, its lanes combining every 32nd
/// element of the row (vector<32> partials carried over the row), the partials then
/// reduced (vector.reduction) and combined into the output.
mlir::LogicalResult buildWarpReduction(mlir::linalg::LinalgOp op, mlir::RewriterBase &b);

} // namespace dlc::cuda

#endif
