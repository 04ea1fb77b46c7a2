// 8-bit integer contractions -> linalg. dlc_graph.matmul_integer and integer conv_nhwc: a
// widening generic (each 8-bit operand extended to i32), or, for constant weights on a
// target with integer dot products, the dot-group form of QUANT-NOTES.md §3.1
// (convolutions: §6, an implicit GEMM with the channels split in groups) over weights
// packed at compile time: 4-byte K groups of u8 x s8 (x86 AVX-512 VNNI), or 2-element
// groups of operands widened to i16 (x86 AVX2 vpmaddwd, exact where vpmaddubsw saturates).
#include "codegen/Conversion/GraphToLinalg/LoweringUtils.h"
#include "codegen/Conversion/GraphToLinalg/Passes.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::conversion {
namespace {

/// `v` (i8 or i16) widened to `to`: zero-extended when it holds unsigned bytes.
Value widen(OpBuilder &b, Location loc, Value v, bool isUnsigned, Type to) {
  return isUnsigned ? Value(arith::ExtUIOp::create(b, loc, to, v))
                    : Value(arith::ExtSIOp::create(b, loc, to, v));
}
Value widen(OpBuilder &b, Location loc, Value v, bool isUnsigned) {
  return widen(b, loc, v, isUnsigned, b.getI32Type());
}

/// The element type of the dot-group operands: bytes for 4-byte groups, i16 otherwise.
Type operandType(OpBuilder &b, const DotForm &form) {
  return form.wide() ? Type(b.getI16Type()) : Type(b.getI8Type());
}

/// 8-bit `x` as the dot-group form's activations: i16 (sign- or zero-extended) for the wide
/// form; as it is for 4-byte groups (the caller made it unsigned).
Value formActivations(OpBuilder &b, Location loc, Value x, bool isUnsigned, const DotForm &form) {
  if (!form.wide())
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  return buildElementwise(b, loc, type.clone(b.getI16Type()), {x},
                          [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                            return widen(nb, l, a[0], isUnsigned, nb.getI16Type());
                          });
}

/// The constant `values` as a tensor of `shape` in the form's operand type.
Value packedConstant(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, ArrayRef<int8_t> values,
                     const DotForm &form) {
  if (!form.wide())
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(RankedTensorType::get(shape, b.getI8Type()), values));
  std::vector<int16_t> wide(values.begin(), values.end());
  return arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get(shape, b.getI16Type()), ArrayRef<int16_t>(wide)));
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

/// Activations [..., M, K] (the form's operand type: u8 bytes, or i16) x constant s8 `w`
/// ([K, N] row-major) in the dot-group form, into `type` ([..., M, N] i32): the weights
/// packed as [N/L][KG/G][L][G] (L lanes, G per group; K padded with zero rows to KG, N with
/// zero columns), then groupedContraction.
Value dotGroupProduct(OpBuilder &b, Location loc, RankedTensorType type, Value lhs,
                      ArrayRef<int8_t> w, int64_t k, int64_t n, const DotForm &form) {
  int64_t lanes = form.lanes, group = form.group;
  int64_t kg = llvm::alignTo(k, group), np = llvm::alignTo(n, lanes);
  Type i32 = b.getI32Type();
  Value weights = packedConstant(b, loc, {np / lanes, kg / group, lanes, group},
                                 packGroupedRows(w, k, n, lanes, group), form);
  return groupedContraction(
      b, loc, type, lhs, weights, k, lanes, group, i32,
      [&](OpBuilder &nb, Location l, ValueRange x) -> Value {
        Value p = arith::MulIOp::create(nb, l, widen(nb, l, x[0], !form.wide()),
                                        widen(nb, l, x[1], false));
        return arith::AddIOp::create(nb, l, x[2], p);
      });
}

