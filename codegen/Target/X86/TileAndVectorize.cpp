// dlc-cpu-tile-vectorize: applies each op's #dlc.kernel_config, vectorizes, keeps accumulators
// in registers.
#include "codegen/Target/X86/KernelConfig.h"
#include "codegen/Target/X86/Passes.h"
#include "dialects/Graph/IR/NodeName.h"
#include "dialects/Graph/IR/Regions.h"
#include "codegen/Transforms/RewriteConfig.h"
#include "codegen/Target/X86/RowBlocks.h"
#include "codegen/Target/X86/WholeTileLoops.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Dialect/X86Vector/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace dlc::x86 {
#define GEN_PASS_DEF_TILEANDVECTORIZE
#include "codegen/Target/X86/Passes.h.inc"
} // namespace dlc::x86

using namespace mlir;
using namespace dlc::x86;

namespace {

SmallVector<OpFoldResult> asOFR(Builder &b, ArrayRef<int64_t> v) {
  return llvm::map_to_vector(v, [&](int64_t x) -> OpFoldResult { return b.getIndexAttr(x); });
}

/// A read of a tensor that a splat constant was just written over entirely is
/// that splat. A tile's accumulator starts as its vectorized zero fill, read back
/// as the reduction loop's initial value; upstream's write/read forwarding needs
/// identical vector types, and left alone the zeros are stored to the output and
/// reloaded (a store LLVM cannot prove dead: 16 extra stores per tile of a 1x1
/// convolution with 16 input channels).
struct ReadOfSplatWrite : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    auto write = read.getBase().getDefiningOp<vector::TransferWriteOp>();
    if (!write || write.getMask() || read.getMask() || read.hasOutOfBoundsDim())
      return failure();
    auto tensor = dyn_cast<RankedTensorType>(write.getBase().getType());
    if (!tensor || write.getVectorType().getShape() != tensor.getShape() ||
        !write.getPermutationMap().isIdentity() ||
        !llvm::all_of(write.getIndices(), [](Value i) { return matchPattern(i, m_Zero()); }))
      return failure();
    SplatElementsAttr splat;
    if (!matchPattern(write.getValueToStore(), m_Constant(&splat)))
      return failure();
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        read, SplatElementsAttr::get(read.getVectorType(), splat.getSplatValue<Attribute>()));
    return success();
  }
};

