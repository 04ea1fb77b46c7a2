// ONNX Det: determinants of [..., n, n] matrices by Gaussian elimination with partial
// pivoting, unrolled over the n columns (n is static) and vectorized over the batch:
// per column the pivot row (first largest |value| at or below the diagonal) is swapped
// in with one-hot row arithmetic, the determinant picks up the pivot and the swap's
// sign, and the rows below are eliminated. Computed in f64, rounded once.
#include "frontends/Onnx/Expr.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {

LogicalResult det(NodeImporter &n, SmallVectorImpl<Value> &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  auto t = tensorType(*x);
  int64_t r = t.getRank();
  if (!isa<FloatType>(t.getElementType()) || r < 2 || t.getDimSize(r - 1) != t.getDimSize(r - 2))
    return n.error("expects floating-point square matrices [..., n, n]");
  int64_t N = t.getDimSize(r - 1);
  if (N > 256)
    return n.error("matrices larger than 256x256 are not supported (unrolled elimination)");
  SmallVector<int64_t> batchShape(t.getShape().drop_back(2));
  auto Bc = n.product(batchShape, "the batch"); // unbounded when n = 0
  DLC_TRY(Bc);
  int64_t B = *Bc;
  if (failed(n.checkShape({B}, n.b.getF64Type(), "the determinants")))
    return failure();
  Type f64 = n.b.getF64Type(), i64 = n.b.getI64Type();
  Expr e{n, f64};
  Value a = e.reshape(e.cast(*x, f64), {B, N, N});
  SmallVector<int64_t> rows;
  for (int64_t i = 0; i < N; ++i)
    rows.push_back(i);
  Value rowIdx = e.ints({1, N, 1}, rows);
  Value result = n.constant(DenseElementsAttr::get(RankedTensorType::get({B, 1, 1}, f64), 1.0));
  auto slice = [&](Value v, ArrayRef<int64_t> starts, ArrayRef<int64_t> sizes) {
    return e.slice(v, starts, sizes, {1, 1, 1});
  };
  for (int64_t k = 0; k < N; ++k) {
    Value kc = e.c(i64, (double)k);
    Value below = e.op<GreaterEqualOp>({rowIdx, kc}); // rows >= k
    // Pivot: the first row >= k with the largest |a[row, k]|.
    Value col = slice(a, {0, 0, k}, {B, N, 1});
    Value cand = e.where(below, e.op<AbsOp>({col}), e.c(-1));
    Value p = e.op<ArgMaxOp>({cand}, {n.named("axis", n.b.getI64IntegerAttr(1)),
                                      n.named("keepdims", n.b.getBoolAttr(true)),
                                      n.named("select_last_index", n.b.getBoolAttr(false))});
    Value isP = e.cast(e.op<EqualOp>({rowIdx, p}), f64);  // [B, N, 1]
    Value isK = e.cast(e.op<EqualOp>({rowIdx, kc}), f64); // [1, N, 1]
    Value rowK = slice(a, {0, k, 0}, {B, 1, N});
    Value rowP = e.reduce<ReduceSumOp>(e.op<MulOp>({isP, a}), {1}, true);
    Value diff = e.op<SubOp>({rowP, rowK});
    a = e.op<AddOp>({a, e.op<SubOp>({e.op<MulOp>({isK, diff}), e.op<MulOp>({isP, diff})})});
    Value swapped = e.op<EqualOp>({p, kc});
    result = e.op<MulOp>({result, e.where(swapped, e.c(1), e.c(-1))});
    Value pivot = slice(a, {0, k, k}, {B, 1, 1});
    result = e.op<MulOp>({result, pivot});
    // Eliminate below the pivot (a zero pivot already made the determinant 0).
    Value safe = e.where(e.op<EqualOp>({pivot, e.c(0)}), e.c(1), pivot);
    Value factor = e.op<DivOp>({slice(a, {0, 0, k}, {B, N, 1}), safe});
    Value strictlyBelow = e.cast(e.op<GreaterOp>({rowIdx, kc}), f64);
    Value pivotRow = slice(a, {0, k, 0}, {B, 1, N});
    a = e.op<SubOp>({a, e.op<MulOp>({e.op<MulOp>({strictlyBelow, factor}), pivotRow})});
  }
  Value y = e.cast(e.reshape(result, batchShape), t.getElementType());
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

} // namespace dlc::onnx_frontend
