// dlc_graph.dequant_matmul -> linalg: weight-only quantized products (int4 / int8 codes with
// a scale and zero point per block of K, ONNX Runtime's MatMulNBits). The codes stay one
// byte each, packed at compile time as [NP/NB][KB][B][NB] (one register tile's columns
// contiguous, as the f32 packed GEMM), the scales and the zero-point terms as [NP/NB][KB][NB]
// f32; the kernel converts each loaded vector of codes and applies its block's scale just
// before the products, so a batch-1 product reads a quarter of the f32 weight bytes.
#include "codegen/Conversion/GraphToLinalg/LoweringUtils.h"
#include "codegen/Conversion/GraphToLinalg/Passes.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::conversion {
namespace {

/// The packed operands of a dequant_matmul: codes [N1][KB][B][NB] (zero beyond N and K),
/// scale and offset (-zero_point * scale) [N1][KB][NB] (zero beyond N).
struct PackedWeights {
  std::vector<int8_t> codes;
  std::vector<float> scale, offset;
};

PackedWeights packWeights(DenseElementsAttr codes, DenseElementsAttr scale,
                          DenseElementsAttr zeroPoint, bool isUnsigned, int64_t n, int64_t k,
                          int64_t block, int64_t nb) {
  int64_t kb = llvm::divideCeil(k, block), n1 = llvm::divideCeil(n, nb);
  PackedWeights p;
  p.codes.assign(n1 * kb * block * nb, 0);
  p.scale.assign(n1 * kb * nb, 0.0f);
  p.offset.assign(n1 * kb * nb, 0.0f);
  auto q = codes.getValues<int8_t>();
  auto s = scale.getValues<float>();
  for (int64_t r = 0; r < n; ++r) {
    int64_t r1 = r / nb, r0 = r % nb;
    for (int64_t c = 0; c < k; ++c)
      p.codes[((r1 * kb + c / block) * block + c % block) * nb + r0] = q[r * k + c];
    for (int64_t j = 0; j < kb; ++j) {
      int64_t z = 0;
      if (zeroPoint) {
        auto zv = zeroPoint.getValues<int8_t>()[r * kb + j];
        z = isUnsigned ? int64_t(uint8_t(zv)) : int64_t(zv);
      }
      float sv = s[r * kb + j];
      p.scale[(r1 * kb + j) * nb + r0] = sv;
      p.offset[(r1 * kb + j) * nb + r0] = -float(z) * sv;
    }
  }
  return p;
}

template <typename T>
Value constantOf(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, Type elt,
                 ArrayRef<T> values) {
  auto type = RankedTensorType::get(shape, elt);
  return arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::getFromRawBuffer(
          type, ArrayRef<char>(reinterpret_cast<const char *>(values.data()),
                               values.size() * sizeof(T))));
}

struct DequantMatMulLowering : OpConversionPattern<DequantMatMulOp> {
  DequantMatMulLowering(MLIRContext *ctx, int64_t packBlock)
      : OpConversionPattern(ctx), packBlock(packBlock) {}
  /// Columns per packed block: the target's register tile width.
  int64_t packBlock;

