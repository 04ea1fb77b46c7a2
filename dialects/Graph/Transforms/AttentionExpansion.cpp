// dlc_graph.attention -> primitive ops: scaled QK^T (grouped-query heads repeated), score
// scale, softcap, select, the additive bias (mask, offset-aligned causal and window bands,
// kv lengths), softmax (ONNX's guarded form or dlc_graph.softmax), PV.
#include "dialects/Graph/Transforms/Expansions.h"

#include <cmath>

using namespace mlir;

namespace dlc::graph {
namespace {

/// An i1 constant [rows, cols]: allowed(i, j) iff diff = i + offset - j has diff <= below
/// and -diff <= above (below/above < 0: unbounded on that side; causal is below = -1,
/// above = 0).
Value bandMask(GraphExpr &e, int64_t rows, int64_t cols, int64_t offset, int64_t below,
               int64_t above) {
  SmallVector<bool> v;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      int64_t diff = i + offset - j;
      v.push_back((below < 0 || diff <= below) && (above < 0 || -diff <= above));
    }
  auto type = RankedTensorType::get({rows, cols}, e.b.getI1Type());
  return e.constant(DenseElementsAttr::get(type, ArrayRef<bool>(v)));
}

/// 0..n-1 as an i64 constant of `shape` (n elements).
Value iota(GraphExpr &e, ArrayRef<int64_t> shape, int64_t n) {
  SmallVector<int64_t> values;
  for (int64_t i = 0; i < n; ++i)
    values.push_back(i);
  return e.ints(shape, values);
}

Value isNegInf(GraphExpr &e, Value x) {
  if (e.failed || !x)
    return e.fail();
  auto t = e.typeOf(x);
  return e.op<IsInfOp>({x},
                       {e.named("detect_positive", e.b.getBoolAttr(false)),
                        e.named("detect_negative", e.b.getBoolAttr(true))},
                       {RankedTensorType::get(t.getShape(), e.b.getI1Type())});
}

} // namespace

