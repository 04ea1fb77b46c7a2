// 8-bit integer contractions -> linalg. dlc_graph.matmul_integer and integer conv_nhwc: a
// widening generic (each 8-bit operand extended to i32), or, for constant weights on a
// target with 4-byte dot products (x86 VNNI), the dot-group form of QUANT-NOTES.md §3.1
// (convolutions: §6, an implicit GEMM with the channels split in groups of 4) over
// weights packed at compile time.
#include "codegen/Conversion/GraphToLinalg/LoweringUtils.h"
#include "codegen/Conversion/GraphToLinalg/Passes.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

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

/// Signed 8-bit activations made unsigned (x ^ 0x80 = x + 128), elementwise.
Value shiftToUnsigned(OpBuilder &b, Location loc, Value x) {
  return buildElementwise(b, loc, cast<RankedTensorType>(x.getType()), {x},
                          [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                            Value bit = arith::ConstantIntOp::create(nb, l, nb.getI8Type(), 0x80);
                            return arith::XOrIOp::create(nb, l, a[0], bit);
                          });
}

/// `acc` [..., F] minus `perChannel` [F] (a constant), elementwise.
Value subtractPerChannel(OpBuilder &b, Location loc, Value acc, ArrayRef<int32_t> perChannel) {
  auto type = cast<RankedTensorType>(acc.getType());
  Value c = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({int64_t(perChannel.size())}, b.getI32Type()),
                             perChannel));
  return buildElementwise(b, loc, type, {acc, c},
                          [](OpBuilder &nb, Location l, ValueRange x) -> Value {
                            return arith::SubIOp::create(nb, l, x[0], x[1]);
                          });
}

/// u8 [..., M, K] x constant s8 `w` ([K, N] row-major) in the dot-group form, into
/// `type` ([..., M, N] i32): the weights packed as [N/L][K4/4][L][4] (L = `lanes` columns,
/// K padded with zero rows to K4, N with zero columns), the activations padded to K4 and
/// viewed [..., M, K4/4, 4]; loops (rows..., n1, n0, k1, k0).
Value dotGroupProduct(OpBuilder &b, Location loc, RankedTensorType type, Value lhs,
                      ArrayRef<int8_t> w, int64_t k, int64_t n, int64_t lanes) {
  auto ls = cast<RankedTensorType>(lhs.getType()).getShape();
  int64_t k4 = llvm::alignTo(k, kGroup), np = llvm::alignTo(n, lanes);
  Type i8 = b.getI8Type(), i32 = b.getI32Type();
  std::vector<int8_t> packed(np * k4, 0);
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t c = 0; c < n; ++c)
      packed[(((c / lanes) * (k4 / kGroup) + kk / kGroup) * lanes + c % lanes) * kGroup +
             kk % kGroup] = w[kk * n + c];
  auto packedType = RankedTensorType::get({np / lanes, k4 / kGroup, lanes, kGroup}, i8);
  Value weights = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(packedType, ArrayRef<int8_t>(packed)));
  int64_t rank = type.getRank();
  if (k4 != k) { // (the padded weights are 0)
    SmallVector<int64_t> lo(rank, 0), hi(rank, 0);
    hi.back() = k4 - k;
    lhs = padConstant(b, loc, lhs, lo, hi, scalarConstant(b, loc, i8, 0));
  }
  SmallVector<int64_t> grouped(ls.drop_back());
  grouped.append({k4 / kGroup, kGroup});
  SmallVector<ReassociationIndices> lastSplit;
  for (int64_t d = 0; d < rank - 1; ++d)
    lastSplit.push_back({d});
  lastSplit.push_back({rank - 1, rank});
  Value a = tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(grouped, i8), lhs,
                                          lastSplit);
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
  SmallVector<int64_t> paddedShape(type.getShape());
  paddedShape.back() = np;
  Value result = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get(paddedShape, i32), generic.getResult(0), lastSplit);
  if (np == n)
    return result;
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), strides(rank, b.getIndexAttr(1)),
      sizes;
  for (int64_t d : type.getShape())
    sizes.push_back(b.getIndexAttr(d));
  return tensor::ExtractSliceOp::create(b, loc, type, result, offsets, sizes, strides);
}