/// Tiles `op`, fusing into the tile loop the producers of its init (fill, bias
/// broadcast) and `fuseProducer` (a contraction whose epilogue `op` is). Threads split
/// the tile loop of dim `split` (none: one thread; `small` says why, in the note).
/// Returns the tiled op, then the tiled producers.
FailureOr<SmallVector<Operation *>> tileAndFuseInit(RewriterBase &rewriter, TilingInterface op,
                                                    ArrayRef<int64_t> tiles,
                                                    ArrayRef<int64_t> interchange,
                                                    std::optional<int64_t> split, bool small,
                                                    Operation *fuseProducer,
                                                    std::string *note = nullptr) {
  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(asOFR(rewriter, tiles));
  if (!interchange.empty())
    tiling.setInterchange(interchange);
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  options.setFusionControlFn(
      [fuseProducer](tensor::ExtractSliceOp, OpResult producer, bool isDestination)
          -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (!isa<linalg::LinalgOp>(producer.getOwner()))
          return std::nullopt;
        // The init of the tile's accumulator, of the tiled op or of `fuseProducer`.
        bool initOfFused = false;
        if (auto dps = dyn_cast_or_null<DestinationStyleOpInterface>(fuseProducer))
          initOfFused = llvm::is_contained(dps.getDpsInits(), Value(producer));
        if (isDestination || initOfFused || producer.getOwner() == fuseProducer)
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        return std::nullopt;
      });
  auto result = scf::tileConsumerAndFuseProducersUsingSCF(rewriter, op, options);
  if (failed(result))
    return failure();
  // Tile loops of parallel dims run independent iterations: threads split the one
  // the kernel config names (dlc-outline-parallel-loops).
  SmallVector<int64_t> tiledDims; // the dim of each tile loop, outermost first
  for (int64_t d : interchange.empty() ? llvm::to_vector(llvm::seq<int64_t>(0, tiles.size()))
                                       : llvm::to_vector(interchange))
    if (tiles[d])
      tiledDims.push_back(d);
  auto position = split ? llvm::find(tiledDims, *split) : tiledDims.end();
  if (position != tiledDims.end() && size_t(position - tiledDims.begin()) < result->loops.size()) {
    size_t at = position - tiledDims.begin();
    auto loop = dyn_cast<scf::ForOp>(result->loops[at].getOperation());
    std::optional<APInt> trips = loop ? loop.getStaticTripCount() : std::nullopt;
    // A dynamic loop (dlc compile --dims) may run once (a batch of 1): it is merged with
    // the tile loops of parallel dims stepped by one nested right inside it (a sequence),
    // so that threads split their product.
    if (loop && !trips) {
      SmallVector<scf::ForOp> band = {loop};
      for (size_t i = at + 1; i < result->loops.size() && i < tiledDims.size(); ++i) {
        auto inner = dyn_cast<scf::ForOp>(result->loops[i].getOperation());
        auto iters = cast<linalg::LinalgOp>(op.getOperation()).getIteratorTypesArray();
        if (!inner || inner->getParentOp() != band.back().getOperation() ||
            band.back().getBody()->getOperations().size() != 2 ||
            !matchPattern(inner.getStep(), m_One()) ||
            !matchPattern(band.back().getStep(), m_One()) ||
            iters[tiledDims[i]] != utils::IteratorType::parallel)
          break;
        band.push_back(inner);
      }
      if (band.size() > 1 && succeeded(coalesceLoops(rewriter, band)))
        loop = band.front();
    }
    if (trips || loop) {
      loop->setAttr(kParallelLoopAttr, rewriter.getUnitAttr());
      if (note)
        *note = "threads split loop " + std::to_string(*split) + " (" +
                (trips ? std::to_string(trips->getSExtValue()) : std::string("dynamic")) +
                " tiles)";
    }
  }
  if (note && note->empty())
    *note = isInRowBlock(op) ? "in a row block" : small ? "one thread (small)" : "one thread";
  for (OpResult r : op->getResults())
    if (Value v = result->replacements.lookup(r))
      rewriter.replaceAllUsesWith(r, v);
  // Dynamic dims: sizes that tiling read from the op, the fused producer and their inits
  // are their inits' sizes, so that nothing but sizes keeps them alive.
  SmallVector<Operation *> sized = {op.getOperation()};
  if (fuseProducer)
    sized.push_back(fuseProducer);
  for (size_t i = 0; i < sized.size(); ++i) {
    auto dps = dyn_cast<DestinationStyleOpInterface>(sized[i]);
    if (!dps)
      continue;
    for (OpResult r : sized[i]->getResults()) {
      Value init = dps.getDpsInits()[r.getResultNumber()];
      for (OpOperand &use : llvm::make_early_inc_range(r.getUses()))
        if (::mlir::isa<tensor::DimOp>(use.getOwner()))
          rewriter.modifyOpInPlace(use.getOwner(), [&] { use.set(init); });
      if (Operation *def = init.getDefiningOp(); def && def->getBlock() == sized[i]->getBlock() &&
                                                 !llvm::is_contained(sized, def))
        sized.push_back(def);
    }
  }
  // Slices of fused producers that fusion replaced are left behind dead; erase them,
  // then the tiled ops, so the producers fused into the tile are dead and not roots of
  // their own.
  if (!result->loops.empty()) {
    SmallVector<Operation *> inner;
    result->loops.front()->walk([&](tensor::ExtractSliceOp slice) { inner.push_back(slice); });
    for (Operation *dead : llvm::reverse(inner))
      if (dead->use_empty())
        rewriter.eraseOp(dead);
  }
  if (op->use_empty())
    rewriter.eraseOp(op);
  if (fuseProducer && fuseProducer->use_empty())
    rewriter.eraseOp(fuseProducer);
  return SmallVector<Operation *>(result->tiledAndFusedOps.begin(),
                                  result->tiledAndFusedOps.end());
}

FailureOr<Operation *> tileOnly(RewriterBase &rewriter, Operation *op, ArrayRef<int64_t> tiles) {
  auto tilingOp = dyn_cast<TilingInterface>(op);
  if (!tilingOp)
    return failure();
  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(asOFR(rewriter, tiles));
  auto result = scf::tileUsingSCF(rewriter, tilingOp, tiling);
  if (failed(result))
    return failure();
  rewriter.replaceOp(op, result->replacements);
  return result->tiledOps.front();
}

void tryVectorize(RewriterBase &rewriter, Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics())
    return;
  // i1 tensors are stored a byte per element, but vector<Nxi1> loads are bit
  // packed: keep ops touching booleans scalar.
  for (Value v : op->getOperands())
    if (auto t = dyn_cast<ShapedType>(v.getType()); t && t.getElementType().isInteger(1))
      return;
  // Only small static tiles: a whole untiled op would become one huge vector.
  SmallVector<int64_t> bounds = linalgOp.getStaticLoopRanges();
  int64_t volume = 1;
  for (int64_t b : bounds)
    volume = ShapedType::isDynamic(b) ? INT64_MAX / 2 : volume * b;
  if (volume > kMaxVectorTileElements)
    return;
  rewriter.setInsertionPoint(op);
  auto result = linalg::vectorize(rewriter, op);
  if (succeeded(result))
    rewriter.replaceOp(op, result->replacements);
}

