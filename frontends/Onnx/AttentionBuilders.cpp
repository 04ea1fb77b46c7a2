// ONNX Attention (opset 23+) -> dlc_graph.attention (expanded by dlc-decompose), with its
// optional 3-D head split, KV cache concat and mask padding around it; and the other
// attention-family ops (TensorScatter, FlexAttention, RotaryEmbedding) as their function
// bodies (LinearAttention: LinearAttentionBuilder.cpp).
#include "frontends/Onnx/AttentionDynamic.h"
#include "frontends/Onnx/Expr.h"
#include "frontends/Onnx/RuntimeChecks.h"

#include <cmath>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

using Results = SmallVectorImpl<Value>;

/// [B, S, H*D] -> [B, H, S, D].
Value splitHeads(Expr &e, Value x, int64_t heads) {
  if (e.failed || !x) // an earlier builder failed
    return Value();
  auto t = tensorType(x);
  if (!t.hasStaticShape()) {
    auto split = splitHeadsDynamic(e.n, x, heads);
    return succeeded(split) ? *split : e.fail();
  }
  int64_t b = t.getDimSize(0), s = t.getDimSize(1), hd = t.getDimSize(2);
  if (heads <= 0 || hd % heads) {
    (void)e.n.error("hidden size " + Twine(hd) + " is not divisible by " + Twine(heads) +
                    " heads");
    return e.fail();
  }
  return e.transpose(e.reshape(x, {b, s, heads, hd / heads}), {0, 2, 1, 3});
}

