// com.microsoft MatMulNBits (ONNX Runtime's contrib op for 2/4/8-bit blocked weights, e.g.
// int4 LLM exports): Y = A @ dequantize(B)^T + bias, with B's codes unpacked at import time
// into a blocked dlc_graph.dequantize (the same op as DequantizeLinear's blocked form).
#include "frontends/Onnx/Expr.h"
#include "dialects/Graph/IR/QuantizedMath.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

/// The `bits`-bit codes of a row-major byte array, low bits first: code i of `bytes`.
uint8_t codeAt(ArrayRef<uint8_t> bytes, int64_t i, int64_t bits) {
  int64_t perByte = 8 / bits;
  return uint8_t((bytes[i / perByte] >> ((i % perByte) * bits)) & ((1 << bits) - 1));
}

SmallVector<uint8_t> bytesOf(DenseElementsAttr a) {
  SmallVector<uint8_t> out;
  for (APInt v : a.getValues<APInt>())
    out.push_back(uint8_t(v.getZExtValue()));
  return out;
}

LogicalResult matMulNBits(NodeImporter &n, SmallVectorImpl<Value> &out) {
  auto a = n.requiredInput(0), b = n.requiredInput(1), scales = n.requiredInput(2);
  DLC_TRY(a);
  DLC_TRY(b);
  DLC_TRY(scales);
  auto kAttr = n.intAttr("K", -1), nAttr = n.intAttr("N", -1), bitsAttr = n.intAttr("bits", 4),
       blockAttr = n.intAttr("block_size", -1);
  DLC_TRY(kAttr);
  DLC_TRY(nAttr);
  DLC_TRY(bitsAttr);
  DLC_TRY(blockAttr);
  int64_t K = *kAttr, N = *nAttr, bits = *bitsAttr, block = *blockAttr;
  if (K <= 0 || N <= 0)
    return n.error("attributes K and N are required and must be positive");
  if (bits != 2 && bits != 4 && bits != 8)
    return n.error("bits " + Twine(bits) + " is not supported (2, 4 or 8)");
  if (block < 16 || (block & (block - 1)))
    return n.error("block_size must be a power of 2 and at least 16, got " + Twine(block));
  auto at = tensorType(*a);
  Type elt = at.getElementType();
  if (!isa<FloatType>(elt) || at.getRank() < 1 || at.getShape().back() != K)
    return n.error("input A must be floating-point with last dim K = " + Twine(K));
  int64_t kBlocks = (K + block - 1) / block, blob = block * bits / 8;
  SmallVector<int64_t> bShape = {N, kBlocks, blob};
  if (tensorType(*b).getShape() != ArrayRef<int64_t>(bShape) ||
      !tensorType(*b).getElementType().isInteger(8))
    return n.error("input B must be uint8 [" + Twine(N) + ", " + Twine(kBlocks) + ", " +
                   Twine(blob) + "] (N, K blocks, bytes per block)");
  if (n.input(4) && tensorType(n.input(4)).getNumElements() > 0)
    return n.error("g_idx (input 4) is not supported");
  DenseElementsAttr bValues = n.knownInput(1);
  if (!bValues)
    return n.error("input B must be a constant (an initializer)");
  auto st = tensorType(*scales);
  if (st.getElementType() != elt || st.getNumElements() != N * kBlocks)
    return n.error("scales must be of A's type with N * K blocks = " + Twine(N * kBlocks) +
                   " elements");
  if (failed(n.checkShape({N, K}, elt, "the dequantized weight")))
    return failure();

  // The codes as u8 [N, K] (the padding of a last partial block dropped).
  SmallVector<uint8_t> packed = bytesOf(bValues), codes(N * K);
  for (int64_t r = 0; r < N; ++r)
    for (int64_t k = 0; k < K; ++k)
      codes[r * K + k] = codeAt(ArrayRef<uint8_t>(packed).drop_front(r * kBlocks * blob), k, bits);
  Type u8 = n.b.getIntegerType(8);
  Value q = n.constant(DenseElementsAttr::get(RankedTensorType::get({N, K}, u8),
                                              ArrayRef<uint8_t>(codes)));
  Expr e{n, elt};
  Value s = e.reshape(*scales, {N, kBlocks});
  // Zero points: packed uint8 codes (default 2^(bits-1)), or unpacked of A's type.
  Value zp = n.input(3), w;
  if (zp && isa<FloatType>(tensorType(zp).getElementType())) {
    if (tensorType(zp).getElementType() != elt || tensorType(zp).getNumElements() != N * kBlocks)
      return n.error("floating-point zero_points must be of A's type with N * K blocks elements");
    Value z = broadcastQuantParam(e, e.reshape(zp, {N, kBlocks}), {N, K}, 1, block);
    Value sb = broadcastQuantParam(e, s, {N, K}, 1, block);
    w = e.op<MulOp>({e.op<SubOp>({e.cast(q, elt, /*fromUnsigned=*/true), z}), sb});
  } else {
    SmallVector<uint8_t> zps(N * kBlocks, uint8_t(1 << (bits - 1)));
    if (zp) {
      int64_t perRow = (kBlocks * bits + 7) / 8;
      DenseElementsAttr zv = n.knownInput(3);
      if (!tensorType(zp).getElementType().isInteger(8) ||
          tensorType(zp).getNumElements() != N * perRow)
        return n.error("uint8 zero_points must hold N * ceil(K blocks * bits / 8) = " +
                       Twine(N * perRow) + " bytes");
      if (!zv)
        return n.error("zero_points must be a constant (an initializer)");
      SmallVector<uint8_t> zb = bytesOf(zv);
      for (int64_t r = 0; r < N; ++r)
        for (int64_t j = 0; j < kBlocks; ++j)
          zps[r * kBlocks + j] = codeAt(ArrayRef<uint8_t>(zb).drop_front(r * perRow), j, bits);
    }
    Value z = n.constant(DenseElementsAttr::get(RankedTensorType::get({N, kBlocks}, u8),
                                                ArrayRef<uint8_t>(zps)));
    auto dq = n.create<DequantizeOp>(
        {q, s, z},
        {n.named("axis", n.b.getI64IntegerAttr(1)), n.named("block_size", n.b.getI64IntegerAttr(block)),
         n.named("unsigned_input", n.b.getUnitAttr())},
        {RankedTensorType::get({N, K}, elt)});
    DLC_TRY(dq);
    w = *dq;
  }
  Value y = e.op<MatMulOp>({*a, e.transpose(w, {1, 0})});
  if (Value bias = n.input(5)) {
    if (tensorType(bias).getElementType() != elt || tensorType(bias).getNumElements() != N)
      return n.error("bias must be of A's type with N = " + Twine(N) + " elements");
    y = e.op<AddOp>({y, e.reshape(bias, {N})});
  }
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

const OpBuilderEntry kContrib[] = {
    {"MatMulNBits", 1, matMulNBits, "com.microsoft"},
};

} // namespace

ArrayRef<OpBuilderEntry> contribBuilders() { return kContrib; }

} // namespace dlc::onnx_frontend