/// The contraction or convolution whose kernel computes `op` as its epilogue (its
/// config says so, and `op` is its only use): `op` is then computed on each register
/// tile before it is stored (bias, activation, residual add).
std::optional<std::pair<linalg::LinalgOp, KernelConfig>> epilogueProducer(linalg::LinalgOp op) {
  for (Value in : op.getDpsInputs()) {
    auto producer = in.getDefiningOp<linalg::LinalgOp>();
    auto attr = producer ? dlc::codegen::getKernelConfig(producer) : dlc::codegen::KernelConfigAttr();
    if (!attr || !attr.getEpilogue())
      continue;
    // (Checked again: dlc-opt's input may carry any verified config.)
    KernelConfig cfg = KernelConfig::fromAttr(attr);
    if (computesAsEpilogue(op, producer, cfg))
      return std::make_pair(producer, cfg);
  }
  return std::nullopt;
}

/// A tensor with undefined contents: tensor.empty, or a slice of one.
bool isUninitialized(Value v) {
  while (auto slice = v.getDefiningOp<tensor::ExtractSliceOp>())
    v = slice.getSource();
  return v.getDefiningOp<tensor::EmptyOp>() != nullptr;
}

/// Points the accumulator of a fused contraction tile at its epilogue's destination
/// tile, and the epilogue at the contraction's result: the tile is computed, finished
/// and stored in place in the output, with no scratch buffer per tile.
void accumulateInEpilogueTile(linalg::LinalgOp epilogueTile, linalg::LinalgOp kernelTile) {
  OpOperand &dest = epilogueTile.getDpsInitsMutable()[0];
  // The start of the accumulator chain: the init of the fused init op (bias, fill).
  OpOperand *start = &kernelTile.getDpsInitsMutable()[0];
  while (auto producer = start->get().getDefiningOp<linalg::LinalgOp>()) {
    if (producer.getNumDpsInits() != 1 || !producer->hasOneUse())
      break;
    start = &producer.getDpsInitsMutable()[0];
  }
  // Only a value whose contents nobody reads may be replaced by the destination: the
  // init of an op that overwrites it (fill, broadcast), or an uninitialized tensor. A
  // contraction accumulating onto an unfused bias reads it (grouped convolutions).
  Operation *scratch = start->get().getDefiningOp();
  if (!scratch || !isa<tensor::EmptyOp, tensor::ExtractSliceOp>(scratch) ||
      (cast<linalg::LinalgOp>(start->getOwner()).payloadUsesValueFromOperand(start) &&
       !isUninitialized(start->get())) ||
      start->get().getType() != dest.get().getType() ||
      kernelTile->getResult(0).getType() != dest.get().getType())
    return;
  // The destination slice is usually created after the fused ops: move it up when its
  // operands allow.
  Operation *user = start->getOwner(), *destDef = dest.get().getDefiningOp();
  if (destDef && destDef->getBlock() == user->getBlock() && !destDef->isBeforeInBlock(user)) {
    for (Value v : destDef->getOperands()) {
      Operation *def = v.getDefiningOp();
      if (def && def->getBlock() == user->getBlock() && !def->isBeforeInBlock(user))
        return;
    }
    destDef->moveBefore(user);
  }
  start->set(dest.get());
  dest.set(kernelTile->getResult(0));
}

/// Roles of a tile's ops while its loops are peeled (the copies keep them).
constexpr llvm::StringLiteral kTileRole = "dlc.tile_role";
constexpr llvm::StringLiteral kTileLoop = "dlc.tile_loop";

