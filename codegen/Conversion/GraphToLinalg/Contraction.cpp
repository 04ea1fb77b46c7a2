// Contractions: dlc_graph.matmul -> linalg.matmul/generic, dlc_graph.conv -> named NCHW convs.
#include "codegen/Conversion/GraphToLinalg/LoweringUtils.h"
#include "codegen/Conversion/GraphToLinalg/Passes.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::conversion {
namespace {

/// acc + x * y; a narrower float `y` (bf16 weights, narrowedWeights) is widened first.
Value multiplyAdd(OpBuilder &b, Location loc, Value x, Value y, Value acc) {
  if (isa<FloatType>(x.getType())) {
    if (y.getType() != x.getType())
      y = arith::ExtFOp::create(b, loc, x.getType(), y);
    return arith::AddFOp::create(b, loc, acc, arith::MulFOp::create(b, loc, x, y));
  }
  return arith::AddIOp::create(b, loc, acc, arith::MulIOp::create(b, loc, x, y));
}

/// The extents (k - 1) * dilation + 1 of the kernel dims `kh`, `kw`.
SmallVector<int64_t> kernelSpans(int64_t kh, int64_t kw, ArrayRef<int64_t> dilations) {
  return {(kh - 1) * dilations[0] + 1, (kw - 1) * dilations[1] + 1};
}

/// Depthwise NCHW convolution as a sum over filter taps: for each (kh, kw) a
/// strided view of the padded input times that tap's per-channel weight, all in
/// one elementwise linalg.generic. Upstream has no vectorizer for NCHW
/// depthwise convolutions; this form vectorizes along the output width.
Value depthwiseAsTapSum(OpBuilder &b, Location loc, ConvOp op, Value x, Value w, Value init) {
  auto type = op.getType();
  auto wShape = cast<RankedTensorType>(w.getType()).getShape();
  int64_t f = wShape[0], kh = wShape[2], kw = wShape[3];
  auto strides = op.getStrides(), dil = op.getDilations();
  Type elt = type.getElementType();
  Value w2 = reshapeTensor(b, loc, w, RankedTensorType::get({f, kh * kw}, elt));
  auto viewType = RankedTensorType::get(type.getShape(), elt);
  auto tapType = RankedTensorType::get({f, 1, 1}, elt);
  SmallVector<Value> inputs = {init};
  for (int64_t i = 0; i < kh; ++i) {
    for (int64_t j = 0; j < kw; ++j) {
      SmallVector<OpFoldResult> off = {b.getIndexAttr(0), b.getIndexAttr(0),
                                       b.getIndexAttr(i * dil[0]), b.getIndexAttr(j * dil[1])};
      SmallVector<OpFoldResult> steps = {b.getIndexAttr(1), b.getIndexAttr(1),
                                         b.getIndexAttr(strides[0]), b.getIndexAttr(strides[1])};
      SmallVector<OpFoldResult> sizes =
          windowSizes(b, loc, type, x, 2, 2, kernelSpans(kh, kw, dil), strides);
      inputs.push_back(tensor::ExtractSliceOp::create(b, loc, viewType, x, off, sizes, steps));
      SmallVector<OpFoldResult> woff = {b.getIndexAttr(0), b.getIndexAttr(i * kw + j)};
      SmallVector<OpFoldResult> wsizes = {b.getIndexAttr(f), b.getIndexAttr(1)};
      SmallVector<OpFoldResult> wsteps = {b.getIndexAttr(1), b.getIndexAttr(1)};
      Value tap = tensor::ExtractSliceOp::create(b, loc, RankedTensorType::get({f, 1}, elt), w2,
                                                 woff, wsizes, wsteps);
      inputs.push_back(reshapeTensor(b, loc, tap, tapType));
    }
  }
  return buildElementwise(b, loc, type, inputs, [](OpBuilder &nb, Location l, ValueRange a) {
    Value acc = a[0];
    for (size_t t = 1; t + 1 < a.size(); t += 2)
      acc = multiplyAdd(nb, l, a[t], a[t + 1], acc);
    return acc;
  });
}

/// The bf16 values of `w`, an f32 constant (not a splat) whose every value is exactly a
/// bf16 (rounded by --precision=bf16, or weights trained in bf16); none otherwise.
std::optional<std::vector<uint16_t>> exactBf16(Value w) {
  DenseElementsAttr dense;
  auto type = dyn_cast<RankedTensorType>(w.getType());
  if (!type || !type.getElementType().isF32() || !matchPattern(w, m_Constant(&dense)) ||
      dense.isSplat())
    return std::nullopt;
  ArrayRef<char> raw = dense.getRawData();
  std::vector<uint16_t> out(raw.size() / 4);
  for (size_t i = 0; i < out.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, raw.data() + 4 * i, 4);
    if (bits & 0xffffu)
      return std::nullopt;
    out[i] = uint16_t(bits >> 16);
  }
  return out;
}

