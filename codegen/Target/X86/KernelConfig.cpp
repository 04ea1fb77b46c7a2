// Per-op kernel choices for the x86 CPU (register tiles, vector widths, thread split).
#include "codegen/Target/X86/KernelConfig.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace dlc::x86 {

codegen::KernelConfigAttr KernelConfig::toAttr(MLIRContext *ctx) const {
  return codegen::KernelConfigAttr::get(ctx, kind, tiles, interchange, split, epilogue,
                                        partialSums, rowBlock);
}

KernelConfig KernelConfig::fromAttr(codegen::KernelConfigAttr attr) {
  KernelConfig cfg;
  cfg.kind = attr.getKind();
  cfg.tiles.assign(attr.getTiles().begin(), attr.getTiles().end());
  cfg.interchange.assign(attr.getInterchange().begin(), attr.getInterchange().end());
  cfg.split = attr.getSplit();
  cfg.epilogue = attr.getEpilogue();
  cfg.partialSums = attr.getPartialSums();
  cfg.rowBlock = attr.getRowBlock();
  return cfg;
}

/// Bytes of the op's second input (the weights of a contraction or convolution).
static int64_t weightBytes(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() < 2)
    return 0;
  auto type = dyn_cast<ShapedType>(op.getDpsInputOperand(1)->get().getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return 0;
  return type.getNumElements() * type.getElementTypeBitWidth() / 8;
}

/// `outer` first, then the other loops in order, when the weights are large: more
/// than half of a core's L2, they are streamed block by block, their column/channel
/// blocks the outermost loop.
static void blockOuterWhenLarge(linalg::LinalgOp op, KernelConfig &cfg, unsigned outer,
                                const CpuTarget &target) {
  if (weightBytes(op) <= target.l2Bytes / 2)
    return;
  cfg.interchange.push_back(outer);
  for (unsigned d = 0; d < op.getNumLoops(); ++d)
    if (d != outer)
      cfg.interchange.push_back(d);
}

/// Largest candidate that divides `n` (1 if none).
static int64_t divisorTile(int64_t n, std::initializer_list<int64_t> candidates) {
  for (int64_t c : candidates)
    if (n % c == 0)
      return c;
  return 1;
}

/// `preferred`, or all of `n` when it is smaller. A tile that does not divide `n`
/// leaves a last partial tile, which tiling peels off (with static sizes too).
static int64_t wholeOrPartialTile(int64_t n, int64_t preferred) {
  return std::min(n, preferred);
}

/// The largest candidate dividing `n` when it is at least `good`, else `preferred`
/// tiles with a partial last one (output widths like 13 or 27, whose best divisors
/// would leave 1 or 3 pixels per register tile).
static int64_t divisorOrPartialTile(int64_t n, std::initializer_list<int64_t> candidates,
                                    int64_t good, int64_t preferred) {
  int64_t d = divisorTile(n, candidates);
  return d >= good || d == n ? d : wholeOrPartialTile(n, preferred);
}

/// Whether `op` is a generic of two dot-group operands (both i8, groups of 4, or both i16,
/// groups of 2, into i32; or both bf16, groups of 2, into f32) over `loops` loops, the last
/// `reductions` of them reductions, its weights indexed by `weights` (dims of the loops)
/// and its innermost loop the group.
static bool isDotGroupGeneric(linalg::LinalgOp op, unsigned loops, unsigned reductions,
                              ArrayRef<unsigned> weights) {
  if (!isa<linalg::GenericOp>(op.getOperation()) || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.getNumLoops() != loops)
    return false;
  auto elt = [](Value v) { return getElementTypeOrSelf(v.getType()); };
  Type a = elt(op.getDpsInputs()[0]), acc = elt(op.getDpsInits()[0]);
  bool integer = acc.isInteger(32) && (a.isInteger(8) || a.isInteger(16));
  if (a != elt(op.getDpsInputs()[1]) || !(integer || (a.isBF16() && acc.isF32())))
    return false;
  auto iters = op.getIteratorTypesArray();
  for (unsigned d = 0; d < loops; ++d)
    if ((iters[d] == utils::IteratorType::reduction) != (d + reductions >= loops))
      return false;
  SmallVector<AffineExpr> dims;
  for (unsigned d : weights)
    dims.push_back(getAffineDimExpr(d, op.getContext()));
  return op.getMatchingIndexingMap(op.getDpsInputOperand(1)) ==
             AffineMap::get(loops, 0, dims, op.getContext()) &&
         op.getStaticLoopRanges()[loops - 1] == (a.isInteger(8) ? 4 : 2);
}