/// Peels every loop of the tile nest `outer` whose step does not divide its static
/// range into a loop of whole tiles and one last partial tile, recursively, then
/// folds the nests' bounds so every tile, the partial ones included, has static
/// sizes (and vectorizes). Returns the top-level ops the nest became, or nothing
/// (and no change) when no loop needed peeling.
SmallVector<Operation *> peelPartialTiles(RewriterBase &rewriter, scf::ForOp outer) {
  Block *block = outer->getBlock();
  Operation *before = outer->getPrevNode(), *after = outer->getNextNode();
  SmallVector<scf::ForOp> work = {outer}, nests = {outer};
  bool peeled = false;
  while (!work.empty()) {
    scf::ForOp loop = work.pop_back_val();
    scf::ForOp partial;
    auto lb = getConstantIntValue(loop.getLowerBound());
    auto ub = getConstantIntValue(loop.getUpperBound());
    auto step = getConstantIntValue(loop.getStep());
    // Static ranges that the step does not divide, and dynamic ones (dlc compile --dims),
    // whose last tile is partial unless the size happens to divide.
    if (lb && step && *step > 1 && (!ub || (*ub - *lb) % *step != 0) &&
        succeeded(scf::peelForLoopAndSimplifyBounds(rewriter, loop, partial))) {
      peeled = true;
      if (loop == outer)
        nests.push_back(partial);
    }
    for (scf::ForOp l : {loop, partial})
      if (l)
        for (auto inner : l.getBody()->getOps<scf::ForOp>())
          if (inner->hasAttr(kTileLoop))
            work.push_back(inner);
  }
  if (!peeled)
    return {};
  // One-iteration loops inline, their bounds fold into constants, and slices and
  // the ops reading them take static shapes.
  SmallVector<Operation *> ops;
  for (scf::ForOp nest : nests)
    nest->walk([&](Operation *o) { ops.push_back(o); });
  MLIRContext *ctx = rewriter.getContext();
  RewritePatternSet patterns(ctx);
  for (Dialect *d : ctx->getLoadedDialects())
    d->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName name : ctx->getRegisteredOperations())
    name.getCanonicalizationPatterns(patterns, ctx);
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  (void)applyOpPatternsGreedily(ops, std::move(patterns), config);
  // The whole and partial tiles (loops, or inlined ops) lie between the neighbours.
  SmallVector<Operation *> range;
  for (Operation *o = before ? before->getNextNode() : &block->front(); o && o != after;
       o = o->getNextNode())
    range.push_back(o);
  return range;
}

/// Peels the tile nest `outer` (peelPartialTiles) and returns the copies of the ops
/// tagged "root" in it, untagged, or nothing (and no change) when no loop needed
/// peeling.
SmallVector<Operation *> peeledCopies(RewriterBase &rewriter, scf::ForOp outer) {
  SmallVector<Operation *> roots;
  for (Operation *o : peelPartialTiles(rewriter, outer))
    o->walk([&](Operation *r) {
      if (auto role = r->getAttrOfType<StringAttr>(kTileRole); role && role == "root")
        roots.push_back(r);
    });
  for (Operation *r : roots)
    r->removeAttr(kTileRole);
  return roots;
}

/// `op` with its unit dims (tiles of 1) dropped, through extract/insert slices.
void foldUnitDims(Operation *op) {
  RewritePatternSet patterns(op->getContext());
  linalg::ControlDropUnitDims options;
  options.rankReductionStrategy =
      linalg::ControlDropUnitDims::RankReductionStrategy::ExtractInsertSlice;
  linalg::populateFoldUnitExtentDimsPatterns(patterns, options);
  (void)applyOpPatternsGreedily(ArrayRef<Operation *>{op}, std::move(patterns));
}