/// [..., M, K] (8-bit) x constant [K, N] in the dot-group form (dotGroupProduct). Signed
/// activations are made unsigned (x ^ 0x80 = x + 128) and 128 * colsum(w) subtracted
/// after. Returns null when the op does not fit.
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
  int64_t k = rs[0], n = rs[1];
  // Too little work per column block to pay for padding a narrow product.
  if (n < lanes / 2 || k < kGroup)
    return {};
  bool shifted = !op.getLhsUnsigned();
  if (shifted)
    lhs = shiftToUnsigned(b, loc, lhs);
  Value result = dotGroupProduct(b, loc, type, lhs, *w, k, n, lanes);
  if (!shifted)
    return result;
  // sum (x + 128) w = sum x w + 128 colsum(w): subtract the second term per column.
  std::vector<int32_t> colsum(n, 0);
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t c = 0; c < n; ++c)
      colsum[c] += 128 * (*w)[kk * n + c];
  return subtractPerChannel(b, loc, result, colsum);
}

/// The padding byte of an integer conv: its pad_value (the activations' zero point).
int64_t padByte(ConvNhwcOp op) { return op.getPadValue() ? int64_t(*op.getPadValue()) : 0; }

/// The input of an integer conv_nhwc made unsigned (x ^ 0x80 when signed, the padding
/// value with it) and padded: spatially with the padding value, channels with it up to
/// `c4` (where the weights are zero).
Value paddedBytes(OpBuilder &b, Location loc, ConvNhwcOp op, Value x, int64_t c4) {
  auto pads = op.getPads();
  int64_t pad = padByte(op), c = cast<RankedTensorType>(x.getType()).getDimSize(3);
  if (!op.getInputUnsigned()) {
    x = shiftToUnsigned(b, loc, x);
    pad ^= 0x80;
  }
  return padConstant(b, loc, x, {0, pads[0], pads[1], 0}, {0, pads[2], pads[3], c4 - c},
                     arith::ConstantIntOp::create(b, loc, b.getI8Type(), int8_t(pad)));
}

/// Implicit GEMM (stride 1, or a strided 1x1 on the strided pixels) over the padded
/// unsigned input `x` viewed [N, Hp, Wp, C4/4, 4] and the weights packed
/// [F/L][KH][KW][C4/4][L][4]; loops (n, oh, ow, f1, f0, kh, kw, c1, c0).
Value implicitDotGroupConv(OpBuilder &b, Location loc, ConvNhwcOp op, Value x,
                           ArrayRef<int8_t> w, ArrayRef<int64_t> ws, int64_t lanes) {
  auto type = op.getType();
  auto st = op.getStrides(), dil = op.getDilations();
  int64_t kh = ws[0], kw = ws[1], c = ws[2], f = ws[3];
  int64_t c4 = llvm::alignTo(c, kGroup), fp = llvm::alignTo(f, lanes);
  Type i8 = b.getI8Type(), i32 = b.getI32Type();
  std::vector<int8_t> packed(fp * kh * kw * c4, 0);
  for (int64_t i = 0; i < kh; ++i)
    for (int64_t j = 0; j < kw; ++j)
      for (int64_t ch = 0; ch < c; ++ch)
        for (int64_t o = 0; o < f; ++o) {
          int64_t at = ((((o / lanes) * kh + i) * kw + j) * (c4 / kGroup) + ch / kGroup) * lanes;
          packed[(at + o % lanes) * kGroup + ch % kGroup] = w[((i * kw + j) * c + ch) * f + o];
        }
  auto packedType = RankedTensorType::get({fp / lanes, kh, kw, c4 / kGroup, lanes, kGroup}, i8);
  Value weights = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(packedType, ArrayRef<int8_t>(packed)));
  if (st[0] != 1 || st[1] != 1) { // a strided 1x1 conv is a 1x1 conv of the strided pixels
    auto xs = cast<RankedTensorType>(x.getType()).getShape();
    auto sliced = RankedTensorType::get({xs[0], type.getDimSize(1), type.getDimSize(2), xs[3]}, i8);
    SmallVector<OpFoldResult> off(4, b.getIndexAttr(0)), sizes, steps;
    for (int64_t d : sliced.getShape())
      sizes.push_back(b.getIndexAttr(d));
    for (int64_t s : {int64_t(1), st[0], st[1], int64_t(1)})
      steps.push_back(b.getIndexAttr(s));
    x = tensor::ExtractSliceOp::create(b, loc, sliced, x, off, sizes, steps);
  }
  auto xs = cast<RankedTensorType>(x.getType()).getShape();
  Value a = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({xs[0], xs[1], xs[2], c4 / kGroup, kGroup}, i8), x,
      {{0}, {1}, {2}, {3, 4}});
  MLIRContext *ctx = b.getContext();
  AffineExpr n, oh, ow, f1, f0, i, j, c1, c0;
  bindDims(ctx, n, oh, ow, f1, f0, i, j, c1, c0);
  SmallVector<AffineMap> maps = {
      AffineMap::get(9, 0, {n, oh + i * dil[0], ow + j * dil[1], c1, c0}, ctx),
      AffineMap::get(9, 0, {f1, i, j, c1, f0, c0}, ctx),
      AffineMap::get(9, 0, {n, oh, ow, f1, f0}, ctx)};
  SmallVector<utils::IteratorType> iters(5, utils::IteratorType::parallel);
  iters.append(4, utils::IteratorType::reduction);
  auto os = type.getShape();
  auto out = RankedTensorType::get({os[0], os[1], os[2], fp / lanes, lanes}, i32);
  Value init = filledTensor(b, loc, out, scalarConstant(b, loc, i32, 0));
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{out}, ValueRange{a, weights}, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location l, ValueRange v) {
        Value p = arith::MulIOp::create(nb, l, widen(nb, l, v[0], true), widen(nb, l, v[1], false));
        linalg::YieldOp::create(nb, l, ValueRange{arith::AddIOp::create(nb, l, v[2], p)});
      });
  Value result = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({os[0], os[1], os[2], fp}, i32), generic.getResult(0),
      {{0}, {1}, {2}, {3, 4}});
  if (fp == f)
    return result;
  SmallVector<OpFoldResult> offsets(4, b.getIndexAttr(0)), strides(4, b.getIndexAttr(1)), sizes;
  for (int64_t d : os)
    sizes.push_back(b.getIndexAttr(d));
  return tensor::ExtractSliceOp::create(b, loc, type, result, offsets, sizes, strides);
}

