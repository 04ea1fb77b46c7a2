// dlc-fold-conv-affine: per-channel constant scale/shift after a conv folded into its weights.
#include "dialects/Graph/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dlc::graph {
#define GEN_PASS_DEF_GRAPHFOLDCONVAFFINE
#include "dialects/Graph/Transforms/Passes.h.inc"
} // namespace dlc::graph

using namespace mlir;
using namespace dlc::graph;

namespace {

/// f32 values of a dense constant (splats expanded to `n`).
std::optional<std::vector<float>> floats(DenseElementsAttr a, int64_t n) {
  if (!a || !a.getElementType().isF32())
    return std::nullopt;
  if (a.isSplat())
    return std::vector<float>(n, a.getSplatValue<float>());
  auto v = a.getValues<float>();
  return std::vector<float>(v.begin(), v.end());
}

/// The per-output-channel values of constant `c` broadcast against a conv
/// result of type [N, F, H, W], or nothing if `c` varies along other dims.
std::optional<std::vector<float>> perChannel(Value c, RankedTensorType convType) {
  DenseElementsAttr attr;
  if (!matchPattern(c, m_Constant(&attr)))
    return std::nullopt;
  auto shape = attr.getType().getShape();
  int64_t f = convType.getDimSize(1);
  if ((int64_t)shape.size() > convType.getRank())
    return std::nullopt;
  int64_t offset = convType.getRank() - shape.size();
  bool alongChannel = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t d = offset + i;
    if (shape[i] == 1)
      continue;
    if (d != 1 || shape[i] != f)
      return std::nullopt;
    alongChannel = true;
  }
  if (!alongChannel && attr.getNumElements() != 1)
    return std::nullopt;
  auto v = floats(attr, attr.getNumElements());
  if (!v)
    return std::nullopt;
  if (!alongChannel)
    return std::vector<float>(f, (*v)[0]);
  return v;
}

/// A conv with constant f32 weights (and bias, if any) that only `user` uses.
ConvOp foldableConv(Value v, Operation *user) {
  auto conv = v.getDefiningOp<ConvOp>();
  if (!conv || !conv->hasOneUse() || !conv.getType().getElementType().isF32())
    return {};
  if (!matchPattern(conv.getWeight(), m_Constant()))
    return {};
  if (conv.getBias() && !matchPattern(conv.getBias(), m_Constant()))
    return {};
  return conv;
}

Value constantOf(PatternRewriter &b, Location loc, RankedTensorType type, ArrayRef<float> v) {
  return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(type, v));
}

/// Rebuilds `conv` with weights scaled per output channel by `scale` (if given)
/// and `shift` added to the bias (if given).
Value rebuildConv(PatternRewriter &b, ConvOp conv, const std::vector<float> *scale,
                  const std::vector<float> *shift) {
  Location loc = conv.getLoc();
  auto wType = conv.getWeight().getType();
  int64_t f = wType.getDimSize(0), perFilter = wType.getNumElements() / f;
  DenseElementsAttr wAttr, bAttr;
  matchPattern(conv.getWeight(), m_Constant(&wAttr));
  std::vector<float> w = *floats(wAttr, wType.getNumElements());
  std::vector<float> bias(f, 0.0f);
  if (conv.getBias()) {
    matchPattern(conv.getBias(), m_Constant(&bAttr));
    bias = *floats(bAttr, f);
  }
  if (scale) {
    for (int64_t i = 0; i < f; ++i) {
      for (int64_t j = 0; j < perFilter; ++j)
        w[i * perFilter + j] *= (*scale)[i];
      bias[i] *= (*scale)[i];
    }
  }
  if (shift)
    for (int64_t i = 0; i < f; ++i)
      bias[i] += (*shift)[i];
  Value newW = scale ? constantOf(b, loc, wType, w) : conv.getWeight();
  Value newB = constantOf(b, loc, RankedTensorType::get({f}, wType.getElementType()), bias);
  return ConvOp::create(b, loc, conv.getInput(), newW, newB, conv.getStridesAttr(),
                        conv.getPadsAttr(), conv.getDilationsAttr(), conv.getGroupAttr(),
                        conv.getInputUnsignedAttr(), conv.getWeightUnsignedAttr(),
                        conv.getPadValueAttr());
}

template <typename OpTy, bool isScale> struct FoldIntoConv : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &b) const override {
    for (auto [convSide, constSide] : {std::pair{op.getLhs(), op.getRhs()},
                                       std::pair{op.getRhs(), op.getLhs()}}) {
      ConvOp conv = foldableConv(convSide, op);
      if (!conv || op.getType() != conv.getType())
        continue;
      auto values = perChannel(constSide, conv.getType());
      if (!values)
        continue;
      b.setInsertionPoint(conv);
      Value r = isScale ? rebuildConv(b, conv, &*values, nullptr)
                        : rebuildConv(b, conv, nullptr, &*values);
      b.replaceOp(op, r);
      b.eraseOp(conv);
      return success();
    }
    return failure();
  }
};

struct GraphFoldConvAffinePass
    : dlc::graph::impl::GraphFoldConvAffineBase<GraphFoldConvAffinePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldIntoConv<MulOp, true>, FoldIntoConv<AddOp, false>>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
