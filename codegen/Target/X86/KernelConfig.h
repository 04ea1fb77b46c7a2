// Per-op kernel choices for the x86 CPU: the one place heuristics and tuning constants
// live. dlc-cpu-select-kernels records them on each op as #dlc.kernel_config; tiling,
// vectorization and row blocking read the attribute.
#ifndef DLC_CODEGEN_TARGET_X86_KERNELCONFIG_H
#define DLC_CODEGEN_TARGET_X86_KERNELCONFIG_H

#include "codegen/Target/X86/CpuTarget.h"
#include "dialects/Codegen/IR/CodegenDialect.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace dlc::x86 {

/// Contraction: matmul-like. Convolution: named conv/pool ops decomposed to 1-D.
/// ImplicitGemm: a conv generic over packed weights whose kh/kw tiles fold into a
/// matmul tile. Generic: everything else.
using codegen::KernelKind;

/// The in-memory form of #dlc.kernel_config (see its description in CodegenAttrs.td).
struct KernelConfig {
  KernelKind kind = KernelKind::Generic;
  /// Tile size per loop of the op (0 = not tiled). Parallel loops are tiled
  /// first (with the init's producers fused in), reduction loops inside that.
  llvm::SmallVector<int64_t> tiles;
  /// Order of the parallel tile loops, outermost first, as loop dims of the op
  /// (empty: dim order).
  llvm::SmallVector<int64_t> interchange;
  /// The loop whose tile loop the runtime's threads split (none: one thread).
  std::optional<int64_t> split;
  /// The op's only user, elementwise, is computed on each register tile.
  bool epilogue = false;
  /// The innermost reduction keeps tiles.back() partial sums across the row.
  bool partialSums = false;
  /// Rows per block of the row block this op roots.
  std::optional<int64_t> rowBlock;

  codegen::KernelConfigAttr toAttr(mlir::MLIRContext *ctx) const;
  static KernelConfig fromAttr(codegen::KernelConfigAttr attr);
};

//===----------------------------------------------------------------------===//
// Tuning constants that are not per-op tile choices (used by the passes named).
//===----------------------------------------------------------------------===//

/// Iterations (elements times reduction length) below which an op stays on one thread:
/// waking the others costs a few microseconds.
constexpr int64_t kMinParallelWork = 1 << 13;
/// The size a dynamic loop (dlc compile --dims) is chosen a kernel for: long, a power
/// of two (so every tile size divides it).
constexpr int64_t kDynamicLoopEstimate = 1024;
/// dlc-cpu-tile-vectorize vectorizes static tiles of at most this many elements (a
/// whole untiled op would become one huge vector).
constexpr int64_t kMaxVectorTileElements = 4096;
/// The implicit GEMM's input-channel loop, after kh and kw fold away, is stepped by this.
constexpr int64_t kImplicitGemmChannelStep = 1;
/// Normalization-like chains smaller than this are not row-blocked (the loop would not
/// pay off).
constexpr int64_t kMinRowBlockElements = 1 << 16;
/// dlc-streaming-stores / dlc-prefetch-streams: buffers of at least this many bytes
/// (more than a core's share of L2 and L3 keeps between the caller and the model) are
/// written with non-temporal stores and read with prefetches this far ahead, whole
/// 64-byte lines at a time.
constexpr int64_t kMinStreamingBytes = 4 << 20;
constexpr int64_t kCacheLineBytes = 64;
constexpr int64_t kPrefetchBytes = 8 << 10;

//===----------------------------------------------------------------------===//
// Per-op choices.
//===----------------------------------------------------------------------===//

/// How to tile `op` on `target` (kind, tiles, loop order), or nothing when it should
/// stay as it is (dynamic or empty iteration space, no loops, buffers).
std::optional<KernelConfig> chooseKernelConfig(mlir::linalg::LinalgOp op, const CpuTarget &target);

/// When `root` starts a row block (an all-parallel generic reading a per-row statistic
/// that a reduction computes, large enough to pay off), the rows per block: a block of
/// the chain's intermediates takes about 1/16 of L2.
std::optional<int64_t> chooseRowBlock(mlir::linalg::GenericOp root, const CpuTarget &target);

