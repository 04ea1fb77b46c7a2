// dlc_graph.matmul_integer -> linalg: a widening generic (each 8-bit operand extended to
// i32), or, for constant weights on a target with 4-byte dot products (x86 VNNI), the
// dot-group form of QUANT-NOTES.md §3.1 over weights packed at compile time.
#include "codegen/Conversion/GraphToLinalg/LoweringUtils.h"
#include "codegen/Conversion/GraphToLinalg/Passes.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::conversion {
namespace {

/// Bytes per K group of a dot-product instruction (one 32-bit lane).
constexpr int64_t kGroup = 4;

/// `v` (i8) widened to i32: zero-extended when it holds unsigned bytes.
Value widen(OpBuilder &b, Location loc, Value v, bool isUnsigned) {
  Type i32 = b.getI32Type();
  return isUnsigned ? Value(arith::ExtUIOp::create(b, loc, i32, v))
                    : Value(arith::ExtSIOp::create(b, loc, i32, v));
}

/// The weights [K, N] as signed bytes, row-major: `rhsUnsigned` bytes only when all are
/// below 128 (then the same values); nothing otherwise.
std::optional<std::vector<int8_t>> signedWeights(DenseElementsAttr dense, bool rhsUnsigned) {
  auto type = cast<RankedTensorType>(dense.getType());
  std::vector<int8_t> w(type.getNumElements());
  ArrayRef<char> raw = dense.getRawData();
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = int8_t(raw[dense.isSplat() ? 0 : i]);
  if (rhsUnsigned && llvm::any_of(w, [](int8_t x) { return x < 0; }))
    return std::nullopt;
  return w;
}

/// [..., M, K] (8-bit) x constant [K, N] in the dot-group form: the weights packed as
/// [N/L][K4/4][L][4] (L = `lanes` columns, K padded with zero rows to K4, N with zero
/// columns), the activations viewed [..., M, K4/4, 4]; loops (rows..., n1, n0, k1, k0),
/// u8 activations times s8 weights. Signed activations are made unsigned (x ^ 0x80 =
/// x + 128) and 128 * colsum(w) subtracted after. Returns null when the op does not fit.
Value dotGroupMatmul(OpBuilder &b, Location loc, MatMulIntegerOp op, Value lhs, Value rhs,
                     int64_t lanes) {
  RankedTensorType type = op.getType();
  auto ls = cast<RankedTensorType>(lhs.getType()).getShape();
  auto rs = cast<RankedTensorType>(rhs.getType()).getShape();
  DenseElementsAttr dense;
  if (rs.size() != 2 || ls.size() != size_t(type.getRank()) ||
      !matchPattern(rhs, m_Constant(&dense)))
    return {};
  auto w = signedWeights(dense, op.getRhsUnsigned());
  if (!w)
    return {};
  int64_t k = rs[0], n = rs[1], k4 = llvm::alignTo(k, kGroup), np = llvm::alignTo(n, lanes);
  // Too little work per column block to pay for padding a narrow product.
  if (n < lanes / 2 || k < kGroup)
    return {};
  Type i8 = b.getI8Type(), i32 = b.getI32Type();
  std::vector<int8_t> packed(np * k4, 0);
  std::vector<int32_t> colsum(n, 0);
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t c = 0; c < n; ++c) {
      int8_t x = (*w)[kk * n + c];
      packed[(((c / lanes) * (k4 / kGroup) + kk / kGroup) * lanes + c % lanes) * kGroup +
             kk % kGroup] = x;
      colsum[c] += x;
    }
  auto packedType = RankedTensorType::get({np / lanes, k4 / kGroup, lanes, kGroup}, i8);
  Value weights = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(packedType, ArrayRef<int8_t>(packed)));
  // Activations: unsigned bytes, K padded to whole groups (the padded weights are 0).
  bool shifted = !op.getLhsUnsigned();
  int64_t rank = type.getRank();
  if (shifted) {
    lhs = buildElementwise(b, loc, cast<RankedTensorType>(lhs.getType()), {lhs},
                           [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                             Value bit = arith::ConstantIntOp::create(nb, l, nb.getI8Type(), 0x80);
                             return arith::XOrIOp::create(nb, l, a[0], bit);
                           });
  }
  if (k4 != k) {
    SmallVector<int64_t> lo(rank, 0), hi(rank, 0);
    hi.back() = k4 - k;
    lhs = padConstant(b, loc, lhs, lo, hi, scalarConstant(b, loc, i8, 0));
  }
  SmallVector<int64_t> grouped(ls.drop_back());
  grouped.append({k4 / kGroup, kGroup});
  SmallVector<ReassociationIndices> lhsGroups;
  for (int64_t d = 0; d < rank - 1; ++d)
    lhsGroups.push_back({d});
  lhsGroups.push_back({rank - 1, rank});
  Value a = tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(grouped, i8), lhs,
                                          lhsGroups);
  // Loops: rank - 1 row dims, n1, n0, k1, k0.
  MLIRContext *ctx = b.getContext();
  int64_t nd = rank + 3;
  SmallVector<AffineExpr> rows, aExprs, outExprs;
  for (int64_t d = 0; d < rank - 1; ++d)
    rows.push_back(getAffineDimExpr(d, ctx));
  AffineExpr n1 = getAffineDimExpr(rank - 1, ctx), n0 = getAffineDimExpr(rank, ctx),
             k1 = getAffineDimExpr(rank + 1, ctx), k0 = getAffineDimExpr(rank + 2, ctx);
  aExprs.append(rows);
  aExprs.append({k1, k0});
  outExprs.append(rows);
  outExprs.append({n1, n0});
  SmallVector<AffineMap> maps = {AffineMap::get(nd, 0, aExprs, ctx),
                                 AffineMap::get(nd, 0, {n1, k1, n0, k0}, ctx),
                                 AffineMap::get(nd, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> iters(nd - 2, utils::IteratorType::parallel);
  iters.append(2, utils::IteratorType::reduction);
  SmallVector<int64_t> outShape(type.getShape().drop_back());
  outShape.append({np / lanes, lanes});
  auto out = RankedTensorType::get(outShape, i32);
  Value init = filledTensor(b, loc, out, scalarConstant(b, loc, i32, 0));
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{out}, ValueRange{a, weights}, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location l, ValueRange x) {
        Value p = arith::MulIOp::create(nb, l, widen(nb, l, x[0], true), widen(nb, l, x[1], false));
        linalg::YieldOp::create(nb, l, ValueRange{arith::AddIOp::create(nb, l, x[2], p)});
      });
  SmallVector<ReassociationIndices> outGroups;
  for (int64_t d = 0; d < rank - 1; ++d)
    outGroups.push_back({d});
  outGroups.push_back({rank - 1, rank});
  SmallVector<int64_t> paddedShape(type.getShape());
  paddedShape.back() = np;
  auto paddedType = RankedTensorType::get(paddedShape, i32);
  Value result =
      tensor::CollapseShapeOp::create(b, loc, paddedType, generic.getResult(0), outGroups);
  if (np != n) {
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), strides(rank, b.getIndexAttr(1)),
        sizes;
    for (int64_t d : type.getShape())
      sizes.push_back(b.getIndexAttr(d));
    result = tensor::ExtractSliceOp::create(b, loc, type, result, offsets, sizes, strides);
  }
  if (!shifted)
    return result;
  // sum (x + 128) w = sum x w + 128 colsum(w): subtract the second term per column.
  for (int32_t &c : colsum)
    c *= 128;
  Value correction = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(RankedTensorType::get({n}, i32), ArrayRef<int32_t>(colsum)));
  return buildElementwise(b, loc, type, {result, correction},
                          [](OpBuilder &nb, Location l, ValueRange x) -> Value {
                            return arith::SubIOp::create(nb, l, x[0], x[1]);
                          });
}