/// A bf16 constant of `shape` holding `values` (bit patterns).
Value bf16Constant(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   ArrayRef<uint16_t> values) {
  return rawConstant(b, loc, shape, b.getBF16Type(), values);
}

/// `w` as a bf16 constant when its values are all exactly bf16 (exactBf16): the same
/// values in half the bytes, widened in the kernel (a shift). Else `w` as it is.
Value narrowedWeights(OpBuilder &b, Location loc, Value w) {
  auto values = exactBf16(w);
  if (!values)
    return w;
  return bf16Constant(b, loc, cast<RankedTensorType>(w.getType()).getShape(), *values);
}

/// `v` (f32) rounded to bf16, elementwise.
Value toBf16(OpBuilder &b, Location loc, Value v) {
  Type bf16 = b.getBF16Type();
  return buildElementwise(b, loc, cast<RankedTensorType>(v.getType()).clone(bf16), {v},
                          [&](OpBuilder &nb, Location l, ValueRange x) -> Value {
                            return arith::TruncFOp::create(nb, l, bf16, x[0]);
                          });
}

/// The bf16 dot form's body: acc + a * w, both bf16 operands widened to f32.
Value bf16Product(OpBuilder &b, Location loc, ValueRange x) {
  Type f32 = b.getF32Type();
  Value p = arith::MulFOp::create(b, loc, arith::ExtFOp::create(b, loc, f32, x[0]),
                                  arith::ExtFOp::create(b, loc, f32, x[1]));
  return arith::AddFOp::create(b, loc, x[2], p);
}

/// [..., M, K] x constant [K, N] whose values are exactly bf16 (`w`, row-major) in the bf16
/// dot form (AVX512-BF16 vdpbf16ps, QUANT-NOTES.md §3.5): weights packed as
/// [NP/L][KG/2][L][2] bf16 (zero-padded), the activations rounded to bf16 (exact after
/// --precision=bf16's rounding), products of pairs accumulated in f32 (groupedContraction).
Value bf16DotMatmul(OpBuilder &b, Location loc, RankedTensorType type, Value lhs,
                    ArrayRef<uint16_t> w, int64_t k, int64_t n, int64_t lanes) {
  int64_t kg = llvm::alignTo(k, 2), np = llvm::alignTo(n, lanes);
  Value weights =
      bf16Constant(b, loc, {np / lanes, kg / 2, lanes, 2}, packGroupedRows(w, k, n, lanes, 2));
  return groupedContraction(b, loc, type, toBf16(b, loc, lhs), weights, k, lanes, 2,
                            b.getF32Type(), bf16Product);
}

/// How weights that are exactly bf16 are lowered (--precision=bf16; the pass options
/// bf16-weights and bf16-dot-lanes).
struct Bf16Weights {
  /// Packed weights stored as bf16 and widened in the f32 kernels (narrowedWeights).
  bool stored = false;
  /// With `stored`: columns of the target's bf16 dot product (16: AVX512-BF16; 0: none).
  int64_t dotLanes = 0;
  /// The bf16 values of `w` when the dot form takes it; none otherwise.
  std::optional<std::vector<uint16_t>> dotValues(Value w) const {
    if (!stored || dotLanes <= 0)
      return std::nullopt;
    return exactBf16(w);
  }
};

/// Output channels per packed weight block: the target's register tile width
/// (`packBlock`, the pass option), or half or a quarter of it, down to 8.
int64_t channelBlock(int64_t f, int64_t packBlock) {
  for (int64_t fb = packBlock; fb >= 8; fb /= 2)
    if (f % fb == 0)
      return fb;
  return f;
}