/// Finishes one tile of a root: `root` is the tiled op (with an epilogue, the fused
/// op that has reduction loops), `epilogueTile` the tiled epilogue (or null), `fused`
/// the producers fused into the tile. Reduction loops are tiled inside (never fused: a
/// fill inside a reduction loop would reset the accumulator), then everything is
/// vectorized.
void finishTile(RewriterBase &rewriter, Operation *root, Operation *epilogueTile,
                SmallVector<Operation *> toVectorize, const KernelConfig &cfg,
                ArrayRef<int64_t> reductionTiles, bool hasReductionTiles) {
  // The last, partial tile of a dynamic loop (dlc compile --dims) has a dynamic size
  // there: each of its ops steps that dim by one, so every tile is static again.
  auto stepDynamicByOne = [&](Operation *&op) {
    auto l = dyn_cast_or_null<linalg::LinalgOp>(op);
    if (!l)
      return;
    SmallVector<int64_t> ranges = l.getStaticLoopRanges(), tiles;
    bool any = false;
    for (auto [r, it] : llvm::zip(ranges, l.getIteratorTypesArray())) {
      bool step = ShapedType::isDynamic(r) && it == utils::IteratorType::parallel;
      tiles.push_back(step ? 1 : 0);
      any |= step;
    }
    if (!any)
      return;
    rewriter.setInsertionPoint(op);
    if (auto tiled = tileOnly(rewriter, op, tiles); succeeded(tiled))
      op = *tiled;
  };
  stepDynamicByOne(root);
  stepDynamicByOne(epilogueTile);
  for (Operation *&f : toVectorize)
    stepDynamicByOne(f);
  if (epilogueTile) {
    accumulateInEpilogueTile(cast<linalg::LinalgOp>(epilogueTile), cast<linalg::LinalgOp>(root));
    toVectorize.insert(toVectorize.begin(), epilogueTile);
  }
  if (hasReductionTiles && cfg.partialSums && isInnerReduction(root)) {
    // Partial sums: a vector of accumulators carried across the reduced dim, one
    // horizontal reduction per row at the end (instead of one per tile).
    rewriter.setInsertionPoint(root);
    auto partial = scf::tileReductionUsingScf(
        rewriter, cast<PartialReductionOpInterface>(root), asOFR(rewriter, reductionTiles));
    if (failed(partial))
      return;
    rewriter.replaceOp(root, partial->replacements);
    for (Value init : partial->initialValues)
      if (Operation *def = init.getDefiningOp())
        toVectorize.push_back(def);
    llvm::append_range(toVectorize, partial->mergeOps);
    root = partial->tiledOps.back();
    // A row that the partial sums do not divide: its last partial step is peeled.
    if (auto loop = dyn_cast<scf::ForOp>(root->getParentOp())) {
      root->setAttr(kTileRole, rewriter.getStringAttr("root"));
      SmallVector<Operation *> copies = peeledCopies(rewriter, loop);
      if (!copies.empty()) {
        llvm::append_range(toVectorize, copies);
        root = nullptr;
      } else {
        root->removeAttr(kTileRole);
      }
    }
  } else if (hasReductionTiles) {
    rewriter.setInsertionPoint(root);
    auto inner = tileOnly(rewriter, root, reductionTiles);
    if (failed(inner))
      return;
    root = *inner;
  }
  if (cfg.kind == KernelKind::ImplicitGemm) {
    // kh, kw tiles of 1 fold away: (oh + kh, ow + kw, c) becomes (ow, c), a matmul
    // tile (ow, f0, c) whose c loop is then stepped by one.
    Operation *parent = root->getParentOp();
    foldUnitDims(root);
    linalg::LinalgOp folded;
    parent->walk([&](linalg::LinalgOp l) {
      if (l.getNumReductionLoops() > 0)
        folded = l;
    });
    if (!folded)
      return;
    // Integer channel groups stay whole (the tile is a dot product's).
    if (isa<IntegerType>(getElementTypeOrSelf(folded.getDpsInputs()[0].getType()))) {
      root = folded;
    } else {
      SmallVector<int64_t> cTiles;
      for (utils::IteratorType it : folded.getIteratorTypesArray())
        cTiles.push_back(it == utils::IteratorType::reduction ? kImplicitGemmChannelStep : 0);
      rewriter.setInsertionPoint(folded);
      auto inner = tileOnly(rewriter, folded, cTiles);
      if (failed(inner))
        return;
      root = *inner;
    }
  }
  if (!root) { // peeled partial sums
    for (Operation *t : toVectorize)
      tryVectorize(rewriter, t);
    return;
  }
  if (isDequantContraction(cast<linalg::LinalgOp>(root))) {
    // Weight-only products: with kb and ki stepped by one the unit dims fold away and
    // the tile is elementwise (rows x n0: acc + a * (code * scale + offset)), which
    // vectorizes to one conversion of the codes and an FMA per row.
    Operation *parent = root->getParentOp();
    foldUnitDims(root);
    parent->walk([&](linalg::LinalgOp l) { toVectorize.push_back(l); });
    for (Operation *t : toVectorize)
      tryVectorize(rewriter, t);
    return;
  }
  toVectorize.push_back(root);
  if (cfg.kind == KernelKind::Convolution) {
    // Unit output-row / filter-row tiles let 2-D convs and pools decompose to 1-D.
    Operation *conv = toVectorize.back();
    Operation *parent = conv->getParentOp();
    RewritePatternSet patterns(rewriter.getContext());
    linalg::populateDecomposeConvolutionPatterns(patterns);
    (void)applyOpPatternsGreedily(ArrayRef<Operation *>{conv}, std::move(patterns));
    toVectorize.pop_back();
    parent->walk([&](linalg::LinalgOp l) { toVectorize.push_back(l); });
  }
  for (Operation *t : toVectorize)
    tryVectorize(rewriter, t);
}