/// Any other conv (strided windows, the stem) through im2col: the windows of the padded
/// unsigned input `x` copied out as [N, OH, OW, KH, KW, C4] (one row of K = KH*KW*C4 bytes
/// per output pixel), then the dot-group product with the weights as [K, F].
Value im2colDotGroupConv(OpBuilder &b, Location loc, ConvNhwcOp op, Value x,
                         ArrayRef<int8_t> w, ArrayRef<int64_t> ws, int64_t lanes) {
  auto type = op.getType();
  auto st = op.getStrides(), dil = op.getDilations();
  int64_t kh = ws[0], kw = ws[1], c = ws[2], f = ws[3], c4 = llvm::alignTo(c, kGroup);
  auto os = type.getShape();
  Type i8 = b.getI8Type();
  MLIRContext *ctx = b.getContext();
  AffineExpr n, oh, ow, i, j, ch;
  bindDims(ctx, n, oh, ow, i, j, ch);
  auto colsType = RankedTensorType::get({os[0], os[1], os[2], kh, kw, c4}, i8);
  SmallVector<AffineMap> maps = {
      AffineMap::get(6, 0, {n, oh * st[0] + i * dil[0], ow * st[1] + j * dil[1], ch}, ctx),
      AffineMap::getMultiDimIdentityMap(6, ctx)};
  SmallVector<utils::IteratorType> iters(6, utils::IteratorType::parallel);
  auto copy = linalg::GenericOp::create(
      b, loc, TypeRange{colsType}, ValueRange{x}, ValueRange{emptyTensor(b, loc, colsType)},
      maps, iters, [](OpBuilder &nb, Location l, ValueRange v) {
        linalg::YieldOp::create(nb, l, ValueRange{v[0]});
      });
  int64_t k = kh * kw * c4;
  Value cols = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({os[0], os[1], os[2], k}, i8), copy.getResult(0),
      {{0}, {1}, {2}, {3, 4, 5}});
  std::vector<int8_t> rows(k * f, 0); // [KH][KW][C4][F], zero beyond C
  for (int64_t t = 0; t < kh * kw; ++t)
    for (int64_t chn = 0; chn < c; ++chn)
      std::memcpy(&rows[(t * c4 + chn) * f], &w[(t * c + chn) * f], f);
  return dotGroupProduct(b, loc, type, cols, rows, k, f, lanes);
}