/// Columns at or beyond which a count that the block does not divide is padded up to a
/// multiple of it (under 12.5 % more work) rather than packed in smaller blocks.
constexpr int64_t kMinPaddedColumns = 256;

/// The constant `dense` ([K, N], row-major) with zero columns appended up to `np`.
Value padColumns(OpBuilder &b, Location loc, DenseElementsAttr dense, int64_t np) {
  auto type = cast<RankedTensorType>(dense.getType());
  int64_t k = type.getDimSize(0), n = type.getDimSize(1);
  auto to = RankedTensorType::get({k, np}, type.getElementType());
  size_t width = type.getElementTypeBitWidth() / 8;
  std::vector<char> out(k * np * width, 0);
  if (dense.isSplat()) {
    ArrayRef<char> one = dense.getRawData();
    for (int64_t r = 0; r < k; ++r)
      for (int64_t c = 0; c < n; ++c)
        std::memcpy(out.data() + (r * np + c) * width, one.data(), width);
  } else {
    ArrayRef<char> src = dense.getRawData();
    for (int64_t r = 0; r < k; ++r)
      std::memcpy(out.data() + r * np * width, src.data() + r * n * width, n * width);
  }
  return arith::ConstantOp::create(b, loc, DenseElementsAttr::getFromRawBuffer(to, out));
}

/// [..., M, K] x constant [K, N] with B packed at compile time as [N/NB][K][NB] (one
/// register tile's columns contiguous over all of K, CPU-GEMM-NOTES variant c2):
/// loops (batch..., m, n1, n0, k), the result viewed as [..., M, N/NB, NB]. Wide N
/// that 32 does not divide (1000 classes) is padded with zero columns to whole
/// blocks of 32, and the product sliced back to N. With `narrow`, weights that are all
/// exactly bf16 are stored as bf16 (narrowedWeights).
Value packedMatmul(OpBuilder &b, Location loc, RankedTensorType type, Value lhs, Value rhs,
                   int64_t packBlock, bool narrow = false) {
  Type elt = type.getElementType();
  auto rs = cast<RankedTensorType>(rhs.getType()).getShape();
  int64_t k = rs[0], n = rs[1], nb = channelBlock(n, packBlock);
  RankedTensorType resultType = type;
  if (n % packBlock != 0 && n >= kMinPaddedColumns) {
    DenseElementsAttr dense;
    if (!matchPattern(rhs, m_Constant(&dense)))
      return {};
    n = llvm::divideCeil(n, packBlock) * packBlock;
    nb = packBlock;
    rhs = padColumns(b, loc, dense, n);
    SmallVector<int64_t> padded(type.getShape());
    padded.back() = n;
    type = RankedTensorType::get(padded, elt);
  }
  if (narrow)
    rhs = narrowedWeights(b, loc, rhs);
  Type welt = cast<RankedTensorType>(rhs.getType()).getElementType();
  Value packed = permuteTensor(
      b, loc, reshapeTensor(b, loc, rhs, RankedTensorType::get({k, n / nb, nb}, welt)),
      {1, 0, 2});
  int64_t rank = type.getRank(), nd = rank + 2; // loops: rank - 1 row dims, n1, n0, k
  SmallVector<int64_t> outShape(type.getShape().drop_back());
  outShape.append({n / nb, nb});
  auto out = RankedTensorType::get(outShape, elt);
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> rows, lhsExprs, outExprs;
  for (int64_t d = 0; d < rank - 1; ++d)
    rows.push_back(getAffineDimExpr(d, ctx));
  AffineExpr n1 = getAffineDimExpr(rank - 1, ctx), n0 = getAffineDimExpr(rank, ctx),
             kd = getAffineDimExpr(rank + 1, ctx);
  lhsExprs.append(rows);
  lhsExprs.push_back(kd);
  outExprs.append(rows);
  outExprs.append({n1, n0});
  SmallVector<AffineMap> maps = {AffineMap::get(nd, 0, lhsExprs, ctx),
                                 AffineMap::get(nd, 0, {n1, kd, n0}, ctx),
                                 AffineMap::get(nd, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> iters(nd - 1, utils::IteratorType::parallel);
  iters.push_back(utils::IteratorType::reduction);
  SmallVector<OpFoldResult> outSizes = tensor::getMixedSizes(b, loc, lhs);
  outSizes.pop_back();
  outSizes.append({b.getIndexAttr(n / nb), b.getIndexAttr(nb)});
  Value init = filledTensor(b, loc, out, scalarConstant(b, loc, elt, 0), outSizes);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{out}, ValueRange{lhs, packed}, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb2, Location l, ValueRange a) {
        linalg::YieldOp::create(nb2, l, multiplyAdd(nb2, l, a[0], a[1], a[2]));
      });
  SmallVector<ReassociationIndices> reassoc;
  for (int64_t d = 0; d < rank - 1; ++d)
    reassoc.push_back({d});
  reassoc.push_back({rank - 1, rank});
  Value result = tensor::CollapseShapeOp::create(b, loc, type, generic.getResult(0), reassoc);
  if (type == resultType)
    return result;
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0)),
      strides(type.getRank(), b.getIndexAttr(1)), sizes = tensor::getMixedSizes(b, loc, result);
  sizes.back() = b.getIndexAttr(resultType.getShape().back());
  return tensor::ExtractSliceOp::create(b, loc, resultType, result, offsets, sizes, strides);
}

