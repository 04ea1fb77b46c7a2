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

/// A linalg op the block may absorb: one whose kernel is generic (elementwise or
/// reduction generics and fills), not contractions or convolutions (they keep their
/// own register tiling).
bool isFusable(Operation *op) {
  auto cfg = codegen::getKernelConfig(op);
  return cfg && cfg.getKind() == KernelKind::Generic;
}

void tileRowBlocks(RewriterBase &rewriter, linalg::GenericOp op, int64_t block) {
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
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
  SmallVector<std::pair<linalg::GenericOp, int64_t>> roots;
  func.walk([&](linalg::GenericOp op) {
    if (auto cfg = codegen::getKernelConfig(op); cfg && cfg.getRowBlock() &&
                                                 !op->getParentOfType<scf::ForOp>())
      roots.push_back({op, *cfg.getRowBlock()});
  });
  // Consumers first: a chain's producers are then still top level to fuse.
  for (auto [op, block] : llvm::reverse(roots))
    if (!op->use_empty() && !op->getParentOfType<scf::ForOp>())
      tileRowBlocks(rewriter, op, block);
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

bool isRootPosition(Operation *op) {
  return !op->getParentOfType<scf::ForOp>() || isInRowBlock(op);
}

} // namespace dlc::x86