LogicalResult attention(NodeImporter &n, Results &out) {
  auto q0 = n.requiredInput(0), k0 = n.requiredInput(1), v0 = n.requiredInput(2);
  DLC_TRY(q0);
  DLC_TRY(k0);
  DLC_TRY(v0);
  Value mask = n.input(3), pastK = n.input(4), pastV = n.input(5), nonpad = n.input(6);
  auto isCausal = n.intAttr("is_causal", 0), qHeads = n.intAttr("q_num_heads", 0),
       kvHeads = n.intAttr("kv_num_heads", 0), mode = n.intAttr("qk_matmul_output_mode", 0),
       precision = n.intAttr("softmax_precision", 0), left = n.intAttr("left_window_size", -1),
       right = n.intAttr("right_window_size", -1);
  auto scaleAttr = n.floatAttr("scale", NAN), softcap = n.floatAttr("softcap", 0.0f);
  DLC_TRY(isCausal);
  DLC_TRY(qHeads);
  DLC_TRY(kvHeads);
  DLC_TRY(mode);
  DLC_TRY(precision);
  DLC_TRY(left);
  DLC_TRY(right);
  DLC_TRY(scaleAttr);
  DLC_TRY(softcap);
  auto qt = tensorType(*q0);
  Type elt = qt.getElementType();
  int64_t rank = qt.getRank();
  if (!isa<FloatType>(elt) || (rank != 3 && rank != 4) || tensorType(*k0).getRank() != rank ||
      tensorType(*v0).getRank() != rank)
    return n.error("expects floating-point Q, K and V of rank 3 or 4");
  if ((pastK == nullptr) != (pastV == nullptr))
    return n.error("past_key and past_value must be given together");
  if (nonpad && pastK)
    return n.error("nonpad_kv_seqlen cannot be combined with past_key/past_value");
  if (pastK && (tensorType(pastK).getRank() != 4 || tensorType(pastV).getRank() != 4))
    return n.error("past_key and past_value must be 4-D [batch, kv_num_heads, "
                   "past_sequence_length, head_size]");
  Expr e{n, elt};
  Value q = *q0, k = *k0, v = *v0;
  if (rank == 3) {
    if (*qHeads <= 0 || *kvHeads <= 0)
      return n.error("3-D inputs need q_num_heads and kv_num_heads");
    q = splitHeads(e, q, *qHeads);
    k = splitHeads(e, k, *kvHeads);
    v = splitHeads(e, v, *kvHeads);
  }
  if (e.failed)
    return failure();
  // Dynamic dims (dlc compile --dims): the sizes of the symbols stand in for the static
  // ones where the static form reads them.
  auto isDynamic = [](Value x) { return x && !tensorType(x).hasStaticShape(); };
  bool dynamic = isDynamic(q) || isDynamic(k) || isDynamic(v) || isDynamic(mask) ||
                 isDynamic(pastK) || isDynamic(pastV);
  Value pastOffset; // the past length as a 0-d i64 tensor (dynamic dims)
  if (dynamic)
    pastOffset = pastK ? [&] {
      auto len = n.dimSize(pastK, 2);
      return succeeded(len) ? *len : Value();
    }()
                       : n.intConstant(n.b.getI64Type(), 0);
  if (dynamic && !pastOffset)
    return failure();
  int64_t batch = tensorType(q).getDimSize(0), hq = tensorType(q).getDimSize(1);
  int64_t sq = tensorType(q).getDimSize(2), d = tensorType(q).getDimSize(3);
  int64_t pastLen = pastK ? tensorType(pastK).getDimSize(2) : 0;
  if (pastK) {
    auto axis2 = n.named("axis", n.b.getI64IntegerAttr(2));
    k = e.op<ConcatOp>({pastK, k}, {axis2});
    v = e.op<ConcatOp>({pastV, v}, {axis2});
  }
  Value presentK = k, presentV = v;
  if (e.failed)
    return failure();
  int64_t hkv = tensorType(k).getDimSize(1), skv = tensorType(k).getDimSize(2);
  std::optional<SmallVector<SymbolicSize>> qs, ks;
  if (dynamic) {
    qs = n.sizesOf(q);
    ks = n.sizesOf(k);
    auto vs = n.sizesOf(v);
    if (!qs || !ks || !vs)
      return n.error("the sizes of Q, K and V's dynamic dims are not known");
    if ((*ks)[1] != (*vs)[1])
      return n.error("K and V must have the same number of heads, got " + (*ks)[1].str() +
                     " and " + (*vs)[1].str());
    // Grouped-query heads repeated here (the expansion sees equal head counts).
    if ((*qs)[1] != (*ks)[1]) {
      auto rk = repeatHeadsDynamic(n, k, (*qs)[1]), rv = repeatHeadsDynamic(n, v, (*qs)[1]);
      DLC_TRY(rk);
      DLC_TRY(rv);
      k = *rk;
      v = *rv;
      hkv = hq;
    }
  }
  // (A V with another head count than K divided by zero in repeatKvHeads: a fuzz-onnx find.)
  if (!dynamic && tensorType(v).getDimSize(1) != hkv)
    return n.error("K and V must have the same number of heads, got " + Twine(hkv) + " and " +
                   Twine(tensorType(v).getDimSize(1)));
  if (hq != hkv && (hkv <= 0 || hq % hkv != 0))
    return n.error("the query heads (" + Twine(hq) + ") must be a multiple of the key/value "
                   "heads (" + Twine(hkv) + ")");

  // The mask padded to skv positions (false / -inf).
  if (mask) {
    auto mt = tensorType(mask);
    if (mt.getRank() == 0) // a fuzz-onnx find: a scalar mask's last dim was read
      return n.error("attn_mask must have rank >= 1 (its last dim is kv_sequence_length)");
    int64_t pad = skv - mt.getDimSize(mt.getRank() - 1);
    bool isBool = mt.getElementType().isInteger(1);
    if (pad > 0 && !ShapedType::isDynamic(skv) && mt.hasStaticShape()) {
      SmallVector<int64_t> pads(2 * mt.getRank(), 0);
      pads[2 * mt.getRank() - 1] = pad;
      mask = e.pad(mask, pads, isBool ? 0.0 : -INFINITY);
      if (e.failed)
        return failure();
    } else if (dynamic) {
      // Dynamic sizes: padded by skv minus its last dim, computed when the model runs.
      auto ms = n.sizesOf(mask);
      if (!ms)
        return n.error("the sizes of attn_mask's dynamic dims are not known");
      std::optional<SymbolicSize> extra = sizeAdd((*n.sizesOf(k))[2], ms->back(), -1);
      if (extra && !(extra->isStatic() && extra->coef == 0)) {
        SmallVector<SymbolicSize> pads(2 * mt.getRank(), SymbolicSize::constant(0));
        pads.back() = *extra;
        SmallVector<Value> padded;
        if (failed(symbolicPad(n, mask, pads, isBool ? 0.0 : -INFINITY, padded)))
          return failure();
        mask = padded[0];
      }
    }
  }
  // The mask constants the expansion builds: [sq, skv] bands, [skv] key positions.
  if ((*isCausal || *left >= 0 || *right >= 0) &&
      (failed(n.checkShape({sq, skv}, n.b.getI1Type(), "the attention mask")) ||
       failed(n.checkShape({skv}, n.b.getI64Type(), "the key positions"))))
    return failure();
  if (nonpad && failed(n.checkShape({skv}, n.b.getI64Type(), "the key positions")))
    return failure();
  Type smElt = elt;
  if (*precision) {
    smElt = elementTypeFor(n.b.getContext(), *precision);
    if (!smElt || !isa<FloatType>(smElt))
      return n.error("unsupported softmax_precision " + Twine(*precision));
  }
  // What the expansion materializes (the op is kept whole until then): the scores, and
  // K and V repeated over the query heads.
  if (failed(n.checkShape({batch, hq, sq, skv}, elt, "the attention scores")) ||
      failed(n.checkShape({batch, hq, sq, skv}, smElt, "the attention scores")) ||
      (hq != hkv && (failed(n.checkShape({batch, hq, skv, d}, elt, "the repeated keys")) ||
                     failed(n.checkShape({batch, hq, skv, tensorType(v).getDimSize(3)}, elt,
                                         "the repeated values")))))
    return failure();

  // Dynamic sequence lengths: the causal and window bands are built here, over the
  // positions when the model runs, and added to the mask.
  bool bands = *isCausal || *left >= 0 || *right >= 0;
  if (dynamic && (bands || nonpad)) {
    SymbolicSize sqs = (*qs)[2], skvs = (*n.sizesOf(k))[2];
    Value bias;
    Value keyLimit; // nonpad_kv_seqlen as [B, 1, 1, 1]
    if (nonpad) {
      // Keys at or past each batch's length are masked, and the bands end there: the
      // offset of the last query is nonpad[b] - sq per batch.
      SymbolicSize one = SymbolicSize::constant(1);
      auto lens = n.create<CastOp>({nonpad}, {}, {RankedTensorType::get(tensorType(nonpad).getShape(), n.b.getI64Type())});
      DLC_TRY(lens);
      auto limit = n.reshapeTo(*lens, {(*qs)[0], one, one, one});
      DLC_TRY(limit);
      keyLimit = *limit;
      auto qlen = n.dimSize(q, 2);
      DLC_TRY(qlen);
      auto off = n.create<SubOp>({keyLimit, *qlen});
      DLC_TRY(off);
      pastOffset = *off;
      auto cols = n.iota(skvs);
      DLC_TRY(cols);
      auto col4 = n.reshapeTo(*cols, {one, one, one, skvs});
      DLC_TRY(col4);
      auto valid = n.create<LessOp>({*col4, keyLimit});
      DLC_TRY(valid);
      auto pad = n.create<WhereOp>({*valid, n.scalarConstant(elt, 0.0),
                                    n.scalarConstant(elt, -INFINITY)});
      DLC_TRY(pad);
      bias = *pad;
      nonpad = Value(); // folded into the mask
    }
    auto add = [&](FailureOr<Value> band) -> LogicalResult {
      DLC_TRY(band);
      if (!bias) {
        bias = *band;
        return success();
      }
      auto sum = n.create<AddOp>({bias, *band});
      DLC_TRY(sum);
      bias = *sum;
      return success();
    };
    if (*isCausal && failed(add(bandBias(n, sqs, skvs, pastOffset, -1, 0, elt))))
      return failure();
    if ((*left >= 0 || *right >= 0) &&
        failed(add(bandBias(n, sqs, skvs, pastOffset, std::max<int64_t>(*left, -1),
                            std::max<int64_t>(*right, -1), elt))))
      return failure();
    if (mask) {
      FailureOr<Value> m = mask;
      if (tensorType(mask).getElementType().isInteger(1))
        m = n.create<WhereOp>({mask, n.scalarConstant(elt, 0.0), n.scalarConstant(elt, -INFINITY)});
      else
        m = n.create<CastOp>({mask}, {}, {RankedTensorType::get(tensorType(mask).getShape(), elt)});
      DLC_TRY(m);
      auto sum = n.create<AddOp>({*m, bias});
      DLC_TRY(sum);
      bias = *sum;
    }
    mask = bias;
  }
  // Q and K are each scaled by sqrt(scale), as the reference does; a dynamic head size
  // scales them when the model runs.
  if (std::isnan(*scaleAttr) && ShapedType::isDynamic(d)) {
    auto size = n.dimSize(q, 3);
    DLC_TRY(size);
    auto f = n.create<CastOp>({*size}, {}, {RankedTensorType::get({}, elt)});
    DLC_TRY(f);
    auto root = n.create<SqrtOp>({*f}); // sqrt(1 / sqrt(d)) = 1 / sqrt(sqrt(d))
    DLC_TRY(root);
    auto fourth = n.create<SqrtOp>({*root});
    DLC_TRY(fourth);
    auto factor = n.create<ReciprocalOp>({*fourth});
    DLC_TRY(factor);
    auto sq2 = n.create<MulOp>({q, *factor}), sk2 = n.create<MulOp>({k, *factor});
    DLC_TRY(sq2);
    DLC_TRY(sk2);
    q = *sq2;
    k = *sk2;
    *scaleAttr = 1.0;
  }
  double scale = std::isnan(*scaleAttr) ? 1.0 / std::sqrt((double)d) : *scaleAttr;
  SmallVector<NamedAttribute> attrs = {
      n.named("qk_factor", n.b.getF64FloatAttr(std::sqrt(scale))),
      n.named("masked_rows_zero", n.b.getUnitAttr())};
  if (mask)
    attrs.push_back(n.named("has_mask", n.b.getUnitAttr()));
  if (nonpad)
    attrs.push_back(n.named("has_kv_lengths", n.b.getUnitAttr()));
  if (*softcap > 0)
    attrs.push_back(n.named("softcap", n.b.getF64FloatAttr(*softcap)));
  if (*isCausal && !dynamic)
    attrs.push_back(n.named("is_causal", n.b.getUnitAttr()));
  if (pastLen && !dynamic)
    attrs.push_back(n.named("causal_offset", n.b.getI64IntegerAttr(pastLen)));
  if ((*left >= 0 || *right >= 0) && !dynamic) {
    attrs.push_back(n.named("window_left", n.b.getI64IntegerAttr(std::max<int64_t>(*left, -1))));
    attrs.push_back(n.named("window_right", n.b.getI64IntegerAttr(std::max<int64_t>(*right, -1))));
  }
  if (smElt != elt)
    attrs.push_back(n.named("softmax_type", TypeAttr::get(smElt)));
  bool qkOutput = n.numUsedOutputs() > 3;
  if (qkOutput)
    attrs.push_back(n.named("scores_mode", n.b.getI64IntegerAttr(*mode)));
  SmallVector<Value> operands = {q, k, v};
  if (mask)
    operands.push_back(mask);
  if (nonpad)
    operands.push_back(nonpad);
  auto att = n.createMulti(AttentionOp::getOperationName(), operands, attrs);
  if (failed(att))
    return failure();
  Value y = (*att)[0];
  if (rank == 3 && !tensorType(y).hasStaticShape()) {
    auto merged = mergeHeadsDynamic(n, y);
    DLC_TRY(merged);
    y = *merged;
  } else if (rank == 3) {
    // heads x head size (an empty batch or sequence leaves the heads attribute unbounded)
    auto hidden = n.product({hq, tensorType(y).getDimSize(3)}, "the output hidden size");
    DLC_TRY(hidden);
    y = e.reshape(e.transpose(y, {0, 2, 1, 3}), {batch, sq, *hidden});
  }
  if (e.failed)
    return failure();
  out.push_back(y);
  if (n.numUsedOutputs() > 1) {
    out.push_back(presentK);
    out.push_back(presentV);
    // qk_matmul_output (when unused, a placeholder that nothing reads).
    out.push_back(qkOutput ? (*att)[1] : presentK);
  }
  return success();
}