struct MatMulLowering : OpConversionPattern<MatMulOp> {
  MatMulLowering(MLIRContext *ctx, int64_t packBlock, Bf16Weights bf16)
      : OpConversionPattern(ctx), packBlock(packBlock), bf16(bf16) {}
  /// The widest packed weight block: the target's register tile width.
  int64_t packBlock;
  Bf16Weights bf16;
  LogicalResult matchAndRewrite(MatMulOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    Type elt = type.getElementType();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto ls = cast<RankedTensorType>(lhs.getType()).getShape();
    auto rs = cast<RankedTensorType>(rhs.getType()).getShape();
    // bf16 weights (--precision=bf16) on a target with a bf16 dot product: its form.
    if (rs.size() == 2 && elt.isF32() && ls.size() == (size_t)type.getRank()) {
      if (auto w = bf16.dotValues(rhs)) {
        b.replaceOp(op, bf16DotMatmul(b, loc, type, lhs, *w, rs[0], rs[1], bf16.dotLanes));
        return success();
      }
    }
    // Constant float weights with whole vector blocks of columns are packed.
    if (rs.size() == 2 && isa<FloatType>(elt) &&
        ((rs[1] % 8 == 0 && rs[1] >= 16) || rs[1] >= kMinPaddedColumns) &&
        ls.size() == (size_t)type.getRank() && matchPattern(rhs, m_Constant())) {
      b.replaceOp(op, packedMatmul(b, loc, type, lhs, rhs, packBlock, bf16.stored));
      return success();
    }
    if (type.getRank() == 2) {
      Value init = filledTensor(b, loc, type, scalarConstant(b, loc, elt, 0),
                                {tensor::getMixedSize(b, loc, lhs, 0),
                                 tensor::getMixedSize(b, loc, rhs, 1)});
      b.replaceOp(op, linalg::MatmulOp::create(b, loc, TypeRange{type}, ValueRange{lhs, rhs},
                                               ValueRange{init})
                          .getResult(0));
      return success();
    }
    // [..., M, K] x [K, N]: the batch dims fold into M, one plain matmul.
    if (rs.size() == 2) {
      int64_t rows = type.hasStaticShape() ? type.getNumElements() / type.getShape().back()
                                           : ShapedType::kDynamic;
      auto lhs2 = RankedTensorType::get({rows, ls.back()}, elt);
      auto out2 = RankedTensorType::get({rows, type.getShape().back()}, elt);
      // (Grouped explicitly: with several dynamic dims the grouping is ambiguous.)
      Value flatLhs =
          type.hasStaticShape()
              ? reshapeTensor(b, loc, lhs, lhs2)
              : tensor::CollapseShapeOp::create(
                    b, loc, lhs2, lhs,
                    ArrayRef<ReassociationIndices>{
                        llvm::to_vector(llvm::seq<int64_t>(0, ls.size() - 1)),
                        ReassociationIndices{int64_t(ls.size()) - 1}});
      Value flatInit = filledTensor(b, loc, out2, scalarConstant(b, loc, elt, 0),
                                    {tensor::getMixedSize(b, loc, flatLhs, 0),
                                     b.getIndexAttr(type.getShape().back())});
      Value mm = linalg::MatmulOp::create(b, loc, TypeRange{out2}, ValueRange{flatLhs, rhs},
                                          ValueRange{flatInit})
                     .getResult(0);
      if (type.hasStaticShape()) {
        b.replaceOp(op, reshapeTensor(b, loc, mm, type));
        return success();
      }
      // The rows regroup as the activations' leading dims.
      SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, lhs);
      sizes.back() = b.getIndexAttr(type.getShape().back());
      b.replaceOp(op, reshapeDynamic(b, loc, mm, type, sizes));
      return success();
    }
    // Batched with broadcast: loops (batch..., m, n, k).
    b.replaceOp(op, batchedMatmulGeneric(b, loc, type, lhs, rhs,
                                         [](OpBuilder &nb, Location l, ValueRange a) {
                                           return multiplyAdd(nb, l, a[0], a[1], a[2]);
                                         }));
    return success();
  }
};

