// dlc-bf16-contractions: the operands of f32 matmuls and convs rounded to bf16 (dlc compile
// --precision=bf16), so that products are those of bf16 inputs accumulated in f32.
#include "passes/Quantization/Passes.h"

#include "mlir/IR/Matchers.h"

#include <cstring>

namespace dlc::quantization {
#define GEN_PASS_DEF_BF16CONTRACTIONS
#include "passes/Quantization/Passes.h.inc"
} // namespace dlc::quantization

using namespace mlir;
using namespace dlc::graph;

namespace dlc::quantization {
namespace {

/// An f32 rounded to the nearest bf16 (ties to even), as an f32; NaN stays NaN.
uint32_t roundBits(uint32_t bits) {
  if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN: keep it quiet, drop the low payload
    return (bits | 0x00400000u) & 0xffff0000u;
  return (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
}

/// `v` rounded to bf16 and widened back: cast f32 -> bf16 -> f32, or for a constant
/// (a weight) the rounded constant itself (the cast folder leaves large tensors alone).
Value roundedToBf16(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  DenseElementsAttr dense;
  if (matchPattern(v, m_Constant(&dense))) {
    ArrayRef<char> raw = dense.getRawData();
    std::vector<char> out(raw.begin(), raw.end());
    for (size_t i = 0; i + 4 <= out.size(); i += 4) {
      uint32_t bits;
      std::memcpy(&bits, &out[i], 4);
      bits = roundBits(bits);
      std::memcpy(&out[i], &bits, 4);
    }
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::getFromRawBuffer(cast<ShapedType>(dense.getType()), out));
  }
  Value narrow = CastOp::create(b, loc, type.clone(b.getBF16Type()), v);
  return CastOp::create(b, loc, type, narrow);
}

bool isF32Tensor(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.getElementType().isF32();
}

struct Bf16Contractions : impl::Bf16ContractionsBase<Bf16Contractions> {
  void runOnOperation() override {
    SmallVector<std::pair<Operation *, unsigned>> operands; // (op, operand index)
    getOperation()->walk([&](Operation *op) {
      if (!isa<MatMulOp, ConvOp>(op) || !isF32Tensor(op->getResult(0)))
        return;
      for (unsigned i : {0u, 1u})
        if (isF32Tensor(op->getOperand(i)))
          operands.push_back({op, i});
    });
    OpBuilder b(&getContext());
    for (auto [op, i] : operands) {
      b.setInsertionPoint(op);
      op->setOperand(i, roundedToBf16(b, op->getLoc(), op->getOperand(i)));
    }
  }
};

} // namespace
} // namespace dlc::quantization
