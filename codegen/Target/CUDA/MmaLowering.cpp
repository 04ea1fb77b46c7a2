// The common part of lowering a tensor-core schedule's group-level tiles: see MmaLowering.h.
#include "codegen/Target/CUDA/MmaLowering.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/ADT/SmallVectorExtras.h"

using namespace mlir;

namespace dlc::cuda {

StringRef mmaRole(Operation *op) {
  auto r = op->getAttrOfType<StringAttr>(kMmaRoleAttr);
  return r ? r.getValue() : StringRef();
}

std::pair<SmallVector<Value>, Value> tileElement(Value base, ValueRange indices, AffineMap map,
                                                 Value row, Value col, OpBuilder &b,
                                                 Location loc) {
  SmallVector<Value> at(indices.begin(), indices.end());
  unsigned rowPos = cast<AffineDimExpr>(map.getResult(0)).getPosition();
  unsigned colPos = cast<AffineDimExpr>(map.getResult(1)).getPosition();
  at[rowPos] = arith::AddIOp::create(b, loc, at[rowPos], row);
  at[colPos] = arith::AddIOp::create(b, loc, at[colPos], col);
  Value inside;
  for (unsigned pos : {rowPos, colPos}) {
    Value size = memref::DimOp::create(b, loc, base, pos);
    Value lt = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, at[pos], size);
    inside = inside ? arith::AndIOp::create(b, loc, inside, lt).getResult() : lt;
    // Clamped, so a masked-off element is still read from inside the buffer.
    Value last = arith::SubIOp::create(b, loc, size, arith::ConstantIndexOp::create(b, loc, 1));
    at[pos] = arith::MinUIOp::create(b, loc, at[pos], last);
  }
  return {at, inside};
}

Value loadTileElement(Value base, ValueRange indices, AffineMap map, Value row, Value col,
                      OpBuilder &b, Location loc) {
  auto [at, inside] = tileElement(base, indices, map, row, col, b, loc);
  Type type = cast<MemRefType>(base.getType()).getElementType();
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
  Value v = memref::LoadOp::create(b, loc, base, at);
  return arith::SelectOp::create(b, loc, inside, v, zero);
}

void storeTileElement(Value value, Value base, ValueRange indices, AffineMap map, Value row,
                      Value col, OpBuilder &b, Location loc) {
  auto [at, inside] = tileElement(base, indices, map, row, col, b, loc);
  auto guard = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard ig(b);
  b.setInsertionPointToStart(guard.thenBlock());
  memref::StoreOp::create(b, loc, value, base, at);
}

/// Whether `op` is or holds a tile op of the schedule.
static bool holdsTiles(Operation *op) {
  return op->walk([](Operation *inner) {
             return isa<vector::ContractionOp>(inner) || !mmaRole(inner).empty()
                        ? WalkResult::interrupt()
                        : WalkResult::advance();
           })
      .wasInterrupted();
}

/// Emits `ops` at `b`'s insertion point with the schedule's tiles lowered (`map` takes
/// each tile value to what the thread holds of it); K loops carrying tiles are rebuilt
/// around the threads' shares (a loop of one step may have been folded away).
static LogicalResult lowerOps(ArrayRef<Operation *> ops, IRMapping &map, MmaLowering &lowering,
                              OpBuilder &b) {
  auto mapped = [&](ValueRange values) {
    return llvm::map_to_vector(values, [&](Value v) { return map.lookupOrDefault(v); });
  };
  for (Operation *op : ops) {
    StringRef role = mmaRole(op);
    if (auto read = dyn_cast<vector::TransferReadOp>(op); read && !role.empty()) {
      SmallVector<Value> at = mapped(read.getIndices());
      map.map(read.getResult(), role == "c" ? lowering.readAccumulator(read, at, b)
                                            : lowering.readOperand(read, at, b));
    } else if (auto write = dyn_cast<vector::TransferWriteOp>(op); write && role == "c") {
      lowering.writeAccumulator(write, map.lookup(write.getVector()),
                                mapped(write.getIndices()), b);
    } else if (auto contract = dyn_cast<vector::ContractionOp>(op)) {
      map.map(contract.getResult(),
              lowering.multiply(contract, map.lookup(contract.getLhs()),
                                map.lookup(contract.getRhs()), map.lookup(contract.getAcc()),
                                b));
    } else if (auto loop = dyn_cast<scf::ForOp>(op); loop && holdsTiles(loop)) {
      auto lowered = scf::ForOp::create(b, loop.getLoc(), map.lookupOrDefault(loop.getLowerBound()),
                                        map.lookupOrDefault(loop.getUpperBound()),
                                        map.lookupOrDefault(loop.getStep()),
                                        mapped(loop.getInitArgs()));
      map.map(loop.getInductionVar(), lowered.getInductionVar());
      for (auto [from, to] : llvm::zip(loop.getRegionIterArgs(), lowered.getRegionIterArgs()))
        map.map(from, to);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(lowered.getBody());
      SmallVector<Operation *> body =
          llvm::map_to_vector(loop.getBody()->without_terminator(), [](Operation &o) { return &o; });
      if (failed(lowerOps(body, map, lowering, b)))
        return failure();
      scf::YieldOp::create(b, loop.getLoc(), mapped(loop.getBody()->getTerminator()->getOperands()));
      for (auto [from, to] : llvm::zip(loop.getResults(), lowered.getResults()))
        map.map(from, to);
    } else if (holdsTiles(op)) {
      return op->emitOpError("holds tensor-core tiles the mma lowering does not know");
    } else {
      b.clone(*op, map);
    }
  }
  return success();
}

/// Rewrites one group forall's body with its tiles lowered.
static LogicalResult lowerGroup(scf::ForallOp group, MmaLowering &lowering, IRRewriter &b) {
  SmallVector<Operation *> ops = llvm::map_to_vector(
      group.getBody()->without_terminator(), [](Operation &o) { return &o; });
  if (!llvm::any_of(ops, holdsTiles))
    return success();
  b.setInsertionPointToStart(group.getBody());
  lowering.begin(group, b);
  IRMapping map;
  if (failed(lowerOps(ops, map, lowering, b)))
    return failure();
  for (Operation *op : llvm::reverse(ops)) {
    op->dropAllUses();
    b.eraseOp(op);
  }
  return success();
}

LogicalResult lowerMmaGroups(Operation *root, MmaLowering &lowering) {
  IRRewriter b(root->getContext());
  SmallVector<scf::ForallOp> groups;
  root->walk([&](scf::ForallOp f) {
    if (lowering.isGroup(f))
      groups.push_back(f);
  });
  for (scf::ForallOp f : groups)
    if (failed(lowerGroup(f, lowering, b)))
      return failure();
  return success();
}

} // namespace dlc::cuda