struct ConvLowering : OpConversionPattern<ConvOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ConvOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    Type elt = type.getElementType();
    // 8-bit convs are lowered in channels-last form (IntegerContraction.cpp).
    if (op.getInput().getType().getElementType().isInteger(8))
      return b.notifyMatchFailure(op, "8-bit convolutions take the NHWC form");
    auto pads = op.getPads();
    Value x = padConstant(b, loc, adaptor.getInput(), {0, 0, pads[0], pads[1]},
                          {0, 0, pads[2], pads[3]}, scalarConstant(b, loc, elt, 0));
    Value w = adaptor.getWeight();
    auto wType = cast<RankedTensorType>(w.getType());
    // The accumulator starts from the bias (broadcast over N, H, W) or zero, built in
    // the shape the conv writes (grouped: [N, G, F/G, OH, OW]) so that it fuses into
    // each tile, channels viewed as `channelShape`.
    auto accumulatorInit = [&](RankedTensorType accType, ArrayRef<int64_t> channelShape) {
      Value bias = adaptor.getBias();
      SmallVector<OpFoldResult> sizes =
          windowSizes(b, loc, accType, x, accType.getRank() - 2, 2,
                      kernelSpans(wType.getDimSize(2), wType.getDimSize(3), op.getDilations()),
                      op.getStrides());
      if (!bias)
        return filledTensor(b, loc, accType, scalarConstant(b, loc, elt, 0), sizes);
      SmallVector<int64_t> column(channelShape);
      column.append({1, 1});
      return buildElementwise(b, loc, accType,
                              {reshapeTensor(b, loc, bias, RankedTensorType::get(column, elt))},
                              [](OpBuilder &, Location, ValueRange a) { return a[0]; }, sizes);
    };
    auto strides = b.getI64TensorAttr(op.getStrides());
    auto dilations = b.getI64TensorAttr(op.getDilations());
    int64_t group = op.getGroup();
    int64_t c = cast<RankedTensorType>(x.getType()).getDimSize(1), f = type.getDimSize(1);
    Value result;
    if (group == 1) {
      result = linalg::Conv2DNchwFchwOp::create(b, loc, TypeRange{type}, ValueRange{x, w},
                                                ValueRange{accumulatorInit(type, {f})},
                                                strides, dilations)
                   .getResult(0);
    } else if (group == c && group == f) {
      result = depthwiseAsTapSum(b, loc, op, x, w, accumulatorInit(type, {f}));
    } else {
      // Grouped: view as [N, G, C/G, H, W] x [G, F/G, C/G, KH, KW] -> [N, G, F/G, OH, OW].
      auto xs = cast<RankedTensorType>(x.getType()).getShape();
      auto gx = RankedTensorType::get({xs[0], group, c / group, xs[2], xs[3]}, elt);
      auto gw = RankedTensorType::get(
          {group, f / group, wType.getDimSize(1), wType.getDimSize(2), wType.getDimSize(3)}, elt);
      auto gy = RankedTensorType::get(
          {type.getDimSize(0), group, f / group, type.getDimSize(2), type.getDimSize(3)}, elt);
      SmallVector<OpFoldResult> gxSizes = {
          tensor::getMixedSize(b, loc, x, 0), b.getIndexAttr(group), b.getIndexAttr(c / group),
          tensor::getMixedSize(b, loc, x, 2), tensor::getMixedSize(b, loc, x, 3)};
      Value gxv =
          tensor::ExpandShapeOp::create(b, loc, gx, x, {{0}, {1, 2}, {3}, {4}}, gxSizes);
      Value gwv = tensor::ExpandShapeOp::create(b, loc, gw, w, {{0, 1}, {2}, {3}, {4}});
      Value ginit = accumulatorInit(gy, {group, f / group});
      Value gr = linalg::Conv2DNgchwGfchwOp::create(b, loc, TypeRange{gy}, ValueRange{gxv, gwv},
                                                    ValueRange{ginit}, strides, dilations)
                     .getResult(0);
      result = tensor::CollapseShapeOp::create(b, loc, type, gr, {{0}, {1, 2}, {3}, {4}});
    }
    b.replaceOp(op, result);
    return success();
  }
};