/// The loop of `op` whose tile loop the threads split under `cfg`: the outermost tile
/// loop (in `cfg`'s order) with more than one iteration, when the op has enough work.
std::optional<int64_t> chooseThreadSplit(mlir::linalg::LinalgOp op, const KernelConfig &cfg);

/// The columns of a packed weight block (convert-graph-to-linalg's pack-block): one
/// register tile's width, two vectors (32 floats with AVX-512, 16 with AVX2).
inline int64_t packedWeightColumns(const CpuTarget &target) { return 2 * target.f32Lanes(); }

/// Output images (pixels per image) small enough that a stride-1 conv runs faster as
/// im2col and the packed GEMM than as the implicit GEMM, whose row tiles then leave a
/// partial tile on every row. AVX2 (6-pixel row tiles): 14x14 images (ResNet's
/// layer3) ran 11 % faster, 7x7 ones 18 %, 28x28 ones 4 % slower (Zen 3, 1 thread).
/// AVX-512's 8- and 7-pixel tiles divide those widths: never.
inline int64_t im2colConvPixels(const CpuTarget &target) {
  return target.isa == Isa::AVX512 ? 0 : 196;
}

/// An integer generic in K groups over packed weights (loops rows..., n1, n0, k1, k0;
/// weights [n1][k1][n0][k0]): u8 x s8 -> i32 in groups of 4 (k0 = 4), or i16 x i16 -> i32
/// in pairs (k0 = 2): what convert-graph-to-linalg makes of an integer matmul for a target
/// with VNNI, or with AVX2.
bool isDotGroupContraction(mlir::linalg::LinalgOp op);

/// The convolution of the same over a padded NHWC input in channel groups (loops n, oh,
/// ow, f1, f0, kh, kw, c1, c0; weights [f1][kh][kw][c1][f0][c0]).
bool isDotGroupConvolution(mlir::linalg::LinalgOp op);

/// A weight-only quantized product (dlc_graph.dequant_matmul): f32 activations times 8-bit
/// codes dequantized in the body with a per-block scale and offset (loops rows..., n1, n0,
/// kb, ki; codes [n1][kb][ki][n0]; with int4 codes two to a byte, loops rows..., n1, n0, kb,
/// kh, p and codes [n1][kb][kh][n0]; scale and offset [n1][kb][n0]).
bool isDequantContraction(mlir::linalg::LinalgOp op);

/// Iterations of `op` (elements times reduction length; dynamic loops estimated).
int64_t workOf(mlir::linalg::LinalgOp op);

/// `op`'s static loop ranges, a dynamic one as kDynamicLoopEstimate.
llvm::SmallVector<int64_t> estimatedLoopRanges(mlir::linalg::LinalgOp op);

/// Whether `consumer` (an all-parallel generic with one result, reading `producer`'s
/// only result through an identity map) is computed as the epilogue of `producer`'s
/// kernel `producerCfg` (a contraction or convolution).
bool computesAsEpilogue(mlir::linalg::LinalgOp consumer, mlir::linalg::LinalgOp producer,
                        const KernelConfig &producerCfg);

/// The trailing reduction loops of `op`, when there are two or more and they are
/// contiguous in every operand (a mean over [H, W]): dlc-cpu-select-kernels collapses
/// them into one, which then gets an innermost reduction's partial sums.
std::optional<mlir::ReassociationIndices> collapsibleReductionLoops(mlir::linalg::GenericOp op);

/// A generic with one output and one reduction loop, the innermost (or several trailing
/// ones combined by max or min): its partial results can live in a vector across the
/// innermost loop.
bool isInnerReduction(mlir::Operation *op);

/// Whether `op`'s reduction is tiled with vector partial sums carried across one innermost
/// reduction loop (about sqrt(n) of them), directly or after collapsing its loops.
bool getsPartialSums(mlir::linalg::GenericOp op);

} // namespace dlc::x86

#endif
