// dlc-cuda-warp-reduce: the row-reduction schedule's warp-level vector<32> values -> one
// element per lane (lane l holds element l), the partials' reduction -> a butterfly of
// shuffles (shfl.sync.bfly), the warp's result stored by lane 0.
#include "codegen/Target/CUDA/MmaLowering.h"
#include "codegen/Target/CUDA/RowReduction.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"

namespace dlc::cuda {
#define GEN_PASS_DEF_WARPREDUCE
#include "codegen/Target/CUDA/Passes.h.inc"
} // namespace dlc::cuda

using namespace mlir;
using namespace dlc::cuda;

namespace {

bool isLanes(Type t) {
  auto v = dyn_cast<VectorType>(t);
  return v && v.getRank() == 1 && v.getNumElements() == kWarpLanes && !v.isScalable();
}

StringRef warpRole(Operation *op) {
  auto r = op->getAttrOfType<StringAttr>(kWarpRoleAttr);
  return r ? r.getValue() : StringRef();
}

/// The warp's `kind` reduction of every lane's `value`, in every lane: five butterfly
/// steps of shuffles.
Value butterfly(vector::CombiningKind kind, Value value, OpBuilder &b, Location loc) {
  Value width = arith::ConstantIntOp::create(b, loc, b.getI32Type(), kWarpLanes);
  for (int64_t offset = kWarpLanes / 2; offset > 0; offset /= 2) {
    Value o = arith::ConstantIntOp::create(b, loc, b.getI32Type(), offset);
    auto other = gpu::ShuffleOp::create(b, loc, value, o, width, gpu::ShuffleMode::XOR);
    value = vector::makeArithReduction(b, loc, kind, value, other.getShuffleResult());
  }
  return value;
}

LogicalResult lowerWarp(scf::ForallOp warp, IRRewriter &b) {
  b.setInsertionPointToStart(warp.getBody());
  Location loc = warp.getLoc();
  Value lane = gpu::LaneIdOp::create(b, loc, b.getIntegerAttr(b.getIndexType(), kWarpLanes));
  // Lanes constants hoisted out of the warp (by canonicalization): their element inside.
  llvm::SetVector<Value> above;
  getUsedValuesDefinedAbove(warp.getRegion(), above);
  for (Value v : above) {
    if (!isLanes(v.getType()))
      continue;
    auto cst = v.getDefiningOp<arith::ConstantOp>();
    auto splat = cst ? dyn_cast<SplatElementsAttr>(cst.getValue()) : SplatElementsAttr();
    if (!splat)
      return warp.emitOpError("uses a warp's lanes value from outside it");
    Value element = arith::ConstantOp::create(b, loc, splat.getSplatValue<TypedAttr>());
    b.replaceUsesWithIf(v, element, [&](OpOperand &use) {
      return warp.getRegion().isAncestor(use.getOwner()->getParentRegion());
    });
  }
  SmallVector<Operation *> ops;
  warp.getBody()->walk<WalkOrder::PreOrder>([&](Operation *op) { ops.push_back(op); });
  for (Operation *op : ops) {
    b.setInsertionPoint(op);
    if (isa<vector::StepOp>(op) && isLanes(op->getResult(0).getType())) {
      b.replaceOp(op, lane);
    } else if (auto bc = dyn_cast<vector::BroadcastOp>(op);
               bc && isLanes(bc.getType()) && !isa<VectorType>(bc.getSourceType())) {
      b.replaceOp(op, bc.getSource());
    } else if (auto cst = dyn_cast<arith::ConstantOp>(op); cst && isLanes(cst.getType())) {
      auto splat = dyn_cast<SplatElementsAttr>(cst.getValue());
      if (!splat)
        return op->emitOpError("is a warp's lanes constant that is not a splat");
      b.replaceOp(op, arith::ConstantOp::create(b, op->getLoc(), splat.getSplatValue<TypedAttr>()));
    } else if (auto read = dyn_cast<vector::TransferReadOp>(op); read && warpRole(op) == "lanes") {
      // Lane l's element: element l of the row (0, the schedule's padding, past its end).
      b.replaceOp(op, loadTileElement(read.getBase(), read.getIndices(),
                                      read.getPermutationMap(), lane, Value(), b, op->getLoc()));
    } else if (auto red = dyn_cast<vector::ReductionOp>(op)) {
      // (Its operand, the loop's partials, is already the lane's element.)
      if (red.getAcc())
        return op->emitOpError("has an accumulator the warp lowering does not take");
      b.replaceOp(op, butterfly(red.getKind(), red.getVector(), b, op->getLoc()));
    } else if (isa<memref::StoreOp>(op) && warpRole(op) == "result") {
      // Every lane holds the result; lane 0 stores it.
      Value first = arith::CmpIOp::create(b, op->getLoc(), arith::CmpIPredicate::eq, lane,
                                          arith::ConstantIndexOp::create(b, op->getLoc(), 0));
      auto guard = scf::IfOp::create(b, op->getLoc(), first, /*withElseRegion=*/false);
      op->moveBefore(guard.thenBlock()->getTerminator());
    } else {
      // Elementwise ops and loops: the same op on the lane's element.
      if (!llvm::any_of(op->getResultTypes(), isLanes) &&
          !llvm::any_of(op->getRegions(), [](Region &r) {
            return llvm::any_of(r.getArguments(), [](Value a) { return isLanes(a.getType()); });
          }))
        continue;
      if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) && !isa<scf::ForOp>(op))
        return op->emitOpError("works on a warp's lanes in a way the warp lowering does not take");
      for (Value r : op->getResults())
        if (isLanes(r.getType()))
          r.setType(cast<VectorType>(r.getType()).getElementType());
      for (Region &region : op->getRegions())
        for (BlockArgument a : region.getArguments())
          if (isLanes(a.getType()))
            a.setType(cast<VectorType>(a.getType()).getElementType());
    }
  }
  return success();
}

struct WarpReduce : dlc::cuda::impl::WarpReduceBase<WarpReduce> {
  void runOnOperation() override {
    IRRewriter b(&getContext());
    SmallVector<scf::ForallOp> warps;
    getOperation().walk([&](scf::ForallOp f) {
      bool holds = f.getBody()
                       ->walk([](Operation *op) {
                         return warpRole(op).empty() ? WalkResult::advance()
                                                     : WalkResult::interrupt();
                       })
                       .wasInterrupted();
      if (isMappedTo<gpu::GPUWarpMappingAttr>(f) && holds)
        warps.push_back(f);
    });
    for (scf::ForallOp f : warps)
      if (failed(lowerWarp(f, b)))
        return signalPassFailure();
  }
};

} // namespace
