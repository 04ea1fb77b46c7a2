// The common part of lowering a tensor-core schedule's group-level tiles: see MmaLowering.h.
#include "codegen/Target/CUDA/MmaLowering.h"

#include "mlir/Dialect/Math/IR/Math.h"
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
  SmallVector<unsigned> positions;
  for (auto [result, offset] : llvm::zip(map.getResults(), std::array<Value, 2>{row, col})) {
    auto dim = dyn_cast<AffineDimExpr>(result);
    if (!dim)
      continue; // broadcast along this tile dim
    unsigned pos = dim.getPosition();
    at[pos] = arith::AddIOp::create(b, loc, at[pos], offset);
    positions.push_back(pos);
  }
  Value inside = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  for (unsigned pos : positions) {
    Value size = memref::DimOp::create(b, loc, base, pos);
    Value lt = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, at[pos], size);
    inside = arith::AndIOp::create(b, loc, inside, lt).getResult();
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

namespace {

/// The lowering of one group's ops: tile values -> the thread's shares (`map`), epilogue
/// ops set aside until the write that consumes them.
struct GroupLowering {
  MmaLowering &lowering;
  IRMapping map;
  llvm::DenseSet<Value> epilogue;       // schedule values computed by epilogue ops
  SmallVector<Operation *> epilogueOps; // in program order

  SmallVector<Value> mapped(ValueRange values) {
    return llvm::map_to_vector(values, [&](Value v) { return map.lookupOrDefault(v); });
  }
  /// Whether `v` is a tile of the schedule (an accumulator or an epilogue value).
  bool isTile(Value v) {
    return epilogue.contains(v) ||
           (isa<VectorType>(v.getType()) && map.contains(v) &&
            map.lookup(v).getType() != v.getType());
  }