/// x[..., start : start + size] along the last dim (sizes of the symbols).
FailureOr<Value> lastPart(NodeImporter &n, Value x, const SymbolicSize &start,
                          const SymbolicSize &size) {
  auto d = n.sizesOf(x);
  if (!d)
    return n.error("the sizes of the rotated input's dynamic dims are not known");
  SmallVector<SymbolicSize> from(d->size(), SymbolicSize::constant(0)), to(*d);
  from.back() = start;
  to.back() = size;
  return sliceTo(n, x, from, to);
}

/// RotaryEmbedding (opset 23): rotates the first rotary_embedding_dim features of each
/// head by the cos/sin caches (gathered at position_ids when given), halves or interleaved.
/// Sizes are symbolic throughout (dynamic dims: a full rotation's half is the caches' last
/// dim, the head width checked against it when the model runs).
LogicalResult rotaryEmbedding(NodeImporter &n, Results &out) {
  using Size = SymbolicSize;
  auto x0 = n.requiredInput(0), cos0 = n.requiredInput(1), sin0 = n.requiredInput(2);
  auto interleaved = n.intAttr("interleaved", 0), rotDim = n.intAttr("rotary_embedding_dim", 0),
       heads = n.intAttr("num_heads", 0);
  DLC_TRY(x0); DLC_TRY(cos0); DLC_TRY(sin0); DLC_TRY(interleaved); DLC_TRY(rotDim); DLC_TRY(heads);
  auto xt = tensorType(*x0);
  Type elt = xt.getElementType();
  if (!isa<FloatType>(elt) || (xt.getRank() != 3 && xt.getRank() != 4))
    return n.error("expects a floating-point input of rank 3 or 4");
  auto xs = n.sizesOf(*x0);
  if (!xs)
    return n.error("the sizes of the input's dynamic dims are not known");
  Expr e{n, elt};
  FailureOr<Value> x = *x0;
  // To [B, S, H, D].
  if (xt.getRank() == 4) {
    x = e.transpose(*x0, {0, 2, 1, 3});
  } else {
    int64_t hidden = xt.getDimSize(2);
    if (*heads <= 0 || (!ShapedType::isDynamic(hidden) && hidden % *heads))
      return n.error("3-D input needs num_heads dividing the hidden size");
    x = n.reshapeTo(*x0, {(*xs)[0], (*xs)[1], Size::constant(*heads),
                          sizeFloorDiv((*xs)[2], *heads)});
  }
  DLC_TRY(x);
  auto x4 = n.sizesOf(*x);
  if (e.failed || !x4)
    return failure();
  Size b = (*x4)[0], sq = (*x4)[1], h = (*x4)[2], d = (*x4)[3];
  FailureOr<Value> cosv = *cos0, sinv = *sin0;
  if (Value pos = n.input(3)) {
    auto axis0 = n.named("axis", n.b.getI64IntegerAttr(0));
    cosv = n.create<GatherOp>({*cos0, pos}, {axis0});
    sinv = n.create<GatherOp>({*sin0, pos}, {axis0});
    DLC_TRY(cosv); DLC_TRY(sinv);
  }
  if (tensorType(*cosv).getRank() < 1 || tensorType(*sinv).getRank() < 1)
    return n.error("cos_cache and sin_cache must have rank >= 1 (their last dim is "
                   "rotary_embedding_dim / 2)");
  auto cs = n.sizesOf(*cosv);
  if (!cs)
    return n.error("the sizes of the caches' dynamic dims are not known");
  // The rotated width rd and its half: the attribute, else the head width D (its half the
  // caches' last dim where D is dynamic).
  bool full = *rotDim == 0 || (d.isStatic() && *rotDim == d.coef);
  Size rd = full ? d : Size::constant(*rotDim);
  Size half = rd.isStatic() ? Size::constant(rd.coef / 2) : cs->back();
  if (rd.isStatic() && (rd.coef < 0 || rd.coef % 2 || (d.isStatic() && rd.coef > d.coef)))
    return n.error("rotary_embedding_dim " + Twine(rd.coef) + " must be even and at most " +
                   (d.isStatic() ? Twine(d.coef) : Twine(d.str())));
  if (cs->back().isStatic() && half.isStatic() && cs->back() != half)
    return n.error("the caches' last dim must be rotary_embedding_dim / 2 = " + Twine(half.coef));
  auto c4 = n.reshapeTo(*cosv, {b, sq, Size::constant(1), half});
  auto s4 = n.reshapeTo(*sinv, {b, sq, Size::constant(1), half});
  DLC_TRY(c4); DLC_TRY(s4);
  FailureOr<Value> rot = full ? *x : lastPart(n, *x, Size::constant(0), rd);
  DLC_TRY(rot);
  FailureOr<Value> x1 = failure(), x2 = failure();
  Size one = Size::constant(1), two = Size::constant(2);
  if (*interleaved) { // [.., rd] as [.., half, 2]: the even and odd features
    auto pairs = n.reshapeTo(*rot, {b, sq, h, half, two});
    DLC_TRY(pairs);
    auto take = [&](int64_t i) -> FailureOr<Value> {
      auto p = lastPart(n, *pairs, Size::constant(i), one);
      return succeeded(p) ? n.reshapeTo(*p, {b, sq, h, half}) : p;
    };
    x1 = take(0);
    x2 = take(1);
  } else {
    x1 = lastPart(n, *rot, Size::constant(0), half);
    x2 = lastPart(n, *rot, half, half);
  }
  DLC_TRY(x1); DLC_TRY(x2);
  Value real = e.op<SubOp>({e.op<MulOp>({*c4, *x1}), e.op<MulOp>({*s4, *x2})});
  Value imag = e.op<AddOp>({e.op<MulOp>({*s4, *x1}), e.op<MulOp>({*c4, *x2})});
  if (e.failed)
    return failure();
  auto lastAxis = [&](int64_t a) { return n.named("axis", n.b.getI64IntegerAttr(a)); };
  FailureOr<Value> y = failure();
  if (*interleaved) {
    auto r5 = n.reshapeTo(real, {b, sq, h, half, one}), i5 = n.reshapeTo(imag, {b, sq, h, half, one});
    DLC_TRY(r5); DLC_TRY(i5);
    auto joined = n.create<ConcatOp>({*r5, *i5}, {lastAxis(4)});
    DLC_TRY(joined);
    y = n.reshapeTo(*joined, {b, sq, h, *sizeAdd(half, half)});
  } else {
    y = n.create<ConcatOp>({real, imag}, {lastAxis(3)});
  }
  DLC_TRY(y);
  if (!full) {
    auto rest = lastPart(n, *x, rd, *sizeAdd(d, rd, -1));
    DLC_TRY(rest);
    y = n.create<ConcatOp>({*y, *rest}, {lastAxis(3)});
    DLC_TRY(y);
  }
  // Back to the input's layout and sizes (a full rotation of 2 * half features is D).
  if (xt.getRank() == 4) {
    auto t = n.reshapeTo(*y, {b, sq, h, d});
    DLC_TRY(t);
    y = n.create<TransposeOp>({*t}, {n.named("perm", n.b.getDenseI64ArrayAttr({0, 2, 1, 3}))});
  } else {
    y = n.reshapeTo(*y, *xs);
  }
  DLC_TRY(y);
  out.push_back(*y);
  return success();
}