/// [..., M, K] (8-bit) x constant [K, N] in the dot-group form (dotGroupProduct). For
/// 4-byte groups signed activations are made unsigned (x ^ 0x80 = x + 128) and
/// 128 * colsum(w) subtracted after; the wide form widens them as they are. Returns null
/// when the op does not fit.
Value dotGroupMatmul(OpBuilder &b, Location loc, MatMulIntegerOp op, Value lhs, Value rhs,
                     const DotForm &form) {
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
  if (n < form.lanes / 2 || k < form.group)
    return {};
  bool shifted = !op.getLhsUnsigned() && !form.wide();
  if (shifted)
    lhs = shiftToUnsigned(b, loc, lhs);
  lhs = formActivations(b, loc, lhs, op.getLhsUnsigned(), form);
  Value result = dotGroupProduct(b, loc, type, lhs, *w, k, n, form);
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

/// The input of an integer conv_nhwc as the form's activations, padded: spatially with
/// the padding value, channels with it up to `cg` (where the weights are zero). For 4-byte
/// groups it is made unsigned first (x ^ 0x80 when signed, the padding value with it); the
/// wide form widens the padded bytes to i16.
Value paddedActivations(OpBuilder &b, Location loc, ConvNhwcOp op, Value x, int64_t cg,
                        const DotForm &form) {
  auto pads = op.getPads();
  int64_t pad = padByte(op), c = cast<RankedTensorType>(x.getType()).getDimSize(3);
  if (!op.getInputUnsigned() && !form.wide()) {
    x = shiftToUnsigned(b, loc, x);
    pad ^= 0x80;
  }
  x = padConstant(b, loc, x, {0, pads[0], pads[1], 0}, {0, pads[2], pads[3], cg - c},
                  arith::ConstantIntOp::create(b, loc, b.getI8Type(), int8_t(pad)));
  return formActivations(b, loc, x, op.getInputUnsigned(), form);
}

/// Implicit GEMM (stride 1, or a strided 1x1 on the strided pixels) over the padded
/// activations `x` (paddedActivations) viewed [N, Hp, Wp, CG/G, G] and the weights packed
/// [F/L][KH][KW][CG/G][L][G]; loops (n, oh, ow, f1, f0, kh, kw, c1, c0).
Value implicitDotGroupConv(OpBuilder &b, Location loc, ConvNhwcOp op, Value x,
                           ArrayRef<int8_t> w, ArrayRef<int64_t> ws, const DotForm &form) {
  auto type = op.getType();
  auto st = op.getStrides(), dil = op.getDilations();
  int64_t lanes = form.lanes, group = form.group;
  int64_t kh = ws[0], kw = ws[1], c = ws[2], f = ws[3];
  int64_t cg = llvm::alignTo(c, group), fp = llvm::alignTo(f, lanes);
  Type i32 = b.getI32Type();
  Value weights = packedConstant(b, loc, {fp / lanes, kh, kw, cg / group, lanes, group},
                                 packGroupedFilters(w, ws, lanes, group), form);
  // (A strided conv here is 1x1: a 1x1 conv of the strided pixels.)
  x = stridedPixels(b, loc, x, type.getDimSize(1), type.getDimSize(2), st);
  return groupedConvolution(
      b, loc, type, x, weights, dil, lanes, group, i32,
      [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
        Value p = arith::MulIOp::create(nb, l, widen(nb, l, v[0], !form.wide()),
                                        widen(nb, l, v[1], false));
        return arith::AddIOp::create(nb, l, v[2], p);
      });
}

/// Any other conv (strided windows, the stem) through im2col: the windows of the padded
/// activations `x` copied out as [N, OH, OW, KH, KW, CG] (one row of K = KH*KW*CG elements
/// per output pixel), then the dot-group product with the weights as [K, F].
Value im2colDotGroupConv(OpBuilder &b, Location loc, ConvNhwcOp op, Value x,
                         ArrayRef<int8_t> w, ArrayRef<int64_t> ws, const DotForm &form) {
  auto type = op.getType();
  auto st = op.getStrides(), dil = op.getDilations();
  int64_t kh = ws[0], kw = ws[1], c = ws[2], f = ws[3], cg = llvm::alignTo(c, form.group);
  auto os = type.getShape();
  Type elt = operandType(b, form);
  Value windows = im2colWindows(b, loc, x, os, kh, kw, st, dil); // x has CG channels
  int64_t k = kh * kw * cg;
  Value cols = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({os[0], os[1], os[2], k}, elt), windows,
      {{0}, {1}, {2}, {3, 4, 5}});
  std::vector<int8_t> rows(k * f, 0); // [KH][KW][C4][F], zero beyond C
  for (int64_t t = 0; t < kh * kw; ++t)
    for (int64_t chn = 0; chn < c; ++chn)
      std::memcpy(&rows[(t * cg + chn) * f], &w[(t * c + chn) * f], f);
  return dotGroupProduct(b, loc, type, cols, rows, k, f, form);
}

