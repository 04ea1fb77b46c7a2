// ONNX Det: determinants of [..., n, n] matrices by Gaussian elimination with partial
// pivoting, unrolled over the n columns (a dynamic n at its greatest size, the matrices
// extended by an identity block) and vectorized over the batch:
// per column the pivot row (first largest |value| at or below the diagonal) is swapped
// in with one-hot row arithmetic, the determinant picks up the pivot and the swap's
// sign, and the rows below are eliminated. Computed in f64, rounded once.
#include "frontends/Onnx/Expr.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {

LogicalResult det(NodeImporter &n, SmallVectorImpl<Value> &out) {
  using Size = SymbolicSize;
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  auto t = tensorType(*x);
  int64_t r = t.getRank();
  auto xs = n.sizesOf(*x);
  if (!isa<FloatType>(t.getElementType()) || r < 2 || !xs || (*xs)[r - 1] != (*xs)[r - 2])
    return n.error("expects floating-point square matrices [..., n, n]");
  // Over a dynamic n (--dims): the matrices extended to n's greatest size with an identity
  // block, which leaves the determinant as it is.
  Size n0 = (*xs)[r - 1];
  auto most = n0.isStatic() ? FailureOr<int64_t>(n0.coef) : unrollSteps(n, n0, 256, "the matrix size");
  DLC_TRY(most);
  int64_t N = *most;
  if (N > 256)
    return n.error("matrices larger than 256x256 are not supported (unrolled elimination)");
  SmallVector<Size> batch(xs->begin(), xs->end() - 2);
  Size B = sizeProduct(batch), Ns = Size::constant(N), one = Size::constant(1),
       zero = Size::constant(0);
  if (t.hasStaticShape()) {
    SmallVector<int64_t> batchShape(t.getShape().drop_back(2));
    auto Bc = n.product(batchShape, "the batch"); // unbounded when n = 0
    DLC_TRY(Bc);
    if (failed(n.checkShape({*Bc}, n.b.getF64Type(), "the determinants")))
      return failure();
  }
  Type f64 = n.b.getF64Type(), i64 = n.b.getI64Type();
  Expr e{n, f64};
  auto a0 = n.reshapeTo(e.cast(*x, f64), {B, n0, n0});
  DLC_TRY(a0);
  Value a = *a0;
  SmallVector<int64_t> rows;
  for (int64_t i = 0; i < N; ++i)
    rows.push_back(i);
  Value rowIdx = e.ints({1, N, 1}, rows);
  if (!n0.isStatic()) {
    auto p1 = padAxisTo(n, a, 1, n0, N);
    auto p2 = succeeded(p1) ? padAxisTo(n, *p1, 2, n0, N) : p1;
    auto len = n.sizeValue(n0);
    DLC_TRY(p2);
    DLC_TRY(len);
    SmallVector<double> eye(N * N, 0.0);
    for (int64_t i = 0; i < N; ++i)
      eye[i * N + i] = 1.0;
    Value identity = n.constant(DenseElementsAttr::get(RankedTensorType::get({1, N, N}, f64),
                                                       ArrayRef<double>(eye)));
    Value outside = e.cast(e.op<GreaterEqualOp>({rowIdx, *len}), f64); // [1, N, 1]
    a = e.op<AddOp>({*p2, e.op<MulOp>({identity, outside})});
  }
  Value result = e.c(1.0);
  auto slice = [&](Value v, ArrayRef<int64_t> starts, ArrayRef<Size> sizes) -> Value {
    SmallVector<Size> from;
    for (int64_t s : starts)
      from.push_back(Size::constant(s));
    auto r = e.failed ? FailureOr<Value>(failure()) : sliceTo(n, v, from, sizes);
    return succeeded(r) ? *r : e.fail();
  };
  for (int64_t k = 0; k < N; ++k) {
    Value kc = e.c(i64, (double)k);
    Value below = e.op<GreaterEqualOp>({rowIdx, kc}); // rows >= k
    // Pivot: the first row >= k with the largest |a[row, k]|.
    Value col = slice(a, {0, 0, k}, {B, Ns, one});
    Value cand = e.where(below, e.op<AbsOp>({col}), e.c(-1));
    Value p = e.op<ArgMaxOp>({cand}, {n.named("axis", n.b.getI64IntegerAttr(1)),
                                      n.named("keepdims", n.b.getBoolAttr(true)),
                                      n.named("select_last_index", n.b.getBoolAttr(false))});
    Value isP = e.cast(e.op<EqualOp>({rowIdx, p}), f64);  // [B, N, 1]
    Value isK = e.cast(e.op<EqualOp>({rowIdx, kc}), f64); // [1, N, 1]
    Value rowK = slice(a, {0, k, 0}, {B, one, Ns});
    Value rowP = e.reduce<ReduceSumOp>(e.op<MulOp>({isP, a}), {1}, true);
    Value diff = e.op<SubOp>({rowP, rowK});
    a = e.op<AddOp>({a, e.op<SubOp>({e.op<MulOp>({isK, diff}), e.op<MulOp>({isP, diff})})});
    Value swapped = e.op<EqualOp>({p, kc});
    result = e.op<MulOp>({result, e.where(swapped, e.c(1), e.c(-1))});
    Value pivot = slice(a, {0, k, k}, {B, one, one});
    result = e.op<MulOp>({result, pivot});
    // Eliminate below the pivot (a zero pivot already made the determinant 0).
    Value safe = e.where(e.op<EqualOp>({pivot, e.c(0)}), e.c(1), pivot);
    Value factor = e.op<DivOp>({slice(a, {0, 0, k}, {B, Ns, one}), safe});
    Value strictlyBelow = e.cast(e.op<GreaterOp>({rowIdx, kc}), f64);
    Value pivotRow = slice(a, {0, k, 0}, {B, one, Ns});
    a = e.op<SubOp>({a, e.op<MulOp>({e.op<MulOp>({strictlyBelow, factor}), pivotRow})});
  }
  if (N == 0) // no columns: the determinant of an empty matrix is 1
    result = e.op<AddOp>({e.op<MulOp>({e.reduce<ReduceSumOp>(a, {1, 2}, true), e.c(0)}), result});
  if (e.failed)
    return failure();
  auto y = n.reshapeTo(result, batch);
  DLC_TRY(y);
  Value d = e.cast(*y, t.getElementType());
  if (e.failed)
    return failure();
  out.push_back(d);
  return success();
}

} // namespace dlc::onnx_frontend