bool isDotGroupContraction(linalg::LinalgOp op) {
  unsigned n = op.getNumLoops();
  return n >= 5 && isDotGroupGeneric(op, n, 2, {n - 4, n - 2, n - 3, n - 1});
}

bool isDotGroupConvolution(linalg::LinalgOp op) {
  return isDotGroupGeneric(op, 9, 4, {3, 5, 6, 7, 4, 8});
}

bool isDequantContraction(linalg::LinalgOp op) {
  unsigned n = op.getNumLoops(), r = op.getNumReductionLoops();
  if (!isa<linalg::GenericOp>(op.getOperation()) || op.getNumDpsInputs() != 4 ||
      op.getNumDpsInits() != 1 || (r != 2 && r != 3) || n < r + 3 ||
      !getElementTypeOrSelf(op.getDpsInputs()[1].getType()).isInteger(8) ||
      !getElementTypeOrSelf(op.getDpsInits()[0].getType()).isF32())
    return false;
  auto iters = op.getIteratorTypesArray();
  for (unsigned d = n - r; d < n; ++d)
    if (iters[d] != utils::IteratorType::reduction)
      return false;
  MLIRContext *ctx = op.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  // Codes [n1][kb][ki][n0] (bytes of nibble pairs: [n1][kb][kh][n0]).
  return op.getMatchingIndexingMap(op.getDpsInputOperand(1)) ==
         AffineMap::get(n, 0, {d(n - r - 2), d(n - r), d(n - r + 1), d(n - r - 1)}, ctx);
}

SmallVector<int64_t> estimatedLoopRanges(linalg::LinalgOp op) {
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  for (int64_t &b : bounds)
    if (ShapedType::isDynamic(b))
      b = kDynamicLoopEstimate;
  return bounds;
}

