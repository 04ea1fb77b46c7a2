// dlc-raise-attention: the MatMul-Softmax-MatMul chains exporters write for attention,
// raised into dlc_graph.attention when its decomposition rebuilds exactly the same ops.
#include "dialects/Graph/Transforms/Expansions.h"
#include "dialects/Graph/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace dlc::graph {
#define GEN_PASS_DEF_GRAPHRAISEATTENTION
#include "dialects/Graph/Transforms/Passes.h.inc"
} // namespace dlc::graph

using namespace mlir;
using namespace dlc::graph;

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// The value of a splat float constant, when it survives a round trip through double
/// (the expansion recreates it from the attribute's double) and is not NaN.
std::optional<double> splatValue(Value v) {
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat() ||
      !isa<FloatType>(attr.getElementType()) ||
      attr.getElementType().getIntOrFloatBitWidth() > 64)
    return std::nullopt;
  APFloat f = attr.getSplatValue<APFloat>();
  if (f.isNaN())
    return std::nullopt;
  bool lost = false;
  f.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  if (lost)
    return std::nullopt;
  return f.convertToDouble();
}

/// `v` is produced by an op whose only user is `user` (so the raised op may absorb it).
bool onlyFeeds(Value v, Operation *user) {
  return v.getDefiningOp() && v.hasOneUse() && *v.getUsers().begin() == user;
}

/// What the chain between the two matmuls holds, outside in.
struct Chain {
  SmallVector<Location> locs; // one per step, in the expansion's order
  Value q, key, mask, select;
  std::optional<double> scale, fill;
  bool divides = false, fillWhereTrue = false, nanToZero = false;
};

/// s = [where(select, ., fill)] ([div|mul by c] (matmul(Q, KT))), every op used once by the
/// next and keeping the scores' type. Steps are appended to `locs` in reverse.
bool matchScores(Value s, Operation *user, Chain &c, SmallVectorImpl<Location> &locs) {
  if (!onlyFeeds(s, user))
    return false;
  RankedTensorType scoresType = typeOf(s);
  if (auto w = s.getDefiningOp<WhereOp>()) {
    if (auto f = splatValue(w.getRhs()); f && typeOf(w.getLhs()) == scoresType) {
      c.fill = f;
    } else if (auto f = splatValue(w.getLhs()); f && typeOf(w.getRhs()) == scoresType) {
      c.fill = f;
      c.fillWhereTrue = true;
    } else {
      return false;
    }
    c.select = w.getCondition();
    locs.push_back(w.getLoc());
    user = w;
    s = c.fillWhereTrue ? w.getRhs() : w.getLhs();
    if (!onlyFeeds(s, user))
      return false;
  }
  Operation *scaleOp = s.getDefiningOp();
  Value scaled;
  if (auto div = dyn_cast_or_null<DivOp>(scaleOp)) {
    c.scale = splatValue(div.getRhs());
    c.divides = true;
    scaled = div.getLhs();
  } else if (auto mul = dyn_cast_or_null<MulOp>(scaleOp)) {
    c.scale = splatValue(mul.getRhs());
    scaled = mul.getLhs();
    if (!c.scale) {
      c.scale = splatValue(mul.getLhs());
      scaled = mul.getRhs();
    }
  }
  if (c.scale) {
    // A factor of exactly 1 (which the expansion skips), 0 or inf is left to the primitives.
    if (*c.scale == 1.0 || *c.scale == 0.0 || std::isinf(*c.scale) ||
        typeOf(scaled) != scoresType || !onlyFeeds(scaled, scaleOp))
      return false;
    locs.push_back(scaleOp->getLoc());
    s = scaled;
    user = scaleOp;
  }
  auto qk = s.getDefiningOp<MatMulOp>();
  if (!qk)
    return false;
  locs.push_back(qk.getLoc());
  c.q = qk.getLhs();
  c.key = qk.getRhs();
  return true;
}

