// dlc-cpu-select-kernels: each linalg op's kernel for the target CPU, as #dlc.kernel_config.
#include "codegen/Target/X86/KernelConfig.h"
#include "codegen/Target/X86/Passes.h"
#include "codegen/Target/X86/RowBlocks.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace dlc::x86 {
#define GEN_PASS_DEF_SELECTKERNELS
#include "codegen/Target/X86/Passes.h.inc"
} // namespace dlc::x86

using namespace mlir;
using namespace dlc::x86;
using dlc::codegen::kKernelConfigAttr;

namespace {

/// A reduction over several trailing loops (a LayerNorm over [C, D, H, W], a mean over
/// [H, W]) whose loops are contiguous in every operand, rewritten as one reduction over
/// their product: it then gets an innermost reduction's config, about sqrt(n) partial sums
/// across the row, instead of 16 lanes each summing n / 16 values in a chain. Faster, and
/// the sum's rounding error grows with sqrt(n), not n / 16 (a LayerNorm of a constant
/// 11,088-value region, whose exact result is its bias, was off by 3 %).
void collapseTrailingReductions(RewriterBase &rewriter, linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || !generic.hasPureTensorSemantics())
    return;
  std::optional<ReassociationIndices> group = collapsibleReductionLoops(generic);
  if (!group)
    return;
  rewriter.setInsertionPoint(op);
  auto collapsed = linalg::collapseOpIterationDims(op, {*group}, rewriter);
  if (succeeded(collapsed))
    rewriter.replaceOp(op, collapsed->results);
}

struct SelectKernelsPass : dlc::x86::impl::SelectKernelsBase<SelectKernelsPass> {
  using SelectKernelsBase::SelectKernelsBase;

  LogicalResult initialize(MLIRContext *) override {
    target = CpuTarget::resolve(cpu);
    return success();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    IRRewriter rewriter(&getContext());
    if (dumpTarget)
      llvm::errs() << target.describe() << "\n";
    // 1. Every op's kernel on its whole shape; the roots of row blocks get their rows.
    choose(func, /*final=*/false);
    // 2. Row blocks (the chains' ops are cloned into the block loops with their configs).
    formRowBlocks(func, rewriter);
    // 3. Trailing reductions contiguous in every operand become one loop.
    SmallVector<linalg::LinalgOp> topLevel;
    func.walk([&](linalg::LinalgOp op) {
      if (isRootPosition(op) && !isInRowBlock(op))
        topLevel.push_back(op);
    });
    for (linalg::LinalgOp op : topLevel)
      collapseTrailingReductions(rewriter, op);
    // 4. Every op's kernel again on its final shape (a block's, a collapsed one), with
    //    the thread split, partial sums and fused epilogues.
    choose(func, /*final=*/true);
  }

  void choose(func::FuncOp func, bool final) {
    MLIRContext *ctx = &getContext();
    func.walk([&](linalg::LinalgOp op) {
      if (!isRootPosition(op))
        return;
      op->removeAttr(kKernelConfigAttr);
      std::optional<KernelConfig> cfg = chooseKernelConfig(op, target);
      if (!cfg)
        return;
      if (!final) {
        if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
          cfg->rowBlock = chooseRowBlock(generic, target);
      } else {
        cfg->partialSums = cfg->kind == KernelKind::Generic && isInnerReduction(op) &&
                           cfg->tiles.back() > 0;
        // A row block's ops run on the thread that runs the block.
        if (!isInRowBlock(op))
          cfg->split = chooseThreadSplit(op, *cfg);
      }
      op->setAttr(kKernelConfigAttr, cfg->toAttr(ctx));
    });
    if (!final)
      return;
    // An elementwise op that is a contraction's or convolution's only use: the kernel
    // computes it on each register tile (its first input that qualifies).
    func.walk([&](linalg::LinalgOp consumer) {
      if (!isRootPosition(consumer) || !dlc::codegen::getKernelConfig(consumer))
        return;
      for (Value in : consumer.getDpsInputs()) {
        auto producer = in.getDefiningOp<linalg::LinalgOp>();
        auto attr = producer ? dlc::codegen::getKernelConfig(producer) : dlc::codegen::KernelConfigAttr();
        if (!attr)
          continue;
        KernelConfig cfg = KernelConfig::fromAttr(attr);
        if (!computesAsEpilogue(consumer, producer, cfg))
          continue;
        cfg.epilogue = true;
        producer->setAttr(kKernelConfigAttr, cfg.toAttr(ctx));
        break;
      }
    });
  }

  CpuTarget target;
};

} // namespace