  LogicalResult matchAndRewrite(DequantMatMulOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    DenseElementsAttr codes, scale, zeroPoint;
    if (!matchPattern(adaptor.getCodes(), m_Constant(&codes)) ||
        !matchPattern(adaptor.getScale(), m_Constant(&scale)) ||
        (adaptor.getZeroPoint() && !matchPattern(adaptor.getZeroPoint(), m_Constant(&zeroPoint))))
      return b.notifyMatchFailure(op, "codes, scales and zero points must be constants");
    auto type = op.getType();
    if (!type.getElementType().isF32())
      return b.notifyMatchFailure(op, "f32 activations only");
    Type f32 = b.getF32Type(), i8 = b.getI8Type();
    auto qs = cast<RankedTensorType>(codes.getType()).getShape();
    int64_t n = qs[0], k = qs[1], block = op.getBlockSize();
    int64_t kb = llvm::divideCeil(k, block), kp = kb * block;
    int64_t nb = packBlock, n1 = llvm::divideCeil(n, nb), np = n1 * nb;
    bool isUnsigned = op.getCodesUnsigned();
    PackedWeights p =
        packWeights(codes, scale, zeroPoint, isUnsigned, n, k, block, nb);
    Value packedCodes = constantOf<int8_t>(b, loc, {n1, kb, block, nb}, i8, p.codes);
    Value packedScale = constantOf<float>(b, loc, {n1, kb, nb}, f32, p.scale);
    Value packedOffset = constantOf<float>(b, loc, {n1, kb, nb}, f32, p.offset);

    // Activations [..., K] padded with zeros to whole blocks and viewed [..., KB, B].
    Value lhs = adaptor.getLhs();
    auto lt = cast<RankedTensorType>(lhs.getType());
    int64_t rank = lt.getRank();
    if (kp != k) {
      SmallVector<int64_t> lo(rank, 0), hi(rank, 0);
      hi.back() = kp - k;
      lhs = padConstant(b, loc, lhs, lo, hi, scalarConstant(b, loc, f32, 0));
    }
    SmallVector<int64_t> lhsShape(lt.getShape().drop_back());
    lhsShape.append({kb, block});
    lhs = reshapeTensor(b, loc, lhs, RankedTensorType::get(lhsShape, f32));

    // Loops (rows..., n1, n0, kb, ki).
    MLIRContext *ctx = b.getContext();
    int64_t nd = rank - 1 + 4;
    SmallVector<AffineExpr> rows;
    for (int64_t d = 0; d < rank - 1; ++d)
      rows.push_back(getAffineDimExpr(d, ctx));
    AffineExpr dn1 = getAffineDimExpr(rank - 1, ctx), dn0 = getAffineDimExpr(rank, ctx),
               dkb = getAffineDimExpr(rank + 1, ctx), dki = getAffineDimExpr(rank + 2, ctx);
    SmallVector<AffineExpr> lhsExprs(rows), outExprs(rows);
    lhsExprs.append({dkb, dki});
    outExprs.append({dn1, dn0});
    SmallVector<AffineMap> maps = {AffineMap::get(nd, 0, lhsExprs, ctx),
                                   AffineMap::get(nd, 0, {dn1, dkb, dki, dn0}, ctx),
                                   AffineMap::get(nd, 0, {dn1, dkb, dn0}, ctx),
                                   AffineMap::get(nd, 0, {dn1, dkb, dn0}, ctx),
                                   AffineMap::get(nd, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iters(nd - 2, utils::IteratorType::parallel);
    iters.append(2, utils::IteratorType::reduction);
    SmallVector<int64_t> outShape(type.getShape().drop_back());
    outShape.append({n1, nb});
    auto out = RankedTensorType::get(outShape, f32);
    Value init = filledTensor(b, loc, out, scalarConstant(b, loc, f32, 0));
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{out}, ValueRange{lhs, packedCodes, packedScale, packedOffset},
        ValueRange{init}, maps, iters, [&](OpBuilder &nb2, Location l, ValueRange a) {
          Value code = isUnsigned ? arith::UIToFPOp::create(nb2, l, f32, a[1]).getResult()
                                  : arith::SIToFPOp::create(nb2, l, f32, a[1]).getResult();
          Value w = math::FmaOp::create(nb2, l, code, a[2], a[3]);
          Value prod = arith::MulFOp::create(nb2, l, a[0], w);
          linalg::YieldOp::create(nb2, l, ValueRange{arith::AddFOp::create(nb2, l, a[4], prod)});
        });
    // [..., N1, NB] -> [..., NP], sliced to N.
    SmallVector<int64_t> flat(type.getShape());
    flat.back() = np;
    auto flatType = RankedTensorType::get(flat, f32);
    SmallVector<ReassociationIndices> reassoc;
    for (int64_t d = 0; d < rank - 1; ++d)
      reassoc.push_back({d});
    reassoc.push_back({rank - 1, rank});
    Value result =
        tensor::CollapseShapeOp::create(b, loc, flatType, generic.getResult(0), reassoc);
    if (np != n) {
      SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), strides(rank, b.getIndexAttr(1)),
          sizes;
      for (int64_t d : type.getShape())
        sizes.push_back(b.getIndexAttr(d));
      result = tensor::ExtractSliceOp::create(b, loc, type, result, offsets, sizes, strides);
    }
    b.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateWeightOnlyContractionLoweringPatterns(RewritePatternSet &patterns,
                                                   int64_t packBlock) {
  patterns.add<DequantMatMulLowering>(patterns.getContext(), packBlock);
}

} // namespace dlc::conversion
