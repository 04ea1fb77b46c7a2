// Per-op tiling choices for the x86 CPU: the one place heuristics live.
#ifndef DLC_CODEGEN_TARGET_X86_KERNELCONFIG_H
#define DLC_CODEGEN_TARGET_X86_KERNELCONFIG_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace dlc::x86 {

/// Contraction: matmul-like. Convolution: named conv/pool ops decomposed to 1-D.
/// ImplicitGemm: a conv generic over packed weights whose kh/kw tiles fold into a
/// matmul tile. Generic: everything else.
enum class KernelKind { Contraction, Convolution, ImplicitGemm, Generic };

struct KernelConfig {
  KernelKind kind = KernelKind::Generic;
  /// Tile size per loop of the op (0 = not tiled). Parallel loops are tiled
  /// first (with the init's producers fused in), reduction loops inside that.
  llvm::SmallVector<int64_t> tiles;
  /// Order of the parallel tile loops, outermost first, as loop dims of the op
  /// (empty: dim order).
  llvm::SmallVector<int64_t> interchange;
};

/// Chooses how to tile `op`, or nothing when it should stay as it is.
std::optional<KernelConfig> chooseKernelConfig(mlir::linalg::LinalgOp op);

/// The trailing reduction loops of `op`, when there are two or more and they are
/// contiguous in every operand (a mean over [H, W]): dlc-cpu-tile-vectorize collapses
/// them into one, which then gets an innermost reduction's partial sums.
std::optional<mlir::ReassociationIndices> collapsibleReductionLoops(mlir::linalg::GenericOp op);

/// Whether `op`'s reduction is tiled with vector partial sums carried across one innermost
/// reduction loop (about sqrt(n) of them), directly or after collapsing its loops.
bool getsPartialSums(mlir::linalg::GenericOp op);

} // namespace dlc::x86

#endif
