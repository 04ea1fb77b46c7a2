// Pieces the CUDA kernel schedules share: the block/inner forall nest, the guarded point
// a block's thread or warp takes, and linalg bodies of scalar arithmetic cloned onto
// vectors (a warp's lanes, an accumulator tile).
#ifndef DLC_CODEGEN_TARGET_CUDA_SCHEDULEUTILS_H
#define DLC_CODEGEN_TARGET_CUDA_SCHEDULEUTILS_H

#include "codegen/Target/CUDA/Passes.h"

#include "mlir/IR/IRMapping.h"

namespace dlc::cuda {

/// A forall over `blocks` blocks (#gpu.block<x>) holding a forall over `inner` threads,
/// warps or warpgroups (`innerMapping`); the builder is left at the start of the inner
/// body.
std::pair<mlir::scf::ForallOp, mlir::scf::ForallOp>
createKernelForalls(mlir::OpBuilder &b, mlir::Location loc, int64_t blocks, int64_t inner,
                    mlir::Attribute innerMapping);

/// point = block * perBlock + inner id, and the builder left inside `if point < points`.
mlir::Value guardedPoint(mlir::OpBuilder &b, mlir::Location loc, mlir::scf::ForallOp grid,
                         mlir::scf::ForallOp inner, int64_t perBlock, int64_t points);

/// Whether every op of `body` (but its terminator) is scalar arith/math: one result, no
/// regions, integer, index or float operands.
bool isScalarArithmetic(mlir::Block *body);

/// Clones the ops of `body` (but its terminator) at `b` on vectors of `shape`: each result
/// type T becomes vector<shape x T>; operands come through `map` (block arguments must be
/// mapped), values from outside the body and constants are broadcast.
void cloneOnVectors(mlir::Block *body, llvm::ArrayRef<int64_t> shape, mlir::IRMapping &map,
                    mlir::OpBuilder &b, mlir::Location loc);

} // namespace dlc::cuda

#endif