/// Integer conv_nhwc (group 1, constant weights) in the dot-group form: the input made
/// unsigned and padded (paddedBytes), then an implicit GEMM or im2col; signed activations
/// subtract 128 * (sum of each channel's weights) after. Returns null when it does not fit.
Value dotGroupConv(OpBuilder &b, Location loc, ConvNhwcOp op, Value x, Value w, int64_t lanes) {
  auto ws = cast<RankedTensorType>(w.getType()).getShape(); // KH, KW, C, F
  auto st = op.getStrides();
  DenseElementsAttr dense;
  if (op.getGroup() != 1 || ws[3] < lanes / 2 || !matchPattern(w, m_Constant(&dense)))
    return {};
  auto wv = signedWeights(dense, op.getWeightUnsigned());
  if (!wv)
    return {};
  Value bytes = paddedBytes(b, loc, op, x, llvm::alignTo(ws[2], kGroup));
  bool implicit = (ws[0] == 1 && ws[1] == 1) || (st[0] == 1 && st[1] == 1);
  Value result = implicit ? implicitDotGroupConv(b, loc, op, bytes, *wv, ws, lanes)
                          : im2colDotGroupConv(b, loc, op, bytes, *wv, ws, lanes);
  if (op.getInputUnsigned())
    return result;
  // sum (x + 128) w = sum x w + 128 * (sum of the channel's taps), the padding included.
  int64_t f = ws[3];
  std::vector<int32_t> tapSums(f, 0);
  for (size_t t = 0; t < wv->size(); ++t)
    tapSums[t % f] += 128 * (*wv)[t];
  return subtractPerChannel(b, loc, result, tapSums);
}

/// Integer conv_nhwc as a widening generic over the padded input: loops (n, oh, ow, f,
/// kh, kw, c), any strides and dilations.
Value widenedConv(OpBuilder &b, Location loc, ConvNhwcOp op, Value x, Value w) {
  auto type = op.getType();
  auto st = op.getStrides(), dil = op.getDilations(), pads = op.getPads();
  x = padConstant(b, loc, x, {0, pads[0], pads[1], 0}, {0, pads[2], pads[3], 0},
                  arith::ConstantIntOp::create(b, loc, b.getI8Type(), int8_t(padByte(op))));
  MLIRContext *ctx = b.getContext();
  AffineExpr n, oh, ow, f, i, j, c;
  bindDims(ctx, n, oh, ow, f, i, j, c);
  SmallVector<AffineMap> maps = {
      AffineMap::get(7, 0, {n, oh * st[0] + i * dil[0], ow * st[1] + j * dil[1], c}, ctx),
      AffineMap::get(7, 0, {i, j, c, f}, ctx), AffineMap::get(7, 0, {n, oh, ow, f}, ctx)};
  SmallVector<utils::IteratorType> iters(4, utils::IteratorType::parallel);
  iters.append(3, utils::IteratorType::reduction);
  Value init = filledTensor(b, loc, type, scalarConstant(b, loc, b.getI32Type(), 0));
  bool xu = op.getInputUnsigned(), wu = op.getWeightUnsigned();
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, ValueRange{x, w}, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location l, ValueRange v) {
        Value p = arith::MulIOp::create(nb, l, widen(nb, l, v[0], xu), widen(nb, l, v[1], wu));
        linalg::YieldOp::create(nb, l, ValueRange{arith::AddIOp::create(nb, l, v[2], p)});
      });
  return generic.getResult(0);
}

struct IntegerConvLowering : OpConversionPattern<ConvNhwcOp> {
  IntegerConvLowering(MLIRContext *ctx, int64_t dotLanes)
      : OpConversionPattern(ctx), dotLanes(dotLanes) {}
  /// Columns of the target's 4-byte dot-product instruction (0: none).
  int64_t dotLanes;
  LogicalResult matchAndRewrite(ConvNhwcOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    if (!op.getInput().getType().getElementType().isInteger(8))
      return failure();
    Location loc = op.getLoc();
    Value x = adaptor.getInput(), w = adaptor.getWeight();
    if (dotLanes > 0)
      if (Value v = dotGroupConv(b, loc, op, x, w, dotLanes)) {
        b.replaceOp(op, v);
        return success();
      }
    b.replaceOp(op, widenedConv(b, loc, op, x, w));
    return success();
  }
};

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
  patterns.add<MatMulIntegerLowering, IntegerConvLowering>(patterns.getContext(), dotLanes);
}

} // namespace dlc::conversion
