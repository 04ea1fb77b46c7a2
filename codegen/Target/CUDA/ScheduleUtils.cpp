// Pieces the CUDA kernel schedules share: see ScheduleUtils.h.
#include "codegen/Target/CUDA/ScheduleUtils.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include "llvm/ADT/SmallVectorExtras.h"

using namespace mlir;

namespace dlc::cuda {

std::pair<scf::ForallOp, scf::ForallOp> createKernelForalls(OpBuilder &b, Location loc,
                                                            int64_t blocks, int64_t inner,
                                                            Attribute innerMapping) {
  MLIRContext *ctx = b.getContext();
  auto grid = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(blocks)}, ValueRange{},
      b.getArrayAttr({gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimX)}));
  b.setInsertionPointToStart(grid.getBody());
  auto group = scf::ForallOp::create(b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(inner)},
                                     ValueRange{}, b.getArrayAttr({innerMapping}));
  b.setInsertionPointToStart(group.getBody());
  return {grid, group};
}

Value guardedPoint(OpBuilder &b, Location loc, scf::ForallOp grid, scf::ForallOp inner,
                   int64_t perBlock, int64_t points) {
  AffineExpr bi, ii;
  bindDims(b.getContext(), bi, ii);
  Value point = affine::AffineApplyOp::create(
      b, loc, AffineMap::get(2, 0, bi * perBlock + ii),
      ValueRange{grid.getInductionVar(0), inner.getInductionVar(0)});
  Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, point,
                                       arith::ConstantIndexOp::create(b, loc, points));
  auto guard = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
  b.setInsertionPointToStart(guard.thenBlock());
  return point;
}

bool isScalarArithmetic(Block *body) {
  return llvm::all_of(body->without_terminator(), [](Operation &op) {
    return isa<arith::ArithDialect, math::MathDialect>(op.getDialect()) &&
           op.getNumRegions() == 0 && op.getNumResults() == 1 &&
           llvm::all_of(op.getOperandTypes(), [](Type t) { return t.isIntOrIndexOrFloat(); });
  });
}

void cloneOnVectors(Block *body, ArrayRef<int64_t> shape, IRMapping &map, OpBuilder &b,
                    Location loc) {
  auto onVectors = [&](Value v) -> Value {
    if (Value mapped = map.lookupOrNull(v))
      return mapped;
    return vector::BroadcastOp::create(b, loc, VectorType::get(shape, v.getType()), v);
  };
  for (Operation &op : body->without_terminator()) {
    if (op.hasTrait<OpTrait::ConstantLike>()) {
      map.map(op.getResult(0), onVectors(b.clone(op)->getResult(0)));
      continue;
    }
    SmallVector<Value> operands = llvm::map_to_vector(op.getOperands(), onVectors);
    OperationState state(loc, op.getName().getStringRef(), operands,
                         TypeRange{VectorType::get(shape, op.getResult(0).getType())},
                         op.getAttrs());
    map.map(op.getResult(0), b.create(state)->getResult(0));
  }
}

} // namespace dlc::cuda