/// Applies the configuration of one root op: parallel loops tiled with the
/// init producers fused in, a last partial tile of each peeled off (every tile
/// keeps static sizes), then each tile finished (finishTile). With an `epilogue`
/// (see epilogueProducer) the epilogue is tiled the same way and `op` fused into
/// its tile.
void transformRoot(RewriterBase &rewriter, linalg::LinalgOp op, const KernelConfig &cfg,
                   std::string *note, linalg::LinalgOp epilogue = {}) {
  auto iters = op.getIteratorTypesArray();
  SmallVector<int64_t> parallelTiles(cfg.tiles), reductionTiles(cfg.tiles);
  bool hasReductionTiles = false;
  for (size_t i = 0; i < iters.size(); ++i) {
    if (iters[i] == utils::IteratorType::reduction) {
      parallelTiles[i] = 0;
      hasReductionTiles |= cfg.tiles[i] != 0;
    } else {
      reductionTiles[i] = 0;
    }
  }
  // The epilogue's loops are the op's result dims: same tiles, same loop order.
  linalg::LinalgOp tileOp = epilogue ? epilogue : op;
  SmallVector<int64_t> tiles(parallelTiles), order(cfg.interchange);
  std::optional<int64_t> split = cfg.split;
  if (epilogue) {
    auto resultDims = op.getIndexingMapMatchingResult(op->getResult(0)).getResults();
    auto dimOf = [&](unsigned i) { return cast<AffineDimExpr>(resultDims[i]).getPosition(); };
    tiles.clear();
    order.clear();
    for (unsigned i = 0; i < resultDims.size(); ++i)
      tiles.push_back(parallelTiles[dimOf(i)]);
    for (int64_t d : cfg.interchange)
      for (unsigned i = 0; i < resultDims.size(); ++i)
        if (dimOf(i) == d)
          order.push_back(i);
    split.reset();
    for (unsigned i = 0; i < resultDims.size(); ++i)
      if (cfg.split && dimOf(i) == *cfg.split)
        split = i;
  }
  rewriter.setInsertionPoint(tileOp);
  Block *home = tileOp->getBlock();
  OperationName name = op->getName();
  auto tiled = tileAndFuseInit(rewriter, cast<TilingInterface>(tileOp.getOperation()), tiles,
                               order, split, workOf(op) < kMinParallelWork,
                               epilogue ? op.getOperation() : nullptr, note);
  if (failed(tiled))
    return;
  // The tiled consumer comes first, then the fused producers; the tiled `op` is
  // kept for last here (with an epilogue: the fused op with reduction loops).
  SmallVector<Operation *> fused;
  Operation *root = nullptr;
  for (Operation *t : *tiled) {
    bool isRoot = epilogue ? !root && t != tiled->front() && t->getName() == name &&
                                 cast<linalg::LinalgOp>(t).getNumReductionLoops() > 0
                           : t == tiled->front();
    if (isRoot)
      root = t;
    else if (!epilogue || t != tiled->front())
      fused.push_back(t);
  }
  if (!root || root->getName() != name)
    return;
  Operation *epilogueTile = epilogue ? tiled->front() : nullptr;
  // The tile loops, outermost (in `home`) first.
  SmallVector<scf::ForOp> loops;
  for (Operation *p = root->getParentOp(); p; p = p->getParentOp()) {
    if (auto loop = dyn_cast<scf::ForOp>(p))
      loops.insert(loops.begin(), loop);
    if (p->getBlock() == home)
      break;
  }
  if (loops.empty() || loops.front()->getBlock() != home) {
    finishTile(rewriter, root, epilogueTile, fused, cfg, reductionTiles, hasReductionTiles);
    return;
  }
  // Tag the tile's ops and loops, so that their copies in peeled tiles are found.
  MLIRContext *ctx = rewriter.getContext();
  auto tag = [&](Operation *o, StringRef role) { o->setAttr(kTileRole, StringAttr::get(ctx, role)); };
  tag(root, "root");
  if (epilogueTile)
    tag(epilogueTile, "epilogue");
  for (Operation *f : fused)
    tag(f, "fused");
  for (scf::ForOp l : loops)
    l->setAttr(kTileLoop, UnitAttr::get(ctx));
  auto untag = [](Operation *o) {
    o->removeAttr(kTileRole);
    o->removeAttr(kTileLoop);
  };
  SmallVector<Operation *> range = peelPartialTiles(rewriter, loops.front());
  if (range.empty()) { // every tile whole: nothing was copied
    untag(root);
    for (Operation *f : fused)
      untag(f);
    if (epilogueTile)
      untag(epilogueTile);
    for (scf::ForOp l : loops)
      untag(l);
    finishTile(rewriter, root, epilogueTile, fused, cfg, reductionTiles, hasReductionTiles);
    return;
  }
  struct Tile {
    Operation *root = nullptr, *epilogue = nullptr;
    SmallVector<Operation *> fused;
  };
  SmallVector<Tile> tileCopies;
  for (Operation *o : range)
    o->walk([&](Operation *r) {
      auto role = r->getAttrOfType<StringAttr>(kTileRole);
      if (!role || role != "root")
        return;
      // Its epilogue reads it; its fused producers feed it or the epilogue. (Whole
      // and partial tiles may share a block once one-iteration loops are inlined.)
      auto hasRole = [](Operation *o, StringRef want) {
        auto role = o ? o->getAttrOfType<StringAttr>(kTileRole) : StringAttr();
        return role && role == want;
      };
      Tile t{r, nullptr, {}};
      for (Operation *user : r->getUsers())
        if (hasRole(user, "epilogue"))
          t.epilogue = user;
      SmallVector<Operation *> frontier = {r};
      if (t.epilogue)
        frontier.push_back(t.epilogue);
      while (!frontier.empty())
        for (Value v : frontier.pop_back_val()->getOperands())
          if (Operation *def = v.getDefiningOp();
              hasRole(def, "fused") && !llvm::is_contained(t.fused, def)) {
            t.fused.push_back(def);
            frontier.push_back(def);
          }
      tileCopies.push_back(t);
    });
  for (Operation *o : range)
    o->walk(untag);
  for (Tile &t : tileCopies)
    finishTile(rewriter, t.root, t.epilogue, t.fused, cfg, reductionTiles, hasReductionTiles);
}