struct MatMulIntegerLowering : OpConversionPattern<MatMulIntegerOp> {
  MatMulIntegerLowering(MLIRContext *ctx, int64_t dotLanes)
      : OpConversionPattern(ctx), dotLanes(dotLanes) {}
  /// Columns of the target's 4-byte dot-product instruction (0: none).
  int64_t dotLanes;
  LogicalResult matchAndRewrite(MatMulIntegerOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    if (dotLanes > 0)
      if (Value v = dotGroupMatmul(b, loc, op, lhs, rhs, dotLanes)) {
        b.replaceOp(op, v);
        return success();
      }
    bool lu = op.getLhsUnsigned(), ru = op.getRhsUnsigned();
    b.replaceOp(op, batchedMatmulGeneric(b, loc, op.getType(), lhs, rhs,
                                         [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                                           Value p = arith::MulIOp::create(
                                               nb, l, widen(nb, l, a[0], lu), widen(nb, l, a[1], ru));
                                           return arith::AddIOp::create(nb, l, a[2], p);
                                         }));
    return success();
  }
};

} // namespace

void populateIntegerContractionLoweringPatterns(RewritePatternSet &patterns, int64_t dotLanes) {
  patterns.add<MatMulIntegerLowering>(patterns.getContext(), dotLanes);
}

} // namespace dlc::conversion