std::optional<KernelConfig> chooseKernelConfig(linalg::LinalgOp op, const CpuTarget &target) {
  if (!op.hasPureTensorSemantics() || op.getNumLoops() == 0)
    return std::nullopt;
  // Dynamic loops (dlc compile --dims) are tiled as if long; the tiles they end with are
  // peeled off when the model runs (dlc-cpu-tile-vectorize).
  SmallVector<int64_t> bounds = estimatedLoopRanges(op);
  // Empty iteration spaces are left alone (they run no iteration).
  if (llvm::any_of(bounds, [](int64_t b) { return b == 0; }))
    return std::nullopt;
  unsigned n = bounds.size();
  KernelConfig cfg;
  // Register tiles fit the register file: accumulators, a few loads and a broadcast.
  // AVX-512: 32 zmm of 16 floats; AVX2: 16 ymm of 8.
  bool avx512 = target.isa == Isa::AVX512;

  // Integer and bf16 products in K groups (loops rows..., n1, n0, k1, k0): a register tile
  // of 16 accumulators, 8 rows x 2 column blocks (QUANT-NOTES.md §3.2; AVX2: 12, 6 x 2, with 2
  // weight loads, a broadcast and a product, as the fp32 tile), fewer rows: more blocks;
  // the K groups stepped one at a time with the group whole.
  if (isDotGroupContraction(op)) {
    cfg.kind = KernelKind::Contraction;
    cfg.tiles.assign(n, 1);
    unsigned m = n - 5, n1 = n - 4, n0 = n - 3;
    int64_t accumulators = avx512 ? 16 : 12;
    int64_t rows = wholeOrPartialTile(bounds[m], accumulators / 2);
    cfg.tiles[m] = rows;
    cfg.tiles[n1] = wholeOrPartialTile(bounds[n1], std::max<int64_t>(2, accumulators / rows));
    cfg.tiles[n0] = bounds[n0];
    cfg.tiles[n - 1] = 0;
    blockOuterWhenLarge(op, cfg, n1, target);
    return cfg;
  }
  // Weight-only quantized products (loops rows..., n1, n0, kb, ki or, with int4 codes in
  // nibbles, kb, kh, p): the f32 contraction's
  // register tile (rows x one column block), each vector of codes converted and scaled
  // once per K step for all the tile's rows; K stepped by one.
  if (isDequantContraction(op)) {
    cfg.kind = KernelKind::Contraction;
    cfg.tiles.assign(n, 1);
    // Fewer rows than the tile has: more column blocks, so that enough independent
    // accumulators hide the FMA latency (a single row: 4 blocks of byte codes, 2 of
    // nibbles, whose unpacking needs the registers: 1 x 4096 x 4096 on Zen 3, 1.46 ms with
    // 4 blocks of bytes, 1.82 ms with 2 blocks of nibbles against 1.96 ms with 4).
    unsigned n1 = n - op.getNumReductionLoops() - 2, n0 = n1 + 1;
    int64_t rows = wholeOrPartialTile(bounds[n1 - 1], avx512 ? 8 : 6);
    int64_t blocks = op.getNumReductionLoops() == 3 ? 2 : 4;
    cfg.tiles[n1 - 1] = rows;
    cfg.tiles[n1] = divisorTile(bounds[n1], {std::max<int64_t>(1, blocks / rows), 2, 1});
    cfg.tiles[n0] = bounds[n0];
    blockOuterWhenLarge(op, cfg, n1, target);
    return cfg;
  }
  // The convolution of the same (loops n, oh, ow, f1, f0, kh, kw, c1, c0): TOW pixels x
  // column blocks, 16 accumulators; kh, kw and the channel groups c1 by one (the unit
  // dims then fold away, leaving the matmul tile above), c0 whole.
  if (isDotGroupConvolution(op)) {
    cfg.kind = KernelKind::ImplicitGemm;
    cfg.tiles.assign(n, 1);
    int64_t blocks = std::min<int64_t>(bounds[3], 2);
    cfg.tiles[3] = blocks;
    cfg.tiles[4] = bounds[4];
    if (avx512)
      cfg.tiles[2] = blocks == 2 ? divisorOrPartialTile(bounds[2], {8, 7, 6, 5, 4}, 4, 8)
                                 : divisorOrPartialTile(bounds[2], {16, 14, 12, 10, 8, 7}, 8, 16);
    else // 12 accumulators
      cfg.tiles[2] = blocks == 2 ? divisorOrPartialTile(bounds[2], {6, 5, 4}, 4, 6)
                                 : divisorOrPartialTile(bounds[2], {12, 10, 8, 7}, 7, 12);
    cfg.tiles[8] = 0;
    blockOuterWhenLarge(op, cfg, 3, target);
    return cfg;
  }

  // Contraction: an RM x RN register tile (AVX-512: 8 x 32 fp32 = 16 zmm accumulators;
  // AVX2: 6 x 16 = 12 ymm, with 2 loads of B and a broadcast of A, 15 of 16), the K loop
  // stepped by one inside (CPU-GEMM-NOTES.md variant b).
  if (isa<linalg::MatmulOp>(op) || linalg::isaContractionOpInterface(op)) {
    // Several M or N dims (e.g. a matmul with reshapes folded in) tile the
    // innermost one of each to the register tile and the others to 1.
    auto dims = linalg::inferContractionDims(op);
    if (succeeded(dims) && !dims->m.empty() && !dims->n.empty() && !dims->k.empty()) {
      cfg.kind = KernelKind::Contraction;
      cfg.tiles.assign(n, 1);
      // Row counts 8 does not divide (a sequence of 77, a batch of 12) keep 8-row
      // tiles and one last partial tile; so do column counts beyond 32.
      int64_t rows = bounds[dims->m.back()], cols = bounds[dims->n.back()];
      int64_t rm = avx512 ? 8 : 6, rn = avx512 ? 32 : 16;
      cfg.tiles[dims->m.back()] = wholeOrPartialTile(rows, rm);
      cfg.tiles[dims->n.back()] = cols % rn == 0 || cols > rn ? wholeOrPartialTile(cols, rn)
                                                               : wholeOrPartialTile(cols, rn / 2);
      // Packed weights ([N/NB][K][NB]) that do not fit L2: column blocks outermost, so
      // one block's panel stays in L2 while every row tile uses it.
      if (dims->n.size() == 2)
        blockOuterWhenLarge(op, cfg, dims->n.front(), target);
      return cfg;
    }
  }

  // Convolution and pooling: one output row of a few channels, whole filter
  // width; 2-D ops then decompose into vectorizable 1-D ones.
  if (linalg::isaConvolutionOpInterface(op)) {
    auto dims = linalg::inferConvolutionDims(op);
    // Implicit GEMM over packed weights (output channels split into blocks f1, f0
    // with f0 innermost): TOW pixels x the whole block in registers, kh and kw by
    // 1 (they fold away), c by 1 after folding (CONV-NOTES.md route c).
    if (succeeded(dims) && dims->outputImage.size() == 2 && dims->filterLoop.size() == 2 &&
        dims->outputChannel.size() == 2 && dims->inputChannel.size() == 1) {
      unsigned f1 = dims->outputChannel[0], f0 = dims->outputChannel[1];
      auto last = dyn_cast<AffineDimExpr>(op.getIndexingMapsArray().back().getResults().back());
      if (last && last.getPosition() == f0) {
        cfg.kind = KernelKind::ImplicitGemm;
        cfg.tiles.assign(n, 1);
        int64_t fb = bounds[f0], ow = dims->outputImage[1];
        if (avx512) {
          cfg.tiles[f0] = fb;
          cfg.tiles[ow] = fb >= 32 ? divisorOrPartialTile(bounds[ow], {8, 7, 6, 5, 4, 3, 2}, 4, 8)
                                   : divisorOrPartialTile(bounds[ow],
                                                          {16, 14, 12, 10, 8, 7, 6, 5, 4, 3, 2},
                                                          8, 16);
        } else {
          // 16 channels (two ymm) of a block x 6 pixels, or 8 x 12: 12 accumulators.
          // Rows of 56 or 28 pixels: 6-pixel tiles and a partial one beat 4-pixel tiles
          // (8 accumulators, barely covering the FMA latency) by about 1 %.
          cfg.tiles[f0] = std::min<int64_t>(fb, 16);
          cfg.tiles[ow] = fb >= 16 ? divisorOrPartialTile(bounds[ow], {6, 5}, 5, 6)
                                   : divisorOrPartialTile(bounds[ow],
                                                          {12, 10, 8, 7, 6, 5, 4, 3, 2}, 6, 12);
        }
        cfg.tiles[dims->inputChannel[0]] = 0;
        blockOuterWhenLarge(op, cfg, f1, target);
        return cfg;
      }
    }
    if (succeeded(dims) && dims->outputImage.size() == 2 && dims->filterLoop.size() == 2) {
      cfg.kind = KernelKind::Convolution;
      cfg.tiles.assign(n, 1);
      // Channels last (NHWC convs, depthwise included): channels in the vector lanes,
      // a few output pixels of one row, the whole filter width, input channels one
      // at a time: 8 pixels x 32 channels = 16 zmm accumulators (CONV-NOTES.md
      // routes a and d; depthwise keeps 4 x 32 to fit its loads). AVX2: 4 pixels x 16
      // channels = 8 ymm, the filter row's weights beside them.
      // Channels: F of a conv, C of a depthwise conv, and for a pool the dim it shares
      // with its input but not with its window (linalg counts it as a batch dim).
      SmallVector<unsigned> chans;
      llvm::append_range(chans, !dims->outputChannel.empty() ? dims->outputChannel : dims->depth);
      if (chans.empty() && dims->batch.size() > 1)
        chans.push_back(dims->batch.back());
      auto last = dyn_cast<AffineDimExpr>(op.getIndexingMapsArray().back().getResults().back());
      if (chans.size() == 1 && last && last.getPosition() == chans.front()) {
        bool depthwise = dims->outputChannel.empty();
        int64_t ow = bounds[dims->outputImage[1]];
        // Depthwise keeps its input rows in registers too: 4 x 32 when the row
        // allows, else up to 8 pixels of 16 channels.
        bool wide = !depthwise || ow % 4 == 0;
        int64_t channels = bounds[chans.front()];
        int64_t fb;
        if (avx512) {
          fb = wide ? divisorTile(channels, {32, 16, 8, 4, 2}) : divisorTile(channels, {16, 8, 4, 2});
          // A few channels that no vector width divides (LeNet's 6): all of them in one
          // partial vector rather than 2 lanes at a time.
          if (fb < 8 && channels <= 16)
            fb = channels;
          cfg.tiles[dims->outputImage[1]] =
              depthwise && fb == 32 ? divisorOrPartialTile(ow, {4, 2}, 2, 4)
                                    : divisorOrPartialTile(ow, {8, 7, 6, 5, 4, 3, 2}, 4, 8);
        } else {
          fb = wide ? divisorTile(channels, {16, 8, 4, 2}) : divisorTile(channels, {8, 4, 2});
          if (fb < 4 && channels <= 8)
            fb = channels;
          cfg.tiles[dims->outputImage[1]] = fb >= 16 ? divisorOrPartialTile(ow, {4, 3, 2}, 2, 4)
                                                     : divisorOrPartialTile(ow, {8, 7, 6, 5, 4, 3, 2}, 4, 8);
        }
        cfg.tiles[chans.front()] = fb;
        cfg.tiles[dims->filterLoop[1]] = 0;
        // Large filters: channel blocks outermost, so one block's filters (up to
        // 3x3x512x32 floats) stay in L2 across all output pixels.
        blockOuterWhenLarge(op, cfg, chans.front(), target);
        return cfg;
      }
      for (unsigned d : dims->outputChannel)
        cfg.tiles[d] = divisorTile(bounds[d], {8, 4, 2});
      for (unsigned d : dims->depth)
        cfg.tiles[d] = divisorTile(bounds[d], {8, 4, 2});
      cfg.tiles[dims->outputImage[1]] =
          divisorOrPartialTile(bounds[dims->outputImage[1]], {8, 7, 4, 2}, 4, 8);
      cfg.tiles[dims->filterLoop[1]] = 0;
      for (unsigned d : dims->inputChannel)
        cfg.tiles[d] = divisorTile(bounds[d], {8, 4, 2});
      return cfg;
    }
  }

  // Everything else: vectorize along the innermost loop.
  cfg.kind = KernelKind::Generic;
  cfg.tiles.assign(n, 1);
  bool innerParallel = op.getIteratorTypesArray().back() == utils::IteratorType::parallel;
  // Transposing (an input read along another loop than the output's innermost): a
  // 16 x 16 tile (AVX2: 8 x 8), read as contiguous rows of that input and transposed in
  // registers. Vectorized along the innermost loop alone, each vector was 16
  // scalar loads 'a row' apart (which, for power-of-two rows, also all fall into
  // the same L1 sets).
  if (op.getNumParallelLoops() == n &&
      op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity()) {
    for (OpOperand *in : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(in);
      auto type = dyn_cast<ShapedType>(in->get().getType());
      if (!type || type.getElementTypeBitWidth() != 32 || !map.isPermutation())
        continue;
      unsigned d = cast<AffineDimExpr>(map.getResults().back()).getPosition();
      std::initializer_list<int64_t> sides = avx512 ? std::initializer_list<int64_t>{16, 8}
                                                    : std::initializer_list<int64_t>{8};
      int64_t inner = divisorTile(bounds[n - 1], sides), across = divisorTile(bounds[d], sides);
      if (d != n - 1 && inner >= 8 && across >= 8) {
        cfg.tiles[n - 1] = inner;
        cfg.tiles[d] = across;
        return cfg;
      }
    }
  }
  // An innermost parallel loop steps two vectors (32 lanes of zmm, 16 of ymm): LLVM
  // splits each op into two adjacent instructions, so two independent chains interleave
  // in source order (x86 schedules in it); one 16-lane chain per step left gelu's erf
  // latency-bound. An innermost reduction keeps this many partial sums across the row
  // and adds them up serially at its end: about sqrt(row) balances the two (16 for
  // softmax rows of 128, 32 for 1024, 64 beyond), at most 4 vectors.
  int64_t row = bounds[n - 1], lanes = target.f32Lanes();
  cfg.tiles[n - 1] = innerParallel ? wholeOrPartialTile(row, 2 * lanes)
                     : row <= 256  ? wholeOrPartialTile(row, 16)
                     : row <= 2048 ? wholeOrPartialTile(row, 32)
                                   : wholeOrPartialTile(row, std::min<int64_t>(64, 4 * lanes));
  return cfg;
}

