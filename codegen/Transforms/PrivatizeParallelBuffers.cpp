// dlc-privatize-parallel-buffers: scratch tensors of a parallel loop, one per iteration.
#include "codegen/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace dlc::codegen {
#define GEN_PASS_DEF_PRIVATIZEPARALLELBUFFERS
#include "codegen/Transforms/Passes.h.inc"
} // namespace dlc::codegen

using namespace mlir;

namespace {

/// The outermost loop marked dlc.parallel that contains `op`, or null.
Operation *parallelLoopAround(Operation *op) {
  Operation *found = nullptr;
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (isa<scf::ForOp>(p) && p->hasAttr(dlc::codegen::kParallelLoopAttr))
      found = p;
  return found;
}

struct PrivatizeParallelBuffersPass
    : dlc::codegen::impl::PrivatizeParallelBuffersBase<PrivatizeParallelBuffersPass> {
  void runOnOperation() override {
    SmallVector<tensor::EmptyOp> empties;
    getOperation().walk([&](tensor::EmptyOp e) { empties.push_back(e); });
    for (tensor::EmptyOp empty : empties) {
      for (OpOperand &use : llvm::make_early_inc_range(empty->getUses())) {
        Operation *user = use.getOwner();
        Operation *loop = parallelLoopAround(user);
        if (!loop || loop->isProperAncestor(empty))
          continue;
        // An empty tensor has no contents to share: a copy made where it is used
        // is the same value, and bufferizes to an allocation inside the loop.
        OpBuilder b(user);
        use.set(b.clone(*empty)->getResult(0));
      }
      if (empty->use_empty())
        empty->erase();
    }
  }
};

} // namespace