/// `acc + bias` with `bias` broadcast along the leading dims (channels last): kept
/// separate from the convolution so that it runs on the register tile in its
/// epilogue, while the accumulator starts from a zero constant.
Value addBias(OpBuilder &b, Location loc, Value acc, Value bias) {
  return buildElementwise(b, loc, cast<RankedTensorType>(acc.getType()), {acc, bias},
                          [](OpBuilder &nb, Location l, ValueRange a) {
                            return floatOrInt<arith::AddFOp, arith::AddIOp>(nb, l, a);
                          });
}

/// A conv's implicit GEMM in the bf16 dot form: the padded input `x` (f32; a strided 1x1
/// conv's strided pixels) converted to bf16 with its channels padded to even, times the
/// weights `w` ([KH, KW, C, F], exactly bf16) packed [FP/L][KH][KW][CG/2][L][2]
/// (groupedConvolution), accumulated in f32; then the bias.
Value bf16DotConv(OpBuilder &b, Location loc, RankedTensorType type, Value x,
                  ArrayRef<uint16_t> w, ArrayRef<int64_t> ws, ArrayRef<int64_t> dilations,
                  Value bias, int64_t lanes) {
  int64_t c = ws[2], cg = llvm::alignTo(c, 2), fp = llvm::alignTo(ws[3], lanes);
  Value a = toBf16(b, loc, x);
  if (cg != c)
    a = padConstant(b, loc, a, {0, 0, 0, 0}, {0, 0, 0, cg - c},
                    scalarConstant(b, loc, b.getBF16Type(), 0));
  Value weights = bf16Constant(b, loc, {fp / lanes, ws[0], ws[1], cg / 2, lanes, 2},
                               packGroupedFilters(w, ws, lanes, 2));
  Value result = groupedConvolution(b, loc, type, a, weights, dilations, lanes, 2,
                                    b.getF32Type(), bf16Product);
  return bias ? addBias(b, loc, result, bias) : result;
}