int64_t workOf(linalg::LinalgOp op) {
  int64_t work = 1;
  for (int64_t r : estimatedLoopRanges(op))
    work = work > (int64_t(1) << 50) / std::max<int64_t>(r, 1) ? int64_t(1) << 50 : work * r;
  return work;
}

/// Whether `v` is computed by a generic kernel with reduction loops, possibly through a
/// few elementwise generic kernels (rstd = 1 / sqrt(var + eps)).
static bool comesFromReduction(Value v, const CpuTarget &target, int depth = 4) {
  auto producer = v.getDefiningOp<linalg::LinalgOp>();
  if (!producer || depth == 0 || !producer.hasPureTensorSemantics())
    return false;
  auto cfg = chooseKernelConfig(producer, target);
  if (!cfg || cfg->kind != KernelKind::Generic)
    return false;
  if (producer.getNumReductionLoops() > 0)
    return true;
  return llvm::any_of(producer.getDpsInputOperands(), [&](OpOperand *in) {
    return comesFromReduction(in->get(), target, depth - 1);
  });
}

std::optional<int64_t> chooseRowBlock(linalg::GenericOp root, const CpuTarget &target) {
  // An all-parallel generic reading, through a map that drops its last dim, a per-row
  // statistic computed by a reduction: out[.., j] = f(x[.., j], stat[..]).
  if (root.getNumLoops() < 2 || root.getNumLoops() != root.getNumParallelLoops() ||
      root->getNumResults() != 1 || root->getParentOfType<scf::ForOp>() ||
      !root.hasPureTensorSemantics())
    return std::nullopt;
  SmallVector<int64_t> bounds = root.getStaticLoopRanges();
  int64_t elements = 1;
  for (int64_t r : bounds)
    elements = ShapedType::isDynamic(r) ? 0 : elements * r;
  if (elements < kMinRowBlockElements)
    return std::nullopt;
  unsigned last = root.getNumLoops() - 1;
  if (!llvm::any_of(root.getDpsInputOperands(), [&](OpOperand *in) {
        AffineMap map = root.getMatchingIndexingMap(in);
        return map.isProjectedPermutation() && !map.isFunctionOfDim(last) &&
               map.getNumResults() > 0 && comesFromReduction(in->get(), target);
      }))
    return std::nullopt;
  // One block of the chain's intermediate takes about 1/16 of L2 (64 KiB of a Zen 4
  // core's 1 MiB): a few of them fit together.
  int64_t blockBytes = target.l2Bytes / 16;
  Type elt = getElementTypeOrSelf(root->getResult(0).getType());
  int64_t rowBytes = bounds.back() * std::max<int64_t>(1, elt.getIntOrFloatBitWidth() / 8);
  int64_t rows = bounds[bounds.size() - 2];
  // Rows per block: the largest divisor of the row count within the block budget.
  for (int64_t b = std::max<int64_t>(1, blockBytes / rowBytes); b > 1; --b)
    if (rows % b == 0)
      return b;
  return 1;
}

