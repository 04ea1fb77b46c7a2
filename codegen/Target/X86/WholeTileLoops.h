// Threads over the whole tiles of a dynamic dim (dlc compile --dims).
#ifndef DLC_CODEGEN_TARGET_X86_WHOLETILELOOPS_H
#define DLC_CODEGEN_TARGET_X86_WHOLETILELOOPS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"

namespace dlc::x86 {

/// A parallel loop over a dynamic dim (a batch, stepped by one) around a dynamic tile loop
/// that peeling cut into its whole tiles and a last partial tile splits in two: a loop
/// over the whole tiles, merged with the batch loop so that threads split their product
/// (a batch of 1 and 128 rows in tiles of 8 gives 16 pieces, not 1), then a parallel
/// loop over the batch's partial tiles.
void coalesceWholeTiles(mlir::func::FuncOp func, mlir::RewriterBase &rewriter);

} // namespace dlc::x86

#endif