/// inject-fault=wrong-epilogue: every float the epilogue yields gets 1 added (a fused
/// epilogue computing the wrong thing, which dlc verify must pinpoint).
void corruptResults(linalg::LinalgOp epilogue) {
  Block *body = epilogue.getBlock();
  Operation *yield = body->getTerminator();
  OpBuilder b(yield);
  for (OpOperand &v : yield->getOpOperands())
    if (auto ft = dyn_cast<FloatType>(v.get().getType())) {
      Value one = arith::ConstantOp::create(b, yield->getLoc(), FloatAttr::get(ft, 1.0));
      v.set(arith::AddFOp::create(b, yield->getLoc(), v.get(), one));
    }
}

/// One --dump-config line: "config: <node> <op>: <kind>, loops [..], tiles [..]".
std::string describe(linalg::LinalgOp op, const KernelConfig &cfg) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "config: ";
  if (StringRef node = dlc::graph::nodeName(op.getLoc()); !node.empty())
    os << "'" << node << "' ";
  os << op->getName().getStringRef() << ": "
     << (cfg.kind == KernelKind::Contraction    ? "contraction"
         : cfg.kind == KernelKind::Convolution  ? "convolution"
         : cfg.kind == KernelKind::ImplicitGemm ? "implicit GEMM"
                                                : "generic");
  // Integer products in K groups: which dot product (DotProducts.cpp) runs the tile.
  if (isDotGroupContraction(op) || isDotGroupConvolution(op)) {
    Type a = getElementTypeOrSelf(op.getDpsInputs()[0].getType());
    os << (a.isInteger(8)    ? " (int8: u8 x s8 in 4-byte groups, vpdpbusd)"
           : a.isInteger(16) ? " (int8: i16 pairs, vpmaddwd)"
                             : " (bf16 pairs, vdpbf16ps)");
  }
  if (isDequantContraction(op))
    os << " (weight-only: integer codes dequantized in the kernel)";
  os << ", loops [";
  llvm::interleaveComma(op.getStaticLoopRanges(), os, [&](int64_t r) {
    if (ShapedType::isDynamic(r))
      os << "?";
    else
      os << r;
  });
  os << "], tiles [";
  llvm::interleaveComma(cfg.tiles, os);
  os << "]";
  if (!cfg.interchange.empty()) {
    os << ", loop order [";
    llvm::interleaveComma(cfg.interchange, os);
    os << "]";
  }
  return s;
}

