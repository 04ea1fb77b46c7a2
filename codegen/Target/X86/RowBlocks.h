// Row blocks: normalization-like chains tiled by blocks of rows before per-op tiling.
#ifndef DLC_CODEGEN_TARGET_X86_ROWBLOCKS_H
#define DLC_CODEGEN_TARGET_X86_ROWBLOCKS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"

namespace dlc::x86 {

/// Attribute on a row-block loop: the linalg ops directly inside are tiled and
/// vectorized like top-level ops, and never split across threads themselves.
constexpr const char *kRowBlockAttr = "dlc.row_block";

/// Tiles every op whose #dlc.kernel_config has a row_block (an elementwise op that
/// reads a per-row statistic of a reduction: LayerNorm's normalize, softmax's divide)
/// by blocks of that many rows, with its whole chain of generic-kernel producers fused
/// into the block loop: the chain's intermediates then live one L2-sized block at a
/// time instead of round-tripping through memory between passes. The ops in a block
/// keep the configurations of the ops they were cloned from.
void formRowBlocks(mlir::func::FuncOp func, mlir::RewriterBase &rewriter);

/// Whether `op` sits directly in a row-block loop.
bool isInRowBlock(mlir::Operation *op);

/// An op tiled on its own: not inside a tile loop, except directly in a row block.
bool isRootPosition(mlir::Operation *op);

} // namespace dlc::x86

#endif
