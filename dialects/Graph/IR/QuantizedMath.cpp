// Integer products with zero points as matmul_integer plus i32 corrections.
#include "dialects/Graph/IR/QuantizedMath.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace dlc::graph {

bool isZeroConstant(Value v) {
  DenseElementsAttr dense;
  if (!v || !matchPattern(v, m_Constant(&dense)))
    return false;
  if (auto ints = dyn_cast<DenseIntElementsAttr>(dense))
    return llvm::all_of(ints.getValues<APInt>(), [](const APInt &x) { return x.isZero(); });
  return false;
}

/// sum_k b[k, n] as an i32 constant [N] (broadcast along the rows) when `b` is a 2-D constant (weights), else null.
static Value constantColumnSums(GraphExpr &e, Value b, bool isUnsigned) {
  DenseIntElementsAttr dense;
  auto type = dyn_cast<RankedTensorType>(b.getType());
  if (!type || type.getRank() != 2 || !matchPattern(b, m_Constant(&dense)))
    return {};
  int64_t n = type.getDimSize(1);
  std::vector<int32_t> sums(n, 0);
  int64_t i = 0;
  for (const APInt &x : dense.getValues<APInt>()) {
    sums[i % n] += int32_t(isUnsigned ? x.getZExtValue() : x.getSExtValue());
    ++i;
  }
  return e.constant(DenseElementsAttr::get(RankedTensorType::get({n}, e.b.getI32Type()),
                                           ArrayRef<int32_t>(sums)));
}

Value integerMatMul(GraphExpr &e, const QuantizedOperand &a, const QuantizedOperand &b) {
  if (e.failed || !a.value || !b.value)
    return e.fail();
  Type i32 = e.b.getI32Type();
  SmallVector<NamedAttribute> flags;
  if (a.isUnsigned)
    flags.push_back(e.named("lhs_unsigned", e.b.getUnitAttr()));
  if (b.isUnsigned)
    flags.push_back(e.named("rhs_unsigned", e.b.getUnitAttr()));
  Value y = e.op<MatMulIntegerOp>({a.value, b.value}, flags);
  Value za = isZeroConstant(a.zeroPoint) ? Value() : a.zeroPoint;
  Value zb = isZeroConstant(b.zeroPoint) ? Value() : b.zeroPoint;
  if (!za && !zb)
    return y;
  auto at = GraphExpr::typeOf(a.value), bt = GraphExpr::typeOf(b.value);
  int64_t k = at.getShape().back();
  Value zaI = za ? e.cast(za, i32, a.zeroPointUnsigned) : Value();
  Value zbI = zb ? e.cast(zb, i32, b.zeroPointUnsigned) : Value();
  if (zb) { // - zb * sum_k a[m, k]: per row, at run time
    Value rows = e.reduce<ReduceSumOp>(e.cast(a.value, i32, a.isUnsigned), {at.getRank() - 1},
                                       /*keepdims=*/true);
    y = e.op<SubOp>({y, e.op<MulOp>({rows, zbI})});
  }
  if (za) { // - za * sum_k b[k, n]: per column (computed here when b is a constant)
    Value cols = constantColumnSums(e, b.value, b.isUnsigned);
    if (!cols)
      cols = e.reduce<ReduceSumOp>(e.cast(b.value, i32, b.isUnsigned), {bt.getRank() - 2},
                                   /*keepdims=*/true);
    y = e.op<SubOp>({y, e.op<MulOp>({zaI, cols})});
  }
  if (za && zb)
    y = e.op<AddOp>({y, e.op<MulOp>({e.op<MulOp>({zaI, zbI}), e.c(i32, double(k))})});
  return y;
}

} // namespace dlc::graph
