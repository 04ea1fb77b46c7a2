// Attention over dynamic dims: head split and merge, grouped-query repeat, band masks.
#include "frontends/Onnx/AttentionDynamic.h"
#include "frontends/Onnx/RuntimeChecks.h"

#include <cmath>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {

FailureOr<Value> splitHeadsDynamic(NodeImporter &n, Value x, int64_t heads) {
  auto dims = n.sizesOf(x);
  if (!dims || dims->size() != 3)
    return n.error("the sizes of the 3-D input's dynamic dims are not known");
  if (heads <= 0)
    return n.error("the head count must be positive, got " + Twine(heads));
  SymbolicSize hd = (*dims)[2], d = sizeFloorDiv(hd, heads);
  auto split = n.reshapeTo(x, {(*dims)[0], (*dims)[1], SymbolicSize::constant(heads), d});
  DLC_TRY(split);
  return n.create<TransposeOp>({*split}, {n.named("perm", n.b.getDenseI64ArrayAttr({0, 2, 1, 3}))});
}

FailureOr<Value> mergeHeadsDynamic(NodeImporter &n, Value y) {
  auto t = n.create<TransposeOp>({y}, {n.named("perm", n.b.getDenseI64ArrayAttr({0, 2, 1, 3}))});
  DLC_TRY(t);
  auto dims = n.sizesOf(*t);
  if (!dims)
    return n.error("the sizes of the attention output's dynamic dims are not known");
  return n.reshapeTo(*t, {(*dims)[0], (*dims)[1], (*dims)[2] * (*dims)[3]});
}

FailureOr<Value> repeatHeadsDynamic(NodeImporter &n, Value x, const SymbolicSize &hq) {
  auto dims = n.sizesOf(x);
  if (!dims)
    return n.error("the sizes of the key/value heads' dynamic dims are not known");
  const SymbolicSize &hkv = (*dims)[1];
  std::optional<SymbolicSize> group = hq.divide(hkv);
  if (!group) {
    // Head counts of different symbols: query head h reads key/value head h * hkv / hq
    // (a gather), and hq must be a multiple of hkv when the model runs.
    Type i64 = n.b.getI64Type();
    auto q = n.sizeValue(hq), kv = n.dimSize(x, 1), heads = n.iota(hq);
    DLC_TRY(q);
    DLC_TRY(kv);
    DLC_TRY(heads);
    auto rem = n.create<ModOp>({*q, *kv});
    DLC_TRY(rem);
    auto bad = n.create<NotOp>({*n.create<EqualOp>({*rem, n.intConstant(i64, 0)})});
    DLC_TRY(bad);
    if (failed(checkAtRunTime(n, *bad, "the query heads (" + hq.str() +
                                           ") are not a multiple of the key/value heads (" +
                                           hkv.str() + ")")))
      return failure();
    auto scaled = n.create<MulOp>({*heads, *kv});
    DLC_TRY(scaled);
    auto index = n.create<DivOp>({*scaled, *q});
    DLC_TRY(index);
    return n.create<GatherOp>({x, *index}, {n.named("axis", n.b.getI64IntegerAttr(1))});
  }
  SymbolicSize one = SymbolicSize::constant(1);
  auto u = n.reshapeTo(x, {(*dims)[0], hkv, one, (*dims)[2], (*dims)[3]});
  DLC_TRY(u);
  auto r = n.expandTo(*u, {(*dims)[0], hkv, *group, (*dims)[2], (*dims)[3]});
  DLC_TRY(r);
  return n.reshapeTo(*r, {(*dims)[0], hq, (*dims)[2], (*dims)[3]});
}

FailureOr<Value> bandBias(NodeImporter &n, const SymbolicSize &sq, const SymbolicSize &skv,
                          Value offset, int64_t below, int64_t above, Type elt) {
  SymbolicSize one = SymbolicSize::constant(1);
  auto qi = n.iota(sq), kj = n.iota(skv);
  DLC_TRY(qi);
  DLC_TRY(kj);
  auto rows = n.reshapeTo(*qi, {sq, one}), cols = n.reshapeTo(*kj, {one, skv});
  DLC_TRY(rows);
  DLC_TRY(cols);
  auto shifted = n.create<AddOp>({*rows, offset});
  DLC_TRY(shifted);
  auto diff = n.create<SubOp>({*shifted, *cols}); // [Sq, Skv]
  DLC_TRY(diff);
  Type i64 = n.b.getI64Type();
  Value ok;
  auto both = [&](FailureOr<Value> c) -> LogicalResult {
    DLC_TRY(c);
    if (!ok) {
      ok = *c;
      return success();
    }
    auto a = n.create<AndOp>({ok, *c});
    DLC_TRY(a);
    ok = *a;
    return success();
  };
  if (below >= 0 && failed(both(n.create<LessEqualOp>({*diff, n.intConstant(i64, below)}))))
    return failure();
  if (above >= 0) {
    auto neg = n.create<NegOp>({*diff});
    DLC_TRY(neg);
    if (failed(both(n.create<LessEqualOp>({*neg, n.intConstant(i64, above)}))))
      return failure();
  }
  if (!ok)
    return n.error("a band mask needs a bound on at least one side");
  return n.create<WhereOp>({ok, n.scalarConstant(elt, 0.0), n.scalarConstant(elt, -INFINITY)});
}

} // namespace dlc::onnx_frontend