/// matmul(P', V) with P' = softmax(L) or where(is_nan(P), 0, P), L = S [+ mask].
struct RaiseAttentionPattern : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatMulOp pv, PatternRewriter &rewriter) const override {
    Chain c;
    SmallVector<Location> locs; // outside in; reversed at the end
    locs.push_back(pv.getLoc());
    Value p = pv.getLhs(), v = pv.getRhs();
    Operation *user = pv;
    if (auto w = p.getDefiningOp<WhereOp>()) {
      auto isNan = w.getCondition().getDefiningOp<IsNaNOp>();
      auto zero = splatValue(w.getLhs());
      if (!isNan || isNan.getInput() != w.getRhs() || !zero || *zero != 0.0 ||
          std::signbit(*zero) || !onlyFeeds(w, pv) || !isNan->hasOneUse() ||
          typeOf(w.getResult()) != typeOf(w.getRhs()))
        return failure();
      p = w.getRhs();
      // P feeds exactly the is_nan and the where.
      if (!p.getDefiningOp() || llvm::any_of(p.getUsers(), [&](Operation *u) {
            return u != w.getOperation() && u != isNan.getOperation();
          }) || std::distance(p.getUses().begin(), p.getUses().end()) != 2)
        return failure();
      c.nanToZero = true;
      locs.push_back(w.getLoc());
      locs.push_back(isNan.getLoc());
      user = nullptr; // checked above
    }
    auto softmax = p.getDefiningOp<SoftmaxOp>();
    if (!softmax || (user && !onlyFeeds(p, user)))
      return failure();
    auto st = typeOf(softmax.getResult());
    if (st.getRank() != 4 || softmax.getAxis() != 3 || !isa<FloatType>(st.getElementType()))
      return failure();
    locs.push_back(softmax.getLoc());
    Value l = softmax.getInput();
    user = softmax;
    SmallVector<Location> scoreLocs;
    Chain scoresOnly = c;
    if (auto add = l.getDefiningOp<AddOp>(); add && onlyFeeds(l, softmax)) {
      // Either side may be the scores (an IEEE add commutes exactly).
      for (int side = 0; side < 2 && !c.q; ++side) {
        Value s = add->getOperand(side), mask = add->getOperand(1 - side);
        Chain attempt = scoresOnly;
        SmallVector<Location> attemptLocs;
        if (typeOf(s) != st || !matchScores(s, add, attempt, attemptLocs))
          continue;
        c = attempt;
        c.mask = mask;
        scoreLocs = attemptLocs;
        scoreLocs.insert(scoreLocs.begin(), add.getLoc());
      }
    } else if (!matchScores(l, softmax, c, scoreLocs)) {
      return failure();
    }
    if (!c.q)
      return failure();
    locs.append(scoreLocs);
    // Rank-4 Q, K^T, V with equal batch and head dims (no broadcasting) and one float type.
    auto qt = typeOf(c.q), kt = typeOf(c.key), vt = typeOf(v);
    if (qt.getRank() != 4 || kt.getRank() != 4 || vt.getRank() != 4 ||
        qt.getElementType() != st.getElementType() || kt.getElementType() != qt.getElementType() ||
        vt.getElementType() != qt.getElementType())
      return failure();
    for (int d = 0; d < 2; ++d)
      if (kt.getDimSize(d) != qt.getDimSize(d) || vt.getDimSize(d) != qt.getDimSize(d))
        return failure();
    if (vt.getDimSize(2) != kt.getDimSize(3))
      return failure();

    std::reverse(locs.begin(), locs.end());
    MLIRContext *ctx = rewriter.getContext();
    Location loc = FusedLoc::get(ctx, locs, StringAttr::get(ctx, kAttentionStepsTag));
    SmallVector<Value> operands = {c.q, c.key, v};
    if (c.mask)
      operands.push_back(c.mask);
    if (c.select)
      operands.push_back(c.select);
    SmallVector<NamedAttribute> attrs = {
        rewriter.getNamedAttr("key_transposed", rewriter.getUnitAttr())};
    if (c.mask)
      attrs.push_back(rewriter.getNamedAttr("has_mask", rewriter.getUnitAttr()));
    if (c.select)
      attrs.push_back(rewriter.getNamedAttr("has_select", rewriter.getUnitAttr()));
    if (c.scale)
      attrs.push_back(rewriter.getNamedAttr("score_scale", rewriter.getF64FloatAttr(*c.scale)));
    if (c.divides)
      attrs.push_back(rewriter.getNamedAttr("score_scale_divides", rewriter.getUnitAttr()));
    if (c.select)
      attrs.push_back(rewriter.getNamedAttr("select_fill", rewriter.getF64FloatAttr(*c.fill)));
    if (c.fillWhereTrue)
      attrs.push_back(rewriter.getNamedAttr("select_fill_where_true", rewriter.getUnitAttr()));
    if (c.nanToZero)
      attrs.push_back(rewriter.getNamedAttr("nan_to_zero", rewriter.getUnitAttr()));
    // The raised op must infer the very type it replaces (checked silently: no location).
    SmallVector<Type> inferred;
    if (failed(AttentionOp::inferReturnTypes(ctx, std::nullopt, operands,
                                             DictionaryAttr::get(ctx, attrs), nullptr, {},
                                             inferred)) ||
        inferred.size() != 1 || inferred[0] != pv.getType())
      return failure();
    OperationState state(loc, AttentionOp::getOperationName());
    state.addOperands(operands);
    state.addAttributes(attrs);
    state.addTypes(pv.getType());
    Operation *att = rewriter.create(state);
    rewriter.replaceOp(pv, att->getResults());
    return success();
  }
};

struct GraphRaiseAttentionPass
    : dlc::graph::impl::GraphRaiseAttentionBase<GraphRaiseAttentionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RaiseAttentionPattern>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