FailureOr<SmallVector<Value>> expandAttention(GraphExpr &e, AttentionOp op) {
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue(), mask = op.getMask(),
        nonpad = op.getKvLengths();
  auto qt = e.typeOf(q), kt = e.typeOf(k);
  Type outElt = qt.getElementType(), i64 = e.b.getI64Type(), i1 = e.b.getI1Type();
  // fp16/bf16 attention computes in f32 and rounds its results once (as ONNX Runtime; the
  // 8 fp16 conformance cases are within their 1e-3 only so): products summed over the
  // head size and the sequence, and softmax's sums, lose too much in 16 bits.
  bool widen = isa<FloatType>(outElt) && outElt.getIntOrFloatBitWidth() < 32;
  Type elt = widen ? Type(e.b.getF32Type()) : outElt;
  if (widen) {
    q = e.cast(q, elt);
    k = e.cast(k, elt);
    v = e.cast(v, elt);
  }
  e.elt = elt;
  bool keyTransposed = op.getKeyTransposed();
  int64_t batch = qt.getDimSize(0), hq = qt.getDimSize(1), sq = qt.getDimSize(2),
          hkv = kt.getDimSize(1), skv = kt.getDimSize(keyTransposed ? 3 : 2);
  int64_t pastLen = op.causalOffset(), left = op.windowLeft(), right = op.windowRight();
  // A raised op has one location per step (the exporter's nodes); others one for all.
  ArrayRef<Location> steps;
  if (auto fused = dyn_cast<FusedLoc>(op.getLoc()))
    if (auto tag = dyn_cast_or_null<StringAttr>(fused.getMetadata());
        tag && tag.getValue() == kAttentionStepsTag)
      steps = fused.getLocations();
  size_t nextStep = 0;
  auto step = [&] {
    if (nextStep < steps.size())
      e.loc = steps[nextStep++];
  };

  // ONNX scales Q and K by sqrt(scale) each (a factor of 1 is exact to skip).
  Value qs = q, ks = k;
  if (double factor = op.qkFactor(); factor != 1.0) {
    Value s = e.c(factor);
    qs = e.op<MulOp>({q, s});
    ks = e.op<MulOp>({k, s});
  }
  if (hq != hkv) {
    ks = e.repeatHeads(ks, hq);
    v = e.repeatHeads(v, hq);
  }
  step();
  Value qk = e.op<MatMulOp>({qs, keyTransposed ? ks : e.transpose(ks, {0, 1, 3, 2})});
  // Exporters scale the scores with a Div or a Mul (x / 8 and x * 0.125 differ in general).
  if (double scale = op.scoreScale(); scale != 1.0) {
    step();
    qk = op.getScoreScaleDivides() ? e.op<DivOp>({qk, e.c(scale)})
                                   : e.op<MulOp>({qk, e.c(scale)});
  }
  if (double softcap = op.softcapValue(); softcap > 0)
    qk = e.op<MulOp>({e.op<TanhOp>({e.op<DivOp>({qk, e.c(softcap)})}), e.c(softcap)});
  if (Value select = op.getSelect()) {
    step();
    Value fill = e.c(op.getSelectFillAttr().getValueAsDouble());
    qk = op.getSelectFillWhereTrue() ? e.where(select, fill, qk) : e.where(select, qk, fill);
  }
  Value scores = qk;

  // The additive bias [.., sq, skv]: mask, causal, window, padding (in that order).
  auto zero = [&] { return e.c(0); };
  auto negInf = [&] { return e.c(-INFINITY); };
  Value bias;
  if (mask) {
    bool isBool = e.typeOf(mask).getElementType().isInteger(1);
    bias = isBool ? e.where(mask, zero(), negInf()) : e.cast(mask, elt);
  }
  auto addBias = [&](Value extra) { bias = bias ? e.op<AddOp>({bias, extra}) : extra; };
  auto offsetMask = [&](int64_t below, int64_t above) -> Value {
    // Constants of [sq, skv] and [skv] (an empty batch or head dim leaves them unbounded).
    if (failed(e.checkShape({sq, skv}, i1, "the attention mask")) ||
        failed(e.checkShape({skv}, i64, "the key positions")))
      return e.fail();
    if (!nonpad)
      return e.where(bandMask(e, sq, skv, pastLen, below, above), zero(), negInf());
    // Per batch: offset[b] = nonpad[b] - sq; allowed iff band(i + offset[b] - j).
    Value ii = iota(e, {sq, 1}, sq), jj = iota(e, {1, skv}, skv);
    Value off = e.op<SubOp>({e.reshape(e.cast(nonpad, i64), {batch, 1, 1}), e.c(i64, sq)});
    Value diff = e.op<SubOp>({e.op<AddOp>({ii, off}), jj}); // [B, sq, skv]
    Value ok;
    auto both = [&](Value c) { ok = ok ? e.op<AndOp>({ok, c}) : c; };
    if (below >= 0)
      both(e.op<LessEqualOp>({diff, e.c(i64, below)}));
    if (above >= 0)
      both(e.op<LessEqualOp>({e.op<NegOp>({diff}), e.c(i64, above)}));
    if (!ok)
      return e.reshape(e.op<MulOp>({diff, e.c(i64, 0)}), {batch, 1, sq, skv}); // unreachable
    return e.reshape(e.where(ok, zero(), negInf()), {batch, 1, sq, skv});
  };
  if (op.getIsCausal())
    addBias(offsetMask(-1, 0)); // j <= i + offset
  if (left >= 0 || right >= 0)
    addBias(offsetMask(left, right));
  if (nonpad) {
    if (failed(e.checkShape({skv}, i64, "the key positions")))
      return failure();
    Value jj = iota(e, {1, skv}, skv);
    Value valid = e.op<LessOp>({jj, e.reshape(e.cast(nonpad, i64), {batch, 1})});
    addBias(e.reshape(e.where(valid, zero(), negInf()), {batch, 1, 1, skv}));
  }
  if (bias)
    step();
  Value logits = bias ? e.op<AddOp>({qk, bias}) : qk;
  std::optional<int64_t> mode = op.getScoresMode();
  if (mode == 2)
    scores = logits;

  Type smElt = op.getSoftmaxType() ? *op.getSoftmaxType() : elt;
  Value x = e.cast(logits, smElt), p;
  if (e.failed) // the Values above are null
    return failure();
  if (op.getMaskedRowsZero()) {
    // Softmax that maps an all -inf row to zeros (no NaN).
    Value mx = e.reduce<ReduceMaxOp>(x, {3}, true);
    Value smZero = e.c(smElt, 0), smOne = e.c(smElt, 1);
    Value ex = e.op<ExpOp>({e.op<SubOp>({x, e.where(isNegInf(e, mx), smZero, mx)})});
    Value sum = e.reduce<ReduceSumOp>(ex, {3}, true);
    sum = e.where(e.op<EqualOp>({sum, smZero}), smOne, sum);
    p = e.op<DivOp>({ex, sum});
    if (bias && !e.failed) {
      // Rows whose bias is entirely -inf attend to nothing: their probabilities are 0.
      int64_t last = e.typeOf(bias).getRank() - 1;
      Value bmax = e.reduce<ReduceMaxOp>(bias, {last}, true);
      p = e.where(isNegInf(e, bmax), smZero, p);
    }
  } else {
    step();
    p = e.op<SoftmaxOp>({x}, {e.named("axis", e.b.getI64IntegerAttr(3))});
    if (op.getNanToZero() && !e.failed) {
      step();
      Value nan = e.op<IsNaNOp>({p}, {}, {RankedTensorType::get(e.typeOf(p).getShape(), i1)});
      step();
      p = e.where(nan, e.c(smElt, 0), p);
    }
  }
  if (mode == 3)
    scores = p;
  Value pc = e.cast(p, elt);
  step();
  Value y = e.cast(e.op<MatMulOp>({pc, v}), outElt);
  SmallVector<Value> results = {y};
  if (mode)
    results.push_back(e.cast(scores, outElt));
  if (e.failed)
    return failure();
  return results;
}

} // namespace dlc::graph