std::optional<int64_t> chooseThreadSplit(linalg::LinalgOp op, const KernelConfig &cfg) {
  if (workOf(op) < kMinParallelWork)
    return std::nullopt;
  SmallVector<int64_t> bounds = estimatedLoopRanges(op);
  auto iters = op.getIteratorTypesArray();
  SmallVector<int64_t> order = cfg.interchange;
  if (order.empty())
    order = llvm::to_vector(llvm::seq<int64_t>(0, cfg.tiles.size()));
  // The outermost parallel tile loop with more than one tile.
  for (int64_t d : order)
    if (cfg.tiles[d] && iters[d] == utils::IteratorType::parallel &&
        llvm::divideCeil(bounds[d], cfg.tiles[d]) > 1)
      return d;
  return std::nullopt;
}

bool computesAsEpilogue(linalg::LinalgOp consumer, linalg::LinalgOp producer,
                        const KernelConfig &producerCfg) {
  auto generic = dyn_cast<linalg::GenericOp>(consumer.getOperation());
  if (!generic || generic.getNumLoops() != generic.getNumParallelLoops() ||
      generic->getNumResults() != 1 || producerCfg.kind == KernelKind::Generic ||
      !producer->hasOneUse() || producer->getNumResults() != 1 ||
      !producer.getIndexingMapMatchingResult(producer->getResult(0)).isProjectedPermutation())
    return false;
  return llvm::any_of(generic.getDpsInputOperands(), [&](OpOperand *in) {
    return in->get().getDefiningOp() == producer.getOperation() &&
           generic.getMatchingIndexingMap(in).isIdentity();
  });
}