struct TileAndVectorizePass : dlc::x86::impl::TileAndVectorizeBase<TileAndVectorizePass> {
  using TileAndVectorizeBase::TileAndVectorizeBase;
  /// The target's ISA picks the vector lowerings; resolved once, not per function.
  Isa isa = Isa::AVX512;
  bool vnni = false, bf16 = false;
  LogicalResult initialize(MLIRContext *) override {
    CpuTarget target = CpuTarget::resolve(cpu);
    isa = target.isa;
    vnni = target.vnni;
    bf16 = target.bf16;
    return success();
  }
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    // Roots: every op dlc-cpu-select-kernels chose a kernel for (the fills and broadcasts
    // that fuse into a consumer's tile are skipped below).
    SmallVector<std::pair<linalg::LinalgOp, KernelConfig>> roots;
    IRRewriter rewriter(ctx);
    func.walk([&](linalg::LinalgOp op) {
      if (auto attr = dlc::codegen::getKernelConfig(op);
          attr && isRootPosition(op) && op.hasPureTensorSemantics())
        roots.push_back({op, KernelConfig::fromAttr(attr)});
    });
    SmallVector<std::string> lines; // --dump-config
    SmallVector<Attribute> records; // record-config
    // Consumers first, so their init producers are still there to fuse.
    llvm::SmallPtrSet<Operation *, 8> fusedAway; // erased as another root's producer
    for (auto &[op, cfg] : llvm::reverse(roots)) {
      if (fusedAway.contains(op))
        continue;
      if (op->use_empty())
        continue;
      if (!isRootPosition(op))
        continue; // already fused into another op's tile
      std::string note, line;
      // An elementwise op whose input is a contraction's only use becomes its epilogue.
      linalg::LinalgOp kernel = op, epilogue;
      KernelConfig kernelCfg = cfg;
      if (auto producer = epilogueProducer(op); producer && !fusedAway.contains(producer->first)) {
        std::tie(kernel, kernelCfg) = *producer;
        epilogue = op;
        fusedAway.insert(kernel);
      }
      bool describeIt = dumpConfig || recordConfig;
      std::string region; // the composite region (attention, ...) the kernel is part of
      if (auto r = dlc::graph::regionOf(kernel.getLoc()))
        region = (", in " + r->kind + " '" + dlc::graph::nodeName(r->anchor) + "'").str();
      if (describeIt)
        line = describe(kernel, kernelCfg) + (epilogue ? ", epilogue fused" : "");
      if (epilogue && injectFault == "wrong-epilogue")
        corruptResults(epilogue);
      // (Named before the transformation, which replaces both ops.)
      StringAttr kernelNode = rewriter.getStringAttr(dlc::graph::nodeName(kernel.getLoc()));
      StringAttr epilogueNode =
          rewriter.getStringAttr(epilogue ? dlc::graph::nodeName(epilogue.getLoc()) : StringRef());
      transformRoot(rewriter, kernel, kernelCfg, describeIt ? &note : nullptr, epilogue);
      if (describeIt) {
        lines.push_back(line + ", " + note + region);
        records.push_back(DictionaryAttr::get(
            ctx, {rewriter.getNamedAttr("node", kernelNode),
                  rewriter.getNamedAttr("epilogue", epilogueNode),
                  rewriter.getNamedAttr("config", rewriter.getStringAttr(lines.back()))}));
      }
    }
    coalesceWholeTiles(func, rewriter);
    // Program order (roots were transformed consumers first).
    if (dumpConfig)
      for (const std::string &l : llvm::reverse(lines))
        llvm::errs() << l << "\n";
    if (recordConfig) {
      std::reverse(records.begin(), records.end());
      func->setAttr("dlc.kernels", ArrayAttr::get(ctx, records));
    }

    // The decisions are applied: the clones tiling made carry them no further.
    func.walk([](Operation *op) { op->removeAttr(dlc::codegen::kKernelConfigAttr); });

    // Clean up: contractions from reductions, fold slices into transfers.
    {
      RewritePatternSet patterns(ctx);
      vector::populateVectorReductionToContractPatterns(patterns);
      vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
      vector::populateSinkVectorOpsPatterns(patterns);
      tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
      scf::ForOp::getCanonicalizationPatterns(patterns, ctx);
      vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
      vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
      patterns.add<ReadOfSplatWrite>(ctx);
      (void)applyPatternsGreedily(func, std::move(patterns), dlc::codegen::patternPassConfig());
    }
    // Accumulator read/write pairs become loop-carried vectors (registers).
    func.walk([&](scf::ForOp loop) { (void)hoistLoopInvariantSubsets(rewriter, loop); });
    {
      RewritePatternSet patterns(ctx);
      tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
      // Integer contractions in K groups: one vpdpbusd (VNNI) per row and 16 columns, or
      // one vpmaddwd per row and 8 columns; bf16 pairs: one vdpbf16ps per row and 16
      // columns (AVX512-BF16); ahead of the generic lowering to outer products.
      populateDotProductPatterns(patterns, vnni, bf16, /*benefit=*/10);
      vector::populateVectorContractLoweringPatterns(patterns,
                                                     vector::VectorContractLowering::OuterProduct);
      vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
      vector::populateVectorMultiReductionLoweringPatterns(
          patterns, vector::VectorMultiReductionLowering::InnerParallel);
      vector::populateVectorOuterProductLoweringPatterns(patterns);
      vector::populateVectorTransposeLoweringPatterns(patterns,
                                                      vector::VectorTransposeLowering::Shuffle16x16);
      // AVX2's transposes are 8 x 8 (KernelConfig): unpack/shuffle/blend in ymm registers.
      if (isa == Isa::AVX2)
        x86vector::avx2::populateSpecializedTransposeLoweringPatterns(
            patterns, x86vector::avx2::LoweringOptions().setTransposeOptions(
                          x86vector::avx2::TransposeLoweringOptions().lower8x8xf32()));
      vector::populateVectorShapeCastLoweringPatterns(patterns);
      patterns.add<ReadOfSplatWrite>(ctx); // the hoisted accumulator reads
      (void)applyPatternsGreedily(func, std::move(patterns), dlc::codegen::patternPassConfig());
    }
  }
};

} // namespace
