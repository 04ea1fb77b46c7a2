// dlc_graph.dequant_matmul -> linalg: weight-only quantized products (int4 / int8 codes with
// a scale and zero point per block of K, ONNX Runtime's MatMulNBits). The codes are packed
// at compile time as [NP/NB][KB][B][NB] bytes (one register tile's columns contiguous, as
// the f32 packed GEMM), or, when they span at most 16 values (int4), two to a byte as
// [NP/NB][KB][B/2][NB] (K 2j in the low nibble, 2j + 1 in the high one); the scales and the
// zero-point terms as [NP/NB][KB][NB] f32. The kernel converts each loaded vector of codes
// and applies its block's scale just before the products, so a batch-1 product reads an
// eighth (int4) or a quarter (int8) of the f32 weight bytes.
#include "codegen/Conversion/GraphToLinalg/LoweringUtils.h"
#include "codegen/Conversion/GraphToLinalg/Passes.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

#include <limits>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::conversion {
namespace {

/// The packed operands of a dequant_matmul: codes [N1][KB][B][NB] bytes, or with `nibbles`
/// [N1][KB][B/2][NB] (pairs of K in one byte, low nibble first), as unsigned codes minus
/// `base` (zero beyond N and K); scale and offset ((base - zero_point) * scale)
/// [N1][KB][NB] (zero beyond N).
struct PackedWeights {
  std::vector<uint8_t> codes;
  std::vector<float> scale, offset;
};

/// Code `i` of `codes` as an integer.
int64_t codeAt(DenseElementsAttr codes, int64_t i, bool isUnsigned) {
  auto v = codes.getValues<int8_t>()[i];
  return isUnsigned ? int64_t(uint8_t(v)) : int64_t(v);
}

PackedWeights packWeights(DenseElementsAttr codes, DenseElementsAttr scale,
                          DenseElementsAttr zeroPoint, bool isUnsigned, int64_t n, int64_t k,
                          int64_t block, int64_t nb, bool nibbles, int64_t base) {
  int64_t kb = llvm::divideCeil(k, block), n1 = llvm::divideCeil(n, nb);
  int64_t perByte = nibbles ? 2 : 1, rowsPerBlock = block / perByte;
  PackedWeights p;
  p.codes.assign(n1 * kb * rowsPerBlock * nb, 0);
  p.scale.assign(n1 * kb * nb, 0.0f);
  p.offset.assign(n1 * kb * nb, 0.0f);
  auto s = scale.getValues<float>();
  for (int64_t r = 0; r < n; ++r) {
    int64_t r1 = r / nb, r0 = r % nb;
    for (int64_t c = 0; c < k; ++c) {
      auto u = uint8_t(codeAt(codes, r * k + c, isUnsigned) - base);
      int64_t inBlock = c % block;
      int64_t at = ((r1 * kb + c / block) * rowsPerBlock + inBlock / perByte) * nb + r0;
      p.codes[at] |= nibbles && inBlock % 2 ? uint8_t(u << 4) : u;
    }
    for (int64_t j = 0; j < kb; ++j) {
      int64_t z = zeroPoint ? codeAt(zeroPoint, r * kb + j, isUnsigned) : 0;
      float sv = s[r * kb + j];
      p.scale[(r1 * kb + j) * nb + r0] = sv;
      p.offset[(r1 * kb + j) * nb + r0] = float(base - z) * sv;
    }
  }
  return p;
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
    bool isUnsigned = op.getCodesUnsigned();
    // Codes spanning at most 16 values (int4, stored in 8-bit containers) go two to a
    // byte, as unsigned nibbles above their minimum; others one to a byte above 0 or -128.
    int64_t lowest = std::numeric_limits<int64_t>::max();
    int64_t highest = std::numeric_limits<int64_t>::min();
    for (int64_t i = 0, e = codes.getNumElements(); i < e; ++i) {
      int64_t c = codeAt(codes, i, isUnsigned);
      lowest = std::min(lowest, c);
      highest = std::max(highest, c);
    }
    int64_t kb = llvm::divideCeil(k, block);
    if (kb == 1)
      block = k; // one block: no padding beyond K
    bool nibbles = highest - lowest < 16 && (block % 2 == 0 || kb == 1);
    if (nibbles && block % 2)
      ++block; // a single odd block: one zero code more
    int64_t base = nibbles ? lowest : isUnsigned ? 0 : -128;
    int64_t kp = kb * block, perByte = nibbles ? 2 : 1;
    int64_t nb = packBlock, n1 = llvm::divideCeil(n, nb), np = n1 * nb;
    PackedWeights p =
        packWeights(codes, scale, zeroPoint, isUnsigned, n, k, block, nb, nibbles, base);
    Value packedCodes =
        rawConstant<uint8_t>(b, loc, {n1, kb, block / perByte, nb}, i8, p.codes);
    Value packedScale = rawConstant<float>(b, loc, {n1, kb, nb}, f32, p.scale);
    Value packedOffset = rawConstant<float>(b, loc, {n1, kb, nb}, f32, p.offset);

    // Activations [..., K] padded with zeros to whole blocks and viewed [..., KB, B] (with
    // nibbles [..., KB, B/2, 2]).
    Value lhs = adaptor.getLhs();
    auto lt = cast<RankedTensorType>(lhs.getType());
    int64_t rank = lt.getRank();
    if (kp != k) {
      SmallVector<int64_t> lo(rank, 0), hi(rank, 0);
      hi.back() = kp - k;
      lhs = padConstant(b, loc, lhs, lo, hi, scalarConstant(b, loc, f32, 0));
    }
    SmallVector<int64_t> lhsShape(lt.getShape().drop_back());
    lhsShape.append({kb, block / perByte});
    if (nibbles)
      lhsShape.push_back(2);
    lhs = reshapeTensor(b, loc, lhs, RankedTensorType::get(lhsShape, f32));

    // Loops (rows..., n1, n0, kb, ki), with nibbles (rows..., n1, n0, kb, kh, p): the byte
    // of codes kh, its nibble p.
    MLIRContext *ctx = b.getContext();
    int64_t reductions = nibbles ? 3 : 2, nd = rank + 1 + reductions;
    SmallVector<AffineExpr> rows, ks;
    for (int64_t d = 0; d < rank - 1; ++d)
      rows.push_back(getAffineDimExpr(d, ctx));
    for (int64_t d = rank + 1; d < nd; ++d)
      ks.push_back(getAffineDimExpr(d, ctx));
    AffineExpr dn1 = getAffineDimExpr(rank - 1, ctx), dn0 = getAffineDimExpr(rank, ctx),
               dkb = ks.front();
    SmallVector<AffineExpr> lhsExprs(rows), outExprs(rows), codeExprs = {dn1, dkb, ks[1], dn0};
    lhsExprs.append(ks);
    outExprs.append({dn1, dn0});
    SmallVector<AffineMap> maps = {AffineMap::get(nd, 0, lhsExprs, ctx),
                                   AffineMap::get(nd, 0, codeExprs, ctx),
                                   AffineMap::get(nd, 0, {dn1, dkb, dn0}, ctx),
                                   AffineMap::get(nd, 0, {dn1, dkb, dn0}, ctx),
                                   AffineMap::get(nd, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iters(nd - reductions, utils::IteratorType::parallel);
    iters.append(reductions, utils::IteratorType::reduction);
    SmallVector<int64_t> outShape(type.getShape().drop_back());
    outShape.append({n1, nb});
    auto out = RankedTensorType::get(outShape, f32);
    Value init = filledTensor(b, loc, out, scalarConstant(b, loc, f32, 0));
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{out}, ValueRange{lhs, packedCodes, packedScale, packedOffset},
        ValueRange{init}, maps, iters, [&](OpBuilder &nb2, Location l, ValueRange a) {
          Value code = a[1];
          if (nibbles) {
            Value low = arith::AndIOp::create(nb2, l, code, scalarConstant(nb2, l, i8, 15));
            Value high = arith::ShRUIOp::create(nb2, l, code, scalarConstant(nb2, l, i8, 4));
            Value p = linalg::IndexOp::create(nb2, l, nd - 1);
            Value odd = arith::CmpIOp::create(nb2, l, arith::CmpIPredicate::ne, p,
                                              arith::ConstantIndexOp::create(nb2, l, 0));
            code = arith::SelectOp::create(nb2, l, odd, high, low);
          }
          Value w = math::FmaOp::create(nb2, l, arith::UIToFPOp::create(nb2, l, f32, code),
                                        a[2], a[3]);
          linalg::YieldOp::create(nb2, l, ValueRange{math::FmaOp::create(nb2, l, a[0], w, a[4])});
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