/// A stride-1 NHWC conv as an implicit GEMM (CONV-NOTES.md route c): loops
/// (n, oh, ow, f1, f0, kh, kw, c) over the padded input, weights packed at compile
/// time as [F/FB][KH][KW][C][FB] (one block's filters contiguous), the output
/// viewed as [N, OH, OW, F/FB, FB]. Tiled with kh, kw, c by 1 the op becomes a
/// plain matmul tile that vectorizes to broadcast-FMA outer products.
Value implicitGemm(OpBuilder &b, Location loc, RankedTensorType type, Value x, Value w,
                   Value bias, ArrayRef<int64_t> dilations, int64_t packBlock, bool narrow) {
  Type elt = type.getElementType();
  auto ws = cast<RankedTensorType>(w.getType()).getShape(); // KH, KW, C, F
  int64_t f = ws[3], fb = channelBlock(f, packBlock);
  if (narrow)
    w = narrowedWeights(b, loc, w);
  Value blocked = reshapeTensor(
      b, loc, w,
      RankedTensorType::get({ws[0], ws[1], ws[2], f / fb, fb},
                            cast<RankedTensorType>(w.getType()).getElementType()));
  Value packed = permuteTensor(b, loc, blocked, {3, 0, 1, 2, 4});
  auto os = type.getShape();
  auto out5 = RankedTensorType::get({os[0], os[1], os[2], f / fb, fb}, elt);
  // Accumulate from zero (a register constant); the bias is added by an elementwise
  // consumer, which becomes part of the epilogue (addBias).
  Value init5 = filledTensor(b, loc, out5, scalarConstant(b, loc, elt, 0),
                             windowSizes(b, loc, out5, x, 1, 1,
                                         kernelSpans(ws[0], ws[1], dilations), {1, 1}));
  MLIRContext *ctx = b.getContext();
  AffineExpr n, oh, ow, f1, f0, kh, kw, c;
  bindDims(ctx, n, oh, ow, f1, f0, kh, kw, c);
  SmallVector<AffineMap> maps = {
      AffineMap::get(8, 0, {n, oh + kh * dilations[0], ow + kw * dilations[1], c}, ctx),
      AffineMap::get(8, 0, {f1, kh, kw, c, f0}, ctx),
      AffineMap::get(8, 0, {n, oh, ow, f1, f0}, ctx)};
  SmallVector<utils::IteratorType> iters(5, utils::IteratorType::parallel);
  iters.append(3, utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{out5}, ValueRange{x, packed}, ValueRange{init5}, maps, iters,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        linalg::YieldOp::create(nb, l, multiplyAdd(nb, l, a[0], a[1], a[2]));
      });
  Value result = generic.getResult(0);
  if (bias)
    result = addBias(b, loc, result,
                     reshapeTensor(b, loc, bias, RankedTensorType::get({f / fb, fb}, elt)));
  return tensor::CollapseShapeOp::create(b, loc, type, result, {{0}, {1}, {2}, {3, 4}});
}

/// A group-1 NHWC conv through im2col: the windows of the padded input `x` copied out
/// as [N*OH*OW, KH*KW*C] (one row per output pixel, channels innermost), times the HWCF
/// weights viewed as [KH*KW*C, F] on the packed GEMM path. For strided windows, which
/// the implicit GEMM cannot read (its input map would not be a projection after tiling),
/// the copy is small (a quarter of the pixels at stride 2) and the product then runs
/// with the matmul's register tile over all pixels at once. Null when the weights
/// cannot be packed.
Value im2colConv(OpBuilder &b, Location loc, RankedTensorType type, Value x, Value w,
                 Value bias, ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                 int64_t packBlock, const Bf16Weights &bf16) {
  Type elt = type.getElementType();
  auto ws = cast<RankedTensorType>(w.getType()).getShape(); // KH, KW, C, F
  auto os = type.getShape();
  Value windows = im2colWindows(b, loc, x, os, ws[0], ws[1], strides, dilations);
  int64_t pixels = ShapedType::isDynamic(os[0]) ? ShapedType::kDynamic : os[0] * os[1] * os[2],
          k = ws[0] * ws[1] * ws[2];
  Value cols = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({pixels, k}, elt), windows, {{0, 1, 2}, {3, 4, 5}});
  Value rows = reshapeTensor(b, loc, w, RankedTensorType::get({k, ws[3]}, elt));
  auto productType = RankedTensorType::get({pixels, ws[3]}, elt);
  Value product;
  if (auto values = bf16.dotValues(rows))
    product = bf16DotMatmul(b, loc, productType, cols, *values, k, ws[3], bf16.dotLanes);
  if (!product)
    product = packedMatmul(b, loc, productType, cols, rows, packBlock, bf16.stored);
  if (!product)
    return {};
  if (bias)
    product = addBias(b, loc, product, bias);
  return reshapeTensor(b, loc, product, type);
}