/// Integer conv_nhwc (group 1, constant weights) in the dot-group form: the input padded
/// (paddedActivations), then an implicit GEMM or im2col; signed activations shifted to
/// unsigned subtract 128 * (sum of each channel's weights) after. Returns null when it does
/// not fit.
Value dotGroupConv(OpBuilder &b, Location loc, ConvNhwcOp op, Value x, Value w,
                   const DotForm &form) {
  auto ws = cast<RankedTensorType>(w.getType()).getShape(); // KH, KW, C, F
  auto st = op.getStrides();
  DenseElementsAttr dense;
  if (op.getGroup() != 1 || ws[3] < form.lanes / 2 || !matchPattern(w, m_Constant(&dense)))
    return {};
  auto wv = signedWeights(dense, op.getWeightUnsigned());
  if (!wv)
    return {};
  Value act = paddedActivations(b, loc, op, x, llvm::alignTo(ws[2], form.group), form);
  bool implicit = (ws[0] == 1 && ws[1] == 1) || (st[0] == 1 && st[1] == 1);
  Value result = implicit ? implicitDotGroupConv(b, loc, op, act, *wv, ws, form)
                          : im2colDotGroupConv(b, loc, op, act, *wv, ws, form);
  if (op.getInputUnsigned() || form.wide())
    return result;
  // sum (x + 128) w = sum x w + 128 * (sum of the channel's taps), the padding included.
  int64_t f = ws[3];
  std::vector<int32_t> tapSums(f, 0);
  for (size_t t = 0; t < wv->size(); ++t)
    tapSums[t % f] += 128 * (*wv)[t];
  return subtractPerChannel(b, loc, result, tapSums);
}

