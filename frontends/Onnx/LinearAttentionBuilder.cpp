// ONNX LinearAttention (opset 27): a recurrent state [B, Hkv, dk, dv] updated per step
// (linear / gated / delta / gated_delta rules) and read by the queries, in f32, unrolled
// over the sequence. Sizes are symbolic throughout, so dynamic dims (dlc compile --dims)
// take the same path: a dynamic sequence is unrolled up to its greatest length, the state
// kept from step T on and the outputs cut back to T.
#include "frontends/Onnx/AttentionDynamic.h"
#include "frontends/Onnx/Expr.h"

#include <cmath>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

using Results = SmallVectorImpl<Value>;
using Size = SymbolicSize;

LogicalResult linearAttention(NodeImporter &n, Results &out) {
  auto q0 = n.requiredInput(0), k0 = n.requiredInput(1), v0 = n.requiredInput(2);
  auto rule = n.stringAttr("update_rule", "gated_delta");
  auto hq = n.intAttr("q_num_heads", 0), hkv = n.intAttr("kv_num_heads", 0);
  auto scaleAttr = n.floatAttr("scale", 0.0f);
  DLC_TRY(q0); DLC_TRY(k0); DLC_TRY(v0); DLC_TRY(rule); DLC_TRY(hq); DLC_TRY(hkv);
  DLC_TRY(scaleAttr);
  if (*rule != "linear" && *rule != "gated" && *rule != "delta" && *rule != "gated_delta")
    return n.error("unsupported update_rule '" + *rule + "'");
  if (*hq <= 0 || *hkv <= 0 || *hq % *hkv || *hq > (int64_t(1) << 20))
    return n.error("q_num_heads must be a positive multiple of kv_num_heads");
  bool gating = *rule == "gated" || *rule == "gated_delta";
  bool delta = *rule == "delta" || *rule == "gated_delta";
  Value decay = n.input(4), beta = n.input(5), past = n.input(3);
  if (gating != (bool)decay || delta != (bool)beta)
    return n.error("update_rule '" + *rule + "' needs " + (gating ? "decay" : "no decay") +
                   " and " + (delta ? "beta" : "no beta"));
  auto qt = tensorType(*q0);
  if (qt.getRank() != 3 || tensorType(*k0).getRank() != 3 || tensorType(*v0).getRank() != 3)
    return n.error("query, key and value must be [B, T, H*D]");
  if ((decay && tensorType(decay).getRank() != 3) || (beta && tensorType(beta).getRank() != 3))
    return n.error("decay and beta must be [B, T, ...] (rank 3)");
  if (past && tensorType(past).getRank() != 4)
    return n.error("past_state must be [B, kv_num_heads, dk, dv]");
  Type elt = qt.getElementType(), f32 = n.b.getF32Type(), i64 = n.b.getI64Type();
  int64_t Hq = *hq, Hk = *hkv, G = Hq / Hk;
  Expr e{n, f32};
  // [B, H, T, d] in f32; static inputs must divide by the heads.
  auto heads = [&](Value x, int64_t h) -> FailureOr<Value> {
    auto t = tensorType(x);
    if (t.hasStaticShape() && t.getDimSize(2) % h)
      return n.error("hidden size " + Twine(t.getDimSize(2)) + " is not divisible by " +
                     Twine(h) + " heads");
    auto s = splitHeadsDynamic(n, x, h);
    DLC_TRY(s);
    return e.cast(*s, f32);
  };
  auto q = heads(*q0, Hq), k = heads(*k0, Hk), v = heads(*v0, Hk);
  DLC_TRY(q); DLC_TRY(k); DLC_TRY(v);
  auto kd = n.sizesOf(*k), vd = n.sizesOf(*v);
  if (!kd || !vd)
    return n.error("the sizes of the inputs' dynamic dims are not known");
  Size B = (*kd)[0], T = (*kd)[2], dk = (*kd)[3], dv = (*vd)[3], c1 = Size::constant(1);
  auto hk = Size::constant(Hk);
  // decay: [B, T, Hk] (per head) or [B, T, Hk*dk] -> exp, [B, Hk, T, 1 or dk].
  Value dcy, bt;
  if (decay) {
    auto dd = n.sizesOf(decay);
    if (!dd)
      return n.error("the sizes of decay's dynamic dims are not known");
    auto kh = n.sizesOf(*k0); // [B, T, Hk*dk]
    bool perKey = kh && (*dd)[2] == (*kh)[2] && (*dd)[2] != hk;
    auto r = perKey ? splitHeadsDynamic(n, decay, Hk)
                    : n.reshapeTo(decay, {B, T, hk, c1});
    DLC_TRY(r);
    dcy = *r;
    if (!perKey)
      dcy = e.transpose(dcy, {0, 2, 1, 3});
    dcy = e.op<ExpOp>({e.cast(dcy, f32)});
  }
  if (beta) { // [B, T, Hk or 1] -> [B, Hk or 1, T, 1]
    auto bd = n.sizesOf(beta);
    if (!bd)
      return n.error("the sizes of beta's dynamic dims are not known");
    auto r = n.reshapeTo(beta, {B, T, (*bd)[2], c1});
    DLC_TRY(r);
    bt = e.cast(e.transpose(*r, {0, 2, 1, 3}), f32);
  }
  if (e.failed)
    return failure();
  Type stateElt = past ? tensorType(past).getElementType() : elt;
  SmallVector<Size> stateSizes = {B, hk, dk, dv};
  FailureOr<Value> state = failure();
  if (past) {
    SmallVector<int64_t> want;
    for (const Size &s : stateSizes)
      want.push_back(s.isStatic() ? s.coef : ShapedType::kDynamic);
    auto pt = tensorType(past);
    if (pt.hasStaticShape() && !llvm::is_contained(want, ShapedType::kDynamic) &&
        pt.getShape() != ArrayRef<int64_t>(want))
      return n.error("past_state must be [B, kv_num_heads, dk, dv] = [" + Twine(want[0]) + ", " +
                     Twine(want[1]) + ", " + Twine(want[2]) + ", " + Twine(want[3]) + "]");
    state = n.expandTo(e.cast(past, f32), stateSizes);
  } else {
    SmallVector<int64_t> shape;
    for (const Size &s : stateSizes)
      shape.push_back(s.isStatic() ? s.coef : 1);
    if (failed(n.checkShape(shape, f32, "the initial state")))
      return failure();
    state = n.expandTo(n.constant(DenseElementsAttr::get(RankedTensorType::get(shape, f32),
                                                         n.b.getZeroAttr(f32))),
                       stateSizes);
  }
  DLC_TRY(state);
  // The scale: 1/sqrt(dk), read when the model runs for a dynamic dk.
  Value scale;
  if (*scaleAttr != 0) {
    scale = e.c(*scaleAttr);
  } else if (dk.isStatic()) {
    scale = e.c(1.0 / std::sqrt((double)dk.coef));
  } else {
    auto d = n.sizeValue(dk);
    DLC_TRY(d);
    scale = e.op<ReciprocalOp>({e.op<SqrtOp>({e.cast(*d, f32)})});
  }
  // Steps: T, or T's greatest size with the inputs padded to it.
  bool masked = !T.isStatic();
  auto bound = unrollSteps(n, T, 4096, "the sequence length");
  DLC_TRY(bound);
  int64_t steps = *bound;
  Value len;
  auto padded = [&](Value x) -> FailureOr<Value> { // along T (dim 2)
    return !masked || !x ? FailureOr<Value>(x) : padAxisTo(n, x, 2, T, steps);
  };
  if (masked) {
    auto l = n.dimSize(*k, 2);
    DLC_TRY(l);
    len = *l;
  }
  auto qp = padded(*q), kp = padded(*k), vp = padded(*v), dp = padded(dcy), bp = padded(bt);
  DLC_TRY(qp); DLC_TRY(kp); DLC_TRY(vp); DLC_TRY(dp); DLC_TRY(bp);
  // The step inputs' sizes, found once (each lookup walks the graph above them).
  llvm::DenseMap<Value, SymbolicDims> sizesOf;
  auto at = [&](Value x, int64_t t) -> Value { // x[:, :, t, :] as [B, H, 1, d]
    if (!x || e.failed)
      return e.fail();
    auto it = sizesOf.find(x);
    if (it == sizesOf.end()) {
      auto d = n.sizesOf(x);
      if (!d)
        return e.fail();
      it = sizesOf.try_emplace(x, *d).first;
    }
    SmallVector<Size> from(4, Size::constant(0)), size(it->second);
    from[2] = Size::constant(t);
    size[2] = c1;
    auto s = sliceTo(n, x, from, size);
    return failed(s) ? e.fail() : *s;
  };
  SmallVector<Value> outs;
  Value st = *state;
  for (int64_t t = 0; t < steps; ++t) {
    Value kt = at(*kp, t), vt = at(*vp, t); // [B, Hk, 1, dk], [B, Hk, 1, dv]
    Value next = st;
    if (gating) // scales rows (dk)
      next = e.op<MulOp>({next, e.transpose(at(*dp, t), {0, 1, 3, 2})});
    if (delta) {
      Value retrieved = e.op<MatMulOp>({kt, next}); // [B, Hk, 1, dv]
      vt = e.op<MulOp>({at(*bp, t), e.op<SubOp>({vt, retrieved})});
    }
    next = e.op<AddOp>({next, e.op<MatMulOp>({e.transpose(kt, {0, 1, 3, 2}), vt})});
    if (masked)
      next = e.where(e.op<LessOp>({n.intConstant(i64, t), len}), next, st);
    st = next;
    Value read = st;
    if (G > 1) {
      auto r5 = n.reshapeTo(st, {B, hk, c1, dk, dv});
      auto x5 = succeeded(r5) ? n.expandTo(*r5, {B, hk, Size::constant(G), dk, dv}) : r5;
      auto r4 = succeeded(x5) ? n.reshapeTo(*x5, {B, Size::constant(Hq), dk, dv}) : x5;
      DLC_TRY(r4);
      read = *r4;
    }
    outs.push_back(e.op<MulOp>({e.op<MatMulOp>({at(*qp, t), read}), scale})); // [B, Hq, 1, dv]
    if (e.failed)
      return failure();
  }
  FailureOr<Value> y = outs[0];
  if (outs.size() > 1)
    y = n.create<ConcatOp>(outs, {n.named("axis", n.b.getI64IntegerAttr(2))});
  DLC_TRY(y);
  if (masked) {
    y = sliceTo(n, *y, {Size::constant(0), Size::constant(0), Size::constant(0), Size::constant(0)},
                {B, Size::constant(Hq), T, dv});
    DLC_TRY(y);
  }
  auto merged = mergeHeadsDynamic(n, *y); // [B, T, Hq*dv]
  DLC_TRY(merged);
  Value result = e.cast(*merged, elt), present = e.cast(st, stateElt);
  if (e.failed)
    return failure();
  out.append({result, present});
  return success();
}

const OpBuilderEntry kLinearAttention[] = {
    {"LinearAttention", 27, linearAttention},
};

} // namespace

ArrayRef<OpBuilderEntry> linearAttentionBuilders() { return kLinearAttention; }

} // namespace dlc::onnx_frontend