/// conv_nhwc: the padded NHWC input into linalg's NHWC convs (group 1: HWCF
/// weights; depthwise: the [KH, KW, 1, C] weights viewed as HWC), accumulating
/// onto the bias broadcast over N, H, W.
struct ConvNhwcLowering : OpConversionPattern<ConvNhwcOp> {
  ConvNhwcLowering(MLIRContext *ctx, int64_t packBlock, int64_t im2colPixels, Bf16Weights bf16)
      : OpConversionPattern(ctx), packBlock(packBlock), im2colPixels(im2colPixels), bf16(bf16) {}
  /// The widest packed weight block: the target's register tile width.
  int64_t packBlock;
  /// Stride-1 convs with at most this many output pixels per image go through im2col.
  int64_t im2colPixels;
  Bf16Weights bf16;
  LogicalResult matchAndRewrite(ConvNhwcOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    Type elt = type.getElementType();
    if (op.getInput().getType().getElementType().isInteger(8)) // IntegerContraction.cpp
      return failure();
    auto pads = op.getPads();
    Value x = padConstant(b, loc, adaptor.getInput(), {0, pads[0], pads[1], 0},
                          {0, pads[2], pads[3], 0}, scalarConstant(b, loc, elt, 0));
    Value w = adaptor.getWeight();
    auto ws = cast<RankedTensorType>(w.getType()).getShape();
    Value result;
    auto st = op.getStrides();
    bool pointwise = ws[0] == 1 && ws[1] == 1;
    // Strided windows, and small images that the implicit GEMM's row tiles would leave
    // partial (stride 1, at most `im2colPixels` output pixels): im2col and the GEMM.
    // Dynamic image dims (dlc compile --dims) take the implicit GEMM or linalg's convs.
    bool strided = st[0] != 1 || st[1] != 1;
    bool dynamicImage = type.isDynamicDim(1) || type.isDynamicDim(2);
    if (op.getGroup() == 1 && ws[3] % 8 == 0 && ws[2] >= 8 && !pointwise && !dynamicImage &&
        (strided || type.getDimSize(1) * type.getDimSize(2) <= im2colPixels)) {
      if (Value r = im2colConv(b, loc, type, x, w, adaptor.getBias(), st, op.getDilations(),
                               packBlock, bf16)) {
        b.replaceOp(op, r);
        return success();
      }
    }
    // Implicit GEMM needs whole vector blocks of output channels (ws[3] is F).
    if (op.getGroup() == 1 && ws[3] % 8 == 0 && (pointwise || (st[0] == 1 && st[1] == 1))) {
      // A strided 1x1 conv is a 1x1 conv of the strided input pixels.
      x = stridedPixels(b, loc, x, type.getDimSize(1), type.getDimSize(2), st);
      if (auto values = dynamicImage ? std::optional<std::vector<uint16_t>>() : bf16.dotValues(w)) {
        b.replaceOp(op, bf16DotConv(b, loc, type, x, *values, ws, op.getDilations(),
                                    adaptor.getBias(), bf16.dotLanes));
        return success();
      }
      b.replaceOp(op, implicitGemm(b, loc, type, x, w, adaptor.getBias(), op.getDilations(),
                                   packBlock, bf16.stored));
      return success();
    }
    Value init = filledTensor(
        b, loc, type, scalarConstant(b, loc, elt, 0),
        windowSizes(b, loc, type, x, 1, 1, kernelSpans(ws[0], ws[1], op.getDilations()), st));
    auto strides = b.getI64TensorAttr(op.getStrides());
    auto dilations = b.getI64TensorAttr(op.getDilations());
    if (op.getGroup() == 1) {
      result = linalg::Conv2DNhwcHwcfOp::create(b, loc, TypeRange{type}, ValueRange{x, w},
                                                ValueRange{init}, strides, dilations)
                   .getResult(0);
    } else {
      Value hwc =
          reshapeTensor(b, loc, w, RankedTensorType::get({ws[0], ws[1], ws[3]}, elt));
      result = linalg::DepthwiseConv2DNhwcHwcOp::create(b, loc, TypeRange{type},
                                                        ValueRange{x, hwc}, ValueRange{init},
                                                        strides, dilations)
                   .getResult(0);
    }
    if (Value bias = adaptor.getBias())
      result = addBias(b, loc, result, bias);
    b.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateContractionLoweringPatterns(RewritePatternSet &patterns, int64_t packBlock,
                                        int64_t im2colPixels, bool bf16Weights,
                                        int64_t bf16DotLanes) {
  patterns.add<ConvLowering>(patterns.getContext());
  Bf16Weights bf16{bf16Weights, bf16DotLanes};
  patterns.add<MatMulLowering>(patterns.getContext(), packBlock, bf16);
  patterns.add<ConvNhwcLowering>(patterns.getContext(), packBlock, im2colPixels, bf16);
}

} // namespace dlc::conversion