/// Integer conv_nhwc as a widening generic over the padded input, any strides, dilations
/// and signedness: loops (n, oh, ow, f, kh, kw, c); depthwise (weights [KH, KW, 1, F]),
/// (n, oh, ow, f, kh, kw), channel f reading input channel f.
Value widenedConv(OpBuilder &b, Location loc, ConvNhwcOp op, Value x, Value w) {
  auto type = op.getType();
  auto st = op.getStrides(), dil = op.getDilations(), pads = op.getPads();
  x = padConstant(b, loc, x, {0, pads[0], pads[1], 0}, {0, pads[2], pads[3], 0},
                  arith::ConstantIntOp::create(b, loc, b.getI8Type(), int8_t(padByte(op))));
  MLIRContext *ctx = b.getContext();
  bool depthwise = op.getGroup() != 1;
  unsigned loops = depthwise ? 6 : 7;
  AffineExpr n, oh, ow, f, i, j, c;
  bindDims(ctx, n, oh, ow, f, i, j, c);
  if (depthwise)
    c = getAffineConstantExpr(0, ctx);
  SmallVector<AffineMap> maps = {
      AffineMap::get(loops, 0,
                     {n, oh * st[0] + i * dil[0], ow * st[1] + j * dil[1], depthwise ? f : c},
                     ctx),
      AffineMap::get(loops, 0, {i, j, c, f}, ctx), AffineMap::get(loops, 0, {n, oh, ow, f}, ctx)};
  SmallVector<utils::IteratorType> iters(4, utils::IteratorType::parallel);
  iters.append(loops - 4, utils::IteratorType::reduction);
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

/// Integer depthwise conv_nhwc (group = C = F, weights [KH, KW, 1, F]) with signed weights
/// as linalg's NHWC depthwise conv of signed bytes (which sign-extends both operands; the
/// upstream conv vectorizer runs along the channels): unsigned activations are shifted to
/// signed (x ^ 0x80 = x - 128, the padding value with them) and 128 * (sum of the channel's
/// taps) added back. Returns null for unsigned weights.
Value depthwiseConv(OpBuilder &b, Location loc, ConvNhwcOp op, Value x, Value w) {
  if (op.getWeightUnsigned())
    return {};
  auto type = op.getType();
  auto ws = cast<RankedTensorType>(w.getType()).getShape(); // KH, KW, 1, F
  auto pads = op.getPads();
  int64_t pad = padByte(op);
  bool shift = op.getInputUnsigned();
  if (shift) {
    x = shiftToUnsigned(b, loc, x); // (the same XOR makes unsigned bytes signed)
    pad ^= 0x80;
  }
  x = padConstant(b, loc, x, {0, pads[0], pads[1], 0}, {0, pads[2], pads[3], 0},
                  arith::ConstantIntOp::create(b, loc, b.getI8Type(), int8_t(pad)));
  Type i8 = b.getI8Type(), i32 = b.getI32Type();
  Value hwc = reshapeTensor(b, loc, w, RankedTensorType::get({ws[0], ws[1], ws[3]}, i8));
  Value init = filledTensor(b, loc, type, scalarConstant(b, loc, i32, 0));
  Value y = linalg::DepthwiseConv2DNhwcHwcOp::create(
                b, loc, TypeRange{type}, ValueRange{x, hwc}, ValueRange{init},
                b.getI64TensorAttr(op.getStrides()), b.getI64TensorAttr(op.getDilations()))
                .getResult(0);
  if (!shift)
    return y;
  // + 128 * taps: from the constant weights, or summed at run time.
  DenseElementsAttr dense;
  if (matchPattern(w, m_Constant(&dense))) {
    auto wv = signedWeights(dense, /*rhsUnsigned=*/false);
    std::vector<int32_t> minusTaps(ws[3], 0);
    for (size_t t = 0; t < wv->size(); ++t)
      minusTaps[t % ws[3]] -= 128 * (*wv)[t];
    return subtractPerChannel(b, loc, y, minusTaps);
  }
  MLIRContext *ctx = b.getContext();
  AffineExpr i, j, f;
  bindDims(ctx, i, j, f);
  Value zero = filledTensor(b, loc, RankedTensorType::get({ws[3]}, i32),
                            scalarConstant(b, loc, i32, 0));
  Value taps =
      linalg::GenericOp::create(
          b, loc, TypeRange{zero.getType()}, ValueRange{hwc}, ValueRange{zero},
          SmallVector<AffineMap>{AffineMap::get(3, 0, {i, j, f}, ctx),
                                 AffineMap::get(3, 0, {f}, ctx)},
          SmallVector<utils::IteratorType>{utils::IteratorType::reduction,
                                           utils::IteratorType::reduction,
                                           utils::IteratorType::parallel},
          [&](OpBuilder &nb, Location l, ValueRange v) {
            Value t = arith::ShLIOp::create(nb, l, widen(nb, l, v[0], false),
                                            arith::ConstantIntOp::create(nb, l, i32, 7));
            linalg::YieldOp::create(nb, l, ValueRange{arith::AddIOp::create(nb, l, v[1], t)});
          })
          .getResult(0);
  return buildElementwise(b, loc, type, {y, taps},
                          [](OpBuilder &nb, Location l, ValueRange v) -> Value {
                            return arith::AddIOp::create(nb, l, v[0], v[1]);
                          });
}

struct IntegerConvLowering : OpConversionPattern<ConvNhwcOp> {
  IntegerConvLowering(MLIRContext *ctx, DotForm form) : OpConversionPattern(ctx), form(form) {}
  /// The target's dot-product instruction (lanes 0: none).
  DotForm form;
  LogicalResult matchAndRewrite(ConvNhwcOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    if (!op.getInput().getType().getElementType().isInteger(8))
      return failure();
    Location loc = op.getLoc();
    Value x = adaptor.getInput(), w = adaptor.getWeight();
    if (op.getGroup() != 1) {
      if (Value v = depthwiseConv(b, loc, op, x, w)) {
        b.replaceOp(op, v);
        return success();
      }
      b.replaceOp(op, widenedConv(b, loc, op, x, w));
      return success();
    }
    if (form.lanes > 0)
      if (Value v = dotGroupConv(b, loc, op, x, w, form)) {
        b.replaceOp(op, v);
        return success();
      }
    b.replaceOp(op, widenedConv(b, loc, op, x, w));
    return success();
  }
};

struct MatMulIntegerLowering : OpConversionPattern<MatMulIntegerOp> {
  MatMulIntegerLowering(MLIRContext *ctx, DotForm form) : OpConversionPattern(ctx), form(form) {}
  /// The target's dot-product instruction (lanes 0: none).
  DotForm form;
  LogicalResult matchAndRewrite(MatMulIntegerOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    if (form.lanes > 0)
      if (Value v = dotGroupMatmul(b, loc, op, lhs, rhs, form)) {
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

void populateIntegerContractionLoweringPatterns(RewritePatternSet &patterns, DotForm form) {
  patterns.add<MatMulIntegerLowering, IntegerConvLowering>(patterns.getContext(), form);
}

} // namespace dlc::conversion