bool isInnerReduction(Operation *op) {
  // A one-result generic that partial reductions can tile, across its innermost loop
  // (dlc::codegen::allowsPartialSums, which the kernel_config verifier checks too).
  auto generic = dyn_cast<linalg::GenericOp>(op);
  return generic && generic->getNumResults() == 1 && generic.getNumReductionLoops() > 0 &&
         isa<PartialReductionOpInterface>(op) && dlc::codegen::allowsPartialSums(op);
}

std::optional<ReassociationIndices> collapsibleReductionLoops(linalg::GenericOp op) {
  if (op->getNumResults() != 1 || op.getNumReductionLoops() < 2)
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned n = iterators.size();
  ReassociationIndices group;
  for (unsigned i = n - op.getNumReductionLoops(); i < n; ++i) {
    if (iterators[i] != utils::IteratorType::reduction)
      return std::nullopt;
    group.push_back(i);
  }
  // (A constant 0 in a map, as keepdims outputs have, is no dim sequence to collapse.)
  if (!llvm::all_of(op.getStaticLoopRanges(),
                    [](int64_t b) { return !ShapedType::isDynamic(b); }) ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isProjectedPermutation(false); }) ||
      !linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), {group}))
    return std::nullopt;
  return group;
}

bool getsPartialSums(linalg::GenericOp op) {
  if (op->getNumResults() != 1 || !isa<PartialReductionOpInterface>(op.getOperation()))
    return false;
  if (op.getNumReductionLoops() == 1)
    return op.getIteratorTypesArray().back() == utils::IteratorType::reduction;
  return collapsibleReductionLoops(op).has_value();
}

} // namespace dlc::x86