  /// `write` of accumulator tile `value` (itself, or through epilogue ops).
  LogicalResult write(vector::TransferWriteOp write, OpBuilder &b) {
    Value value = write.getVector();
    SmallVector<Value> at = mapped(write.getIndices());
    Location loc = write.getLoc();
    if (!epilogue.contains(value)) {
      lowering.forEachAccumulator(map.lookup(value), b, [&](OpBuilder &nb, Value r, Value c,
                                                            Value v) {
        storeTileElement(v, write.getBase(), at, write.getPermutationMap(), r, c, nb, loc);
      });
      return success();
    }
    // The epilogue ops `value` depends on, and the one accumulator they start from.
    llvm::SetVector<Operation *> slice;
    Value acc;
    SmallVector<Value> work{value};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (!epilogue.contains(v)) {
        if (isTile(v)) {
          if (acc && acc != v)
            return write->emitOpError("writes an epilogue of two accumulators");
          acc = v;
        }
        continue;
      }
      Operation *def = v.getDefiningOp();
      if (slice.insert(def))
        for (Value operand : def->getOperands())
          work.push_back(operand);
    }
    if (!acc)
      return write->emitOpError("writes an epilogue without an accumulator");
    LogicalResult result = success();
    lowering.forEachAccumulator(map.lookup(acc), b, [&](OpBuilder &nb, Value r, Value c, Value v) {
      IRMapping element;
      element.map(acc, v);
      auto scalar = [&](Value operand) -> Value {
        if (Value e = element.lookupOrNull(operand))
          return e;
        Value outer = map.lookupOrDefault(operand);
        if (auto cst = outer.getDefiningOp<arith::ConstantOp>())
          if (auto splat = dyn_cast<SplatElementsAttr>(cst.getValue()))
            return arith::ConstantOp::create(nb, loc, splat.getSplatValue<TypedAttr>());
        return outer;
      };
      for (Operation *op : epilogueOps) {
        if (!slice.contains(op))
          continue;
        Value out;
        if (auto read = dyn_cast<vector::TransferReadOp>(op)) {
          out = loadTileElement(read.getBase(), mapped(read.getIndices()),
                                read.getPermutationMap(), r, c, nb, loc);
        } else if (auto bc = dyn_cast<vector::BroadcastOp>(op);
                   bc && !isa<VectorType>(bc.getSourceType())) {
          out = scalar(bc.getSource());
        } else if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) &&
                   op->getNumResults() == 1 && op->getNumRegions() == 0) {
          SmallVector<Value> operands = llvm::map_to_vector(op->getOperands(), scalar);
          OperationState state(loc, op->getName().getStringRef(), operands,
                               TypeRange{getElementTypeOrSelf(op->getResult(0).getType())},
                               op->getAttrs());
          if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
            auto splat = dyn_cast<SplatElementsAttr>(cst.getValue());
            if (!splat) {
              result = op->emitOpError("is an epilogue constant that is not a splat");
              return;
            }
            out = arith::ConstantOp::create(nb, loc, splat.getSplatValue<TypedAttr>());
          } else {
            out = nb.create(state)->getResult(0);
          }
        } else {
          result = op->emitOpError("is an epilogue op the mma lowering does not take");
          return;
        }
        element.map(op->getResult(0), out);
      }
      storeTileElement(element.lookup(value), write.getBase(), at, write.getPermutationMap(), r,
                       c, nb, loc);
    });
    return result;
  }

  /// Emits `ops` at `b`'s insertion point with the schedule's tiles lowered; K loops
  /// carrying tiles are rebuilt around the threads' shares (a loop of one step may have
  /// been folded away).
  LogicalResult lowerOps(ArrayRef<Operation *> ops, OpBuilder &b) {
    for (Operation *op : ops) {
      StringRef role = mmaRole(op);
      if (auto read = dyn_cast<vector::TransferReadOp>(op); read && role == "e") {
        epilogue.insert(read.getResult());
        epilogueOps.push_back(op);
      } else if (auto read = dyn_cast<vector::TransferReadOp>(op); read && !role.empty()) {
        SmallVector<Value> at = mapped(read.getIndices());
        map.map(read.getResult(), role == "c" ? lowering.readAccumulator(read, at, b)
                                              : lowering.readOperand(read, at, b));
      } else if (auto w = dyn_cast<vector::TransferWriteOp>(op); w && role == "c") {
        if (failed(write(w, b)))
          return failure();
      } else if (auto contract = dyn_cast<vector::ContractionOp>(op)) {
        map.map(contract.getResult(),
                lowering.multiply(contract, map.lookup(contract.getLhs()),
                                  map.lookup(contract.getRhs()), map.lookup(contract.getAcc()),
                                  b));
      } else if (auto loop = dyn_cast<scf::ForOp>(op); loop && holdsTiles(loop)) {
        auto lowered = scf::ForOp::create(
            b, loop.getLoc(), map.lookupOrDefault(loop.getLowerBound()),
            map.lookupOrDefault(loop.getUpperBound()), map.lookupOrDefault(loop.getStep()),
            mapped(loop.getInitArgs()));
        map.map(loop.getInductionVar(), lowered.getInductionVar());
        for (auto [from, to] : llvm::zip(loop.getRegionIterArgs(), lowered.getRegionIterArgs()))
          map.map(from, to);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(lowered.getBody());
        SmallVector<Operation *> body = llvm::map_to_vector(
            loop.getBody()->without_terminator(), [](Operation &o) { return &o; });
        if (failed(lowerOps(body, b)))
          return failure();
        scf::YieldOp::create(b, loop.getLoc(),
                             mapped(loop.getBody()->getTerminator()->getOperands()));
        for (auto [from, to] : llvm::zip(loop.getResults(), lowered.getResults()))
          map.map(from, to);
      } else if (llvm::any_of(op->getOperands(), [&](Value v) { return isTile(v); })) {
        // An epilogue op: computed per element where its tile is written.
        for (Value r : op->getResults())
          epilogue.insert(r);
        epilogueOps.push_back(op);
      } else if (holdsTiles(op)) {
        return op->emitOpError("holds tensor-core tiles the mma lowering does not know");
      } else {
        b.clone(*op, map);
      }
    }
    return success();
  }
};

} // namespace

/// Rewrites one group forall's body with its tiles lowered.
static LogicalResult lowerGroup(scf::ForallOp group, MmaLowering &lowering, IRRewriter &b) {
  SmallVector<Operation *> ops = llvm::map_to_vector(
      group.getBody()->without_terminator(), [](Operation &o) { return &o; });
  if (!llvm::any_of(ops, holdsTiles))
    return success();
  b.setInsertionPointToStart(group.getBody());
  lowering.begin(group, b);
  GroupLowering lowered{lowering, {}, {}, {}};
  if (failed(lowered.lowerOps(ops, b)))
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
