// Row blocks: normalization-like chains tiled by blocks of rows before per-op tiling.
#include "codegen/Target/X86/RowBlocks.h"
#include "codegen/Target/X86/KernelConfig.h"
#include "codegen/Target/X86/ParallelMark.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/CSE.h"

using namespace mlir;

namespace dlc::x86 {
namespace {

/// Bytes of one block of a chain's intermediate: a few of them fit L2 together.
constexpr int64_t kRowBlockBytes = 64 * 1024;
/// Chains smaller than this stay as they are (the loop would not pay off).
constexpr int64_t kMinRowBlockElements = 1 << 16;

/// A linalg op the block may absorb: elementwise or reduction generics and fills,
/// not contractions or convolutions (they keep their own register tiling).
bool isFusable(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics())
    return false;
  auto cfg = chooseKernelConfig(linalgOp);
  return cfg && cfg->kind == KernelKind::Generic;
}

/// Whether `v` is computed by a reduction, possibly through a few fusable
/// elementwise ops (rstd = 1 / sqrt(var + eps)).
bool comesFromReduction(Value v, int depth = 4) {
  auto producer = v.getDefiningOp<linalg::LinalgOp>();
  if (!producer || !isFusable(producer) || depth == 0)
    return false;
  if (producer.getNumReductionLoops() > 0)
    return true;
  return llvm::any_of(producer.getDpsInputOperands(), [&](OpOperand *in) {
    return comesFromReduction(in->get(), depth - 1);
  });
}

/// An all-parallel generic reading, through a map that drops its last dim, a
/// per-row statistic computed by a reduction: out[.., j] = f(x[.., j], stat[..]).
bool isRowBlockRoot(linalg::GenericOp op) {
  if (op.getNumLoops() < 2 || op.getNumLoops() != op.getNumParallelLoops() ||
      op->getNumResults() != 1 || op->getParentOfType<scf::ForOp>())
    return false;
  int64_t elements = 1;
  for (int64_t r : op.getStaticLoopRanges())
    elements = ShapedType::isDynamic(r) ? 0 : elements * r;
  if (elements < kMinRowBlockElements)
    return false;
  unsigned last = op.getNumLoops() - 1;
  return llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *in) {
    AffineMap map = op.getMatchingIndexingMap(in);
    return map.isProjectedPermutation() && !map.isFunctionOfDim(last) &&
           map.getNumResults() > 0 && comesFromReduction(in->get());
  });
}

void tileRowBlocks(RewriterBase &rewriter, linalg::GenericOp op) {
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  int64_t rowBytes = bounds.back() * 4;
  int64_t rows = bounds[bounds.size() - 2];
  // Rows per block: the largest divisor of the row count within the block budget.
  int64_t block = 1;
  for (int64_t b = std::max<int64_t>(1, kRowBlockBytes / rowBytes); b >= 1; --b)
    if (rows % b == 0) {
      block = b;
      break;
    }
  SmallVector<int64_t> tiles(bounds.size(), 1);
  tiles[bounds.size() - 2] = block;
  tiles.back() = 0;
  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), tiles));
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  options.setFusionControlFn(
      [](tensor::ExtractSliceOp, OpResult producer,
         bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (isFusable(producer.getOwner()))
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        return std::nullopt;
      });
  rewriter.setInsertionPoint(op);
  auto result = scf::tileConsumerAndFuseProducersUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(result) || result->loops.empty())
    return;
  for (OpResult r : op->getResults())
    if (Value v = result->replacements.lookup(r))
      rewriter.replaceAllUsesWith(r, v);
  if (op->use_empty())
    rewriter.eraseOp(op);
  // The innermost block loop holds the chain; the outermost one with several
  // blocks is what threads split.
  Operation *inner = result->loops.back().getOperation();
  inner->setAttr(kRowBlockAttr, rewriter.getUnitAttr());
  markParallelLoop(result->loops);
  // Fused producers wrote their block into a slice of their whole (empty) result:
  // give each block its own small tensor instead, so the chain's intermediates are
  // L2-sized buffers, never written back to memory.
  SmallVector<tensor::ExtractSliceOp> emptySlices;
  inner->walk([&](tensor::ExtractSliceOp slice) {
    if (slice.getSource().getDefiningOp<tensor::EmptyOp>() && slice.getType().hasStaticShape())
      emptySlices.push_back(slice);
  });
  for (tensor::ExtractSliceOp slice : emptySlices) {
    rewriter.setInsertionPoint(slice);
    rewriter.replaceOpWithNewOp<tensor::EmptyOp>(slice, slice.getType().getShape(),
                                                 slice.getType().getElementType());
  }
  // A producer with several users in the chain was fused once per use: the copies
  // read the same slices, so CSE leaves one.
  DominanceInfo dom;
  eliminateCommonSubExpressions(rewriter, dom, inner);
}

} // namespace

void formRowBlocks(func::FuncOp func, RewriterBase &rewriter) {
  SmallVector<linalg::GenericOp> roots;
  func.walk([&](linalg::GenericOp op) {
    if (isRowBlockRoot(op))
      roots.push_back(op);
  });
  // Consumers first: a chain's producers are then still top level to fuse.
  for (linalg::GenericOp op : llvm::reverse(roots))
    if (!op->use_empty() && !op->getParentOfType<scf::ForOp>())
      tileRowBlocks(rewriter, op);
  if (roots.empty())
    return;
  // The fused chains' original ops are dead now: erase them (consumers first) so
  // they are not tiled as roots of their own.
  SmallVector<Operation *> top;
  for (Operation &op : func.getBody().front())
    top.push_back(&op);
  for (Operation *op : llvm::reverse(top))
    if (isOpTriviallyDead(op))
      rewriter.eraseOp(op);
}

bool isInRowBlock(Operation *op) {
  Operation *parent = op->getParentOp();
  return parent && isa<scf::ForOp>(parent) && parent->hasAttr(kRowBlockAttr);
}

} // namespace dlc::x86