/// FlexAttention (ai.onnx.preview): softmax((Q K^T) * scale, with score_mod) then
/// prob_mod, times V; the modifier graphs are imported inline on the [B, Hq, L, S]
/// tensors, in softmax_precision (f32 for 16-bit inputs).
LogicalResult flexAttention(NodeImporter &n, Results &out) {
  auto q = n.requiredInput(0), k = n.requiredInput(1), v = n.requiredInput(2);
  auto scaleAttr = n.floatAttr("scale", NAN);
  auto precision = n.intAttr("softmax_precision", 0);
  DLC_TRY(q);
  DLC_TRY(k);
  DLC_TRY(v);
  DLC_TRY(scaleAttr);
  DLC_TRY(precision);
  auto qt = tensorType(*q), kt = tensorType(*k), vt = tensorType(*v);
  Type elt = qt.getElementType();
  if (!isa<FloatType>(elt) || qt.getRank() != 4 || kt.getRank() != 4 || vt.getRank() != 4 ||
      kt.getElementType() != elt || vt.getElementType() != elt)
    return n.error("expects floating-point Q, K and V of rank 4");
  int64_t hq = qt.getDimSize(1), hkv = kt.getDimSize(1);
  // Static sizes are checked here; dynamic ones (dlc compile --dims) when the model runs.
  auto differ = [](int64_t a, int64_t b) {
    return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
  };
  if (differ(kt.getDimSize(3), qt.getDimSize(3)) || differ(vt.getDimSize(1), hkv) ||
      differ(vt.getDimSize(2), kt.getDimSize(2)) || differ(kt.getDimSize(0), qt.getDimSize(0)) ||
      differ(vt.getDimSize(0), qt.getDimSize(0)))
    return n.error("Q [B, Hq, L, E], K [B, Hkv, S, E] and V [B, Hkv, S, Ev] do not match");
  bool dynamic = !qt.hasStaticShape() || !kt.hasStaticShape() || !vt.hasStaticShape();
  if (!ShapedType::isDynamic(hq) && !ShapedType::isDynamic(hkv) && (hkv < 1 || hq % hkv))
    return n.error("q_num_heads (" + Twine(hq) + ") must be a multiple of kv_num_heads (" +
                   Twine(hkv) + ")");
  Type smElt = elt.getIntOrFloatBitWidth() < 32 ? n.b.getF32Type() : elt;
  if (*precision) {
    smElt = elementTypeFor(n.b.getContext(), *precision);
    if (!smElt || !isa<FloatType>(smElt))
      return n.error("unsupported softmax_precision " + Twine(*precision));
  }
  Expr e{n, elt};
  // sqrt(scale) (computed in f32) applied to Q and K, as the reference does.
  Value s, ks, vs;
  if (!std::isnan(*scaleAttr) || !qt.isDynamicDim(3)) {
    double scale = std::isnan(*scaleAttr) ? 1.0 / std::sqrt((double)qt.getDimSize(3)) : *scaleAttr;
    s = e.c(std::sqrt((float)scale));
  } else { // E read when the model runs: E^(-1/4)
    auto width = n.dimSize(*q, 3);
    DLC_TRY(width);
    Value w = e.cast(*width, n.b.getF32Type());
    s = e.cast(e.op<ReciprocalOp>({e.op<SqrtOp>({e.op<SqrtOp>({w})})}), elt);
  }
  if (dynamic) {
    auto qd = n.sizesOf(*q);
    if (!qd)
      return n.error("the sizes of Q's dynamic dims are not known");
    auto kr = repeatHeadsDynamic(n, e.op<MulOp>({*k, s}), (*qd)[1]);
    auto vr = repeatHeadsDynamic(n, *v, (*qd)[1]);
    DLC_TRY(kr);
    DLC_TRY(vr);
    ks = *kr;
    vs = *vr;
  } else {
    ks = e.repeatHeads(e.op<MulOp>({*k, s}), hq);
    vs = e.repeatHeads(*v, hq);
  }
  Value scores = e.cast(e.op<MatMulOp>({e.op<MulOp>({*q, s}), e.transpose(ks, {0, 1, 3, 2})}), smElt);
  if (e.failed)
    return failure();
  // A modifier graph: one tensor in, one of the same type out.
  auto modify = [&](StringRef name, Value x) -> FailureOr<Value> {
    const onnx::GraphProto *g = n.graphAttr(name);
    if (!g)
      return x;
    auto r = n.subgraph(*g, {x});
    DLC_TRY(r);
    if (r->size() != 1 || (*r)[0].getType() != x.getType())
      return n.error(name + " must return one tensor of its input's shape and type");
    return (*r)[0];
  };
  auto modScores = modify("score_mod", scores);
  DLC_TRY(modScores);
  Value x = *modScores;
  Value mx = e.reduce<ReduceMaxOp>(x, {3}, true);
  Value ex = e.op<ExpOp>({e.op<SubOp>({x, mx})});
  Value p = e.op<DivOp>({ex, e.reduce<ReduceSumOp>(ex, {3}, true)});
  if (e.failed)
    return failure();
  auto probs = modify("prob_mod", p);
  DLC_TRY(probs);
  Value y = e.cast(e.op<MatMulOp>({*probs, e.cast(vs, smElt)}), elt);
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

/// TensorScatter over dynamic dims (dlc compile --dims): the gather of the static form with
/// the cache positions, lengths and shapes read when the model runs (the update's dims other
/// than `axis` must equal the cache's, and its length must not exceed the cache's).
LogicalResult tensorScatterDynamic(NodeImporter &n, Value past, Value update, int64_t axis,
                                   bool circular, Results &out) {
  auto ps = n.sizesOf(past), us = n.sizesOf(update);
  if (!ps || !us)
    return n.error("the sizes of the inputs' dynamic dims are not known");
  int64_t rank = ps->size();
  Type i64 = n.b.getI64Type();
  Expr e{n, i64};
  SymbolicSize one = SymbolicSize::constant(1), B = (*ps)[0], L = (*ps)[axis];
  FailureOr<Value> w = n.input(2) ? n.reshapeTo(e.cast(n.input(2), i64), {B, one})
                                  : FailureOr<Value>(e.c(0));
  auto pos = n.iota(L);
  auto len = n.dimSize(past, axis), count = n.dimSize(update, axis);
  DLC_TRY(w); DLC_TRY(pos); DLC_TRY(len); DLC_TRY(count);
  auto longer = n.create<GreaterOp>({*count, *len});
  DLC_TRY(longer);
  if (failed(checkAtRunTime(n, *longer, "the update is longer along dim " + Twine(axis) +
                                            " than past_cache")))
    return failure();
  auto row = n.reshapeTo(*pos, {one, L});
  DLC_TRY(row);
  Value idx = e.op<SubOp>({*row, *w}); // [B, L]
  if (circular)
    idx = e.op<ModOp>({e.op<AddOp>({e.op<ModOp>({idx, *len}), *len}), *len});
  Value valid = e.op<AndOp>({e.op<GreaterEqualOp>({idx, e.c(0)}), e.op<LessOp>({idx, *count})});
  Value safe = e.where(valid, idx, e.c(0));
  if (e.failed)
    return failure();
  // [B, L] -> [B, 1.., L, 1..] -> past's sizes (the gather's indices).
  SmallVector<SymbolicSize> bshape(rank, one);
  bshape[0] = B;
  bshape[axis] = L;
  auto spread = [&](Value v) -> FailureOr<Value> {
    auto r = n.reshapeTo(v, bshape);
    return succeeded(r) ? n.expandTo(*r, *ps) : r;
  };
  auto at = spread(safe), keep = spread(valid);
  DLC_TRY(at); DLC_TRY(keep);
  auto gathered = n.create<GatherElementsOp>({update, *at},
                                             {n.named("axis", n.b.getI64IntegerAttr(axis))});
  DLC_TRY(gathered);
  auto r = n.create<WhereOp>({*keep, *gathered, past});
  DLC_TRY(r);
  out.push_back(*r);
  return success();
}

/// TensorScatter (opset 24, KV-cache update): past with update written along `axis`
/// starting at write_indices[b] per batch (wrapping around in circular mode). As a
/// gather: cache position p takes update[p - w[b]] where that index is in range.
LogicalResult tensorScatter(NodeImporter &n, Results &out) {
  auto past = n.requiredInput(0), update = n.requiredInput(1);
  auto mode = n.stringAttr("mode", "linear");
  auto axisAttr = n.intAttr("axis", -2);
  DLC_TRY(past);
  DLC_TRY(update);
  DLC_TRY(mode);
  DLC_TRY(axisAttr);
  if (*mode != "linear" && *mode != "circular")
    return n.error("mode must be linear or circular, got '" + *mode + "'");
  auto pt = tensorType(*past), ut = tensorType(*update);
  int64_t rank = pt.getRank();
  auto axis = n.normalizeAxis(*axisAttr, rank);
  DLC_TRY(axis);
  if (rank < 2 || *axis == 0 || ut.getRank() != rank || ut.getElementType() != pt.getElementType())
    return n.error("expects past_cache and update of the same rank (>= 2) and element type, "
                   "and an axis other than the batch axis");
  if (!pt.hasStaticShape() || !ut.hasStaticShape())
    return tensorScatterDynamic(n, *past, *update, *axis, *mode == "circular", out);
  for (int64_t d = 0; d < rank; ++d)
    if (d == *axis ? ut.getDimSize(d) > pt.getDimSize(d) : ut.getDimSize(d) != pt.getDimSize(d))
      return n.error("update shape does not fit past_cache along dim " + Twine(d));
  int64_t B = pt.getDimSize(0), L = pt.getDimSize(*axis), S = ut.getDimSize(*axis);
  Type i64 = n.b.getI64Type();
  Expr e{n, i64};
  Value w = n.input(2) ? e.reshape(e.cast(n.input(2), i64), {B, 1})
                       : n.constant(DenseElementsAttr::get(RankedTensorType::get({B, 1}, i64),
                                                           (int64_t)0));
  if (failed(n.checkShape({L}, i64, "the cache positions")))
    return failure();
  SmallVector<int64_t> positions;
  for (int64_t p = 0; p < L; ++p)
    positions.push_back(p);
  Value pos = e.ints({1, L}, positions);
  Value idx = e.op<SubOp>({pos, w}); // [B, L]
  if (*mode == "circular")
    idx = e.op<ModOp>({e.op<AddOp>({e.op<ModOp>({idx, e.c(L)}), e.c(L)}), e.c(L)});
  Value valid = e.op<AndOp>({e.op<GreaterEqualOp>({idx, e.c(0)}), e.op<LessOp>({idx, e.c(S)})});
  Value safe = e.where(valid, idx, e.c(0));
  // [B, L] -> [B, 1.., L, 1..] -> past's shape with update's dims (gather indices).
  SmallVector<int64_t> bshape(rank, 1), gshape(pt.getShape());
  bshape[0] = B;
  bshape[*axis] = L;
  for (int64_t d = 1; d < rank; ++d)
    if (d != *axis)
      gshape[d] = ut.getDimSize(d);
  auto expandTo = [&](Value v, Type elt) {
    return e.op<ExpandOp>({e.reshape(v, bshape)}, {}, {RankedTensorType::get(gshape, elt)});
  };
  Value gathered = e.op<GatherElementsOp>({*update, expandTo(safe, i64)},
                                          {n.named("axis", n.b.getI64IntegerAttr(*axis))});
  Value r = e.where(expandTo(valid, n.b.getI1Type()), gathered, *past);
  if (e.failed)
    return failure();
  out.push_back(r);
  return success();
}

const OpBuilderEntry kAttention[] = {
    {"TensorScatter", 24, tensorScatter},
    {"FlexAttention", 1, flexAttention, "ai.onnx.preview"},
    {"Attention", 23, attention},
    {"RotaryEmbedding", 23, rotaryEmbedding},
};

} // namespace

ArrayRef<OpBuilderEntry> attentionBuilders() { return kAttention; }

} // namespace dlc::onnx_frontend
