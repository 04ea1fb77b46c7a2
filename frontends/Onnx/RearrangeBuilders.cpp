// ONNX ops that rearrange elements or build them from positions: OneHot, EyeLike, Tile,
// DepthToSpace, SpaceToDepth and TopK. Sizes are symbolic (dlc compile --dims): static
// dims are constant sizes, so one builder serves static and dynamic inputs.
#include "frontends/Onnx/Expr.h"
#include "frontends/Onnx/RuntimeChecks.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

using Results = SmallVectorImpl<Value>;
using Sizes = SmallVector<SymbolicSize>;

FailureOr<Sizes> sizes(NodeImporter &n, Value v) {
  std::optional<Sizes> s = n.sizesOf(v);
  if (!s)
    return n.error("the sizes of the input's dynamic dims are not known here");
  return *s;
}

/// a * b, or an error naming `what` when a coefficient overflows int64.
FailureOr<SymbolicSize> times(NodeImporter &n, const SymbolicSize &a, const SymbolicSize &b,
                              const Twine &what) {
  int64_t c;
  if (__builtin_mul_overflow(a.coef, b.coef, &c))
    return n.error(what + " overflows int64");
  return a * b;
}

/// 0, 1, ..., len-1 (i64) viewed along dim `d` of a rank-`rank` tensor of ones elsewhere.
FailureOr<Value> iotaAlong(NodeImporter &n, const SymbolicSize &len, int64_t d, int64_t rank) {
  auto positions = n.iota(len);
  DLC_TRY(positions);
  Sizes shape(rank, SymbolicSize::constant(1));
  shape[d] = len;
  return n.reshapeTo(*positions, shape);
}

LogicalResult oneHot(NodeImporter &n, Results &out) {
  auto idx = n.requiredInput(0), values = n.requiredInput(2);
  auto axis = n.intAttr("axis", -1);
  DLC_TRY(idx);
  DLC_TRY(values);
  DLC_TRY(axis);
  auto depthAttr = n.constantInput(1);
  DLC_TRY(depthAttr);
  if (depthAttr->getNumElements() != 1)
    return n.error("depth must hold one value");
  double depthD = isa<FloatType>(depthAttr->getElementType())
                      ? (*depthAttr->value_begin<APFloat>()).convertToDouble()
                      : (double)(*depthAttr->value_begin<APInt>()).getSExtValue();
  if (!(depthD >= 1 && depthD < 0x1p62))
    return n.error("depth must be positive, got " + n.num(depthD));
  int64_t depth = (int64_t)depthD;
  auto it = tensorType(*idx);
  auto vt = tensorType(*values);
  if (vt.getRank() == 1 && vt.isDynamicDim(0)) { // two values, checked when the model runs
    values = n.expandTo(*values, {SymbolicSize::constant(2)});
    DLC_TRY(values);
    vt = tensorType(*values);
  }
  if (!vt.hasStaticShape() || vt.getNumElements() != 2)
    return n.error("values must hold [off_value, on_value]");
  int64_t outRank = it.getRank() + 1;
  auto a = n.normalizeAxis(*axis, outRank);
  DLC_TRY(a);
  if (it.hasStaticShape()) {
    SmallVector<int64_t> outShape(it.getShape());
    outShape.insert(outShape.begin() + *a, depth);
    // The depth iota too: with an empty indices tensor the output bounds nothing.
    if (failed(n.checkShape(outShape, vt.getElementType())) ||
        failed(n.checkShape({depth}, n.b.getI64Type(), "the depth iota")))
      return failure();
  }
  auto is = sizes(n, *idx);
  DLC_TRY(is);
  Type i64 = n.b.getI64Type();
  Expr e{n, i64};
  Value ii = e.cast(*idx, i64); // float indices truncate, as ONNX casts them
  ii = e.where(e.op<LessOp>({ii, e.c(0)}), e.op<AddOp>({ii, e.c(depth)}), ii);
  Sizes unsq = *is;
  unsq.insert(unsq.begin() + *a, SymbolicSize::constant(1));
  if (e.failed)
    return failure();
  auto iu = n.reshapeTo(ii, unsq);
  auto iota = iotaAlong(n, SymbolicSize::constant(depth), *a, outRank);
  DLC_TRY(iu);
  DLC_TRY(iota);
  Value flat = e.reshape(*values, {2});
  auto pick = [&](int64_t i) {
    return e.op<GatherOp>({flat, n.intConstant(i64, i)},
                          {n.named("axis", n.b.getI64IntegerAttr(0))});
  };
  Value y = e.where(e.op<EqualOp>({*iu, *iota}), pick(1), pick(0));
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

LogicalResult eyeLike(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto k = n.intAttr("k", 0);
  DLC_TRY(x);
  DLC_TRY(k);
  auto t = tensorType(*x);
  if (t.getRank() != 2)
    return n.error("expects a 2-D input");
  Type elt = t.getElementType();
  if (n.hasAttr("dtype")) {
    auto dt = n.intAttr("dtype", 0);
    DLC_TRY(dt);
    elt = elementTypeFor(n.b.getContext(), *dt);
    if (!elt)
      return n.error("unsupported dtype " + Twine(*dt));
  }
  if (t.hasStaticShape() && failed(n.checkShape(t.getShape(), elt)))
    return failure();
  // Ones where column - row == k.
  auto s = sizes(n, *x);
  DLC_TRY(s);
  auto rows = iotaAlong(n, (*s)[0], 0, 2), cols = iotaAlong(n, (*s)[1], 1, 2);
  DLC_TRY(rows);
  DLC_TRY(cols);
  Expr e{n, n.b.getI64Type()};
  Value keep = e.op<EqualOp>({e.op<SubOp>({*cols, *rows}), e.c(*k)});
  Value y = e.cast(keep, elt);
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

LogicalResult tile(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto reps = n.constantInts(1);
  DLC_TRY(x);
  DLC_TRY(reps);
  auto t = tensorType(*x);
  if ((int64_t)reps->size() != t.getRank())
    return n.error("repeats has " + Twine(reps->size()) + " values for rank " + Twine(t.getRank()));
  auto s = sizes(n, *x);
  DLC_TRY(s);
  Sizes interleaved, expanded, result;
  for (int64_t d = 0; d < t.getRank(); ++d) {
    if ((*reps)[d] < 0)
      return n.error("repeats must be non-negative");
    SymbolicSize r = SymbolicSize::constant((*reps)[d]);
    auto dim = times(n, r, (*s)[d],
                     "output dim " + Twine(d) + " (repeats " + Twine((*reps)[d]) + " x dim " +
                         (*s)[d].str() + ")");
    DLC_TRY(dim);
    interleaved.append({SymbolicSize::constant(1), (*s)[d]});
    expanded.append({r, (*s)[d]});
    result.push_back(*dim);
  }
  auto y = n.reshapeTo(*x, interleaved);
  DLC_TRY(y);
  if (interleaved != expanded) {
    y = n.expandTo(*y, expanded);
    DLC_TRY(y);
  }
  y = n.reshapeTo(*y, result);
  DLC_TRY(y);
  out.push_back(*y);
  return success();
}

/// DepthToSpace and SpaceToDepth's operands: the NCHW input and its sizes, the blocksize
/// (at most 2^31, so b * b fits) and whether the mode is DCR.
struct BlockArgs {
  Value x;
  Sizes sizes;
  int64_t b;
  bool dcr;
};
FailureOr<BlockArgs> blockArgs(NodeImporter &n) {
  auto x = n.requiredInput(0);
  auto bs = n.intAttr("blocksize", 0);
  auto mode = n.stringAttr("mode", "DCR");
  DLC_TRY(x);
  DLC_TRY(bs);
  DLC_TRY(mode);
  if (*bs < 1 || *bs > (int64_t(1) << 31))
    return n.error("blocksize must be in [1, 2^31], got " + Twine(*bs));
  if (*mode != "DCR" && *mode != "CRD")
    return n.error("mode must be DCR or CRD, got '" + *mode + "'");
  if (tensorType(*x).getRank() != 4)
    return n.error("expects an [N, C, H, W] input");
  auto s = sizes(n, *x);
  DLC_TRY(s);
  return BlockArgs{*x, *s, *bs, *mode == "DCR"};
}

/// `x` viewed as `split`, transposed by `perm` and viewed as `to`.
LogicalResult rearranged(NodeImporter &n, Value x, ArrayRef<SymbolicSize> split,
                         ArrayRef<int64_t> perm, ArrayRef<SymbolicSize> to, Results &out) {
  auto viewed = n.reshapeTo(x, split);
  DLC_TRY(viewed);
  Expr e{n, tensorType(x).getElementType()};
  Value moved = e.transpose(*viewed, perm);
  if (e.failed)
    return failure();
  auto y = n.reshapeTo(moved, to);
  DLC_TRY(y);
  out.push_back(*y);
  return success();
}

/// DepthToSpace (DCR or CRD) and SpaceToDepth on NCHW as reshape-transpose-reshape. A
/// dynamic C (H, W) must be divisible by b^2 (b): the reshape's element counts are
/// compared before the run.
LogicalResult depthToSpace(NodeImporter &n, Results &out) {
  auto a = blockArgs(n);
  DLC_TRY(a);
  int64_t b = a->b;
  auto t = tensorType(a->x);
  if (!t.isDynamicDim(1) && t.getDimSize(1) % (b * b))
    return n.error("expects [N, C, H, W] with C divisible by blocksize^2 (blocksize " +
                   Twine(b) + ")");
  const Sizes &s = a->sizes;
  SymbolicSize N = s[0], H = s[2], W = s[3], B = SymbolicSize::constant(b),
               C = sizeFloorDiv(s[1], b * b);
  auto hb = times(n, H, B, "the output height"), wb = times(n, W, B, "the output width");
  DLC_TRY(hb);
  DLC_TRY(wb);
  if (a->dcr)
    return rearranged(n, a->x, {N, B, B, C, H, W}, {0, 3, 4, 1, 5, 2}, {N, C, *hb, *wb}, out);
  return rearranged(n, a->x, {N, C, B, B, H, W}, {0, 1, 4, 2, 5, 3}, {N, C, *hb, *wb}, out);
}

LogicalResult spaceToDepth(NodeImporter &n, Results &out) {
  auto a = blockArgs(n);
  DLC_TRY(a);
  int64_t b = a->b;
  auto t = tensorType(a->x);
  auto divisible = [&](int64_t d) { return t.isDynamicDim(d) || t.getDimSize(d) % b == 0; };
  if (!divisible(2) || !divisible(3))
    return n.error("expects [N, C, H, W] with H and W divisible by blocksize");
  const Sizes &s = a->sizes;
  SymbolicSize N = s[0], C = s[1], B = SymbolicSize::constant(b);
  SymbolicSize H = sizeFloorDiv(s[2], b), W = sizeFloorDiv(s[3], b);
  auto cb = times(n, C, SymbolicSize::constant(b * b), "the output channels");
  DLC_TRY(cb);
  return rearranged(n, a->x, {N, C, H, B, W, B},
                    a->dcr ? ArrayRef<int64_t>{0, 3, 5, 1, 2, 4} : ArrayRef<int64_t>{0, 1, 3, 5, 2, 4},
                    {N, *cb, H, W}, out);
}

/// TopK by ranks: an element's rank is the number of elements that beat it (larger, or
/// equal and earlier); the k outputs are the elements of ranks 0..k-1.
LogicalResult topK(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto axis = n.intAttr("axis", -1), largest = n.intAttr("largest", 1);
  DLC_TRY(x);
  DLC_TRY(axis);
  DLC_TRY(largest);
  int64_t k;
  if (n.opset < 10) {
    auto ka = n.intAttr("k", 0);
    DLC_TRY(ka);
    k = *ka;
  } else {
    auto kv = n.constantInts(1);
    DLC_TRY(kv);
    if (kv->size() != 1)
      return n.error("k must hold one value");
    k = (*kv)[0];
  }
  auto t = tensorType(*x);
  auto a = n.dimAxis(*axis, t.getRank());
  DLC_TRY(a);
  auto s = sizes(n, *x);
  DLC_TRY(s);
  SymbolicSize N = (*s)[*a];
  // A dynamic axis: its greatest size bounds the pairwise comparison, and k is checked
  // against its size when the model runs.
  auto bounds = N.isStatic() ? std::optional<std::pair<int64_t, int64_t>>({N.coef, N.coef})
                             : sizeBounds(n.dynamicFunc, N);
  if (!bounds)
    return n.error("TopK over a dynamic axis (" + N.str() + ") needs its upper bound");
  if (k < 0 || (N.isStatic() && k > N.coef))
    return n.error("k = " + Twine(k) + " is out of range for an axis of " + N.str());
  if (bounds->second > 4096)
    return n.error("TopK over more than 4096 elements is not supported");
  Type i64 = n.b.getI64Type();
  Expr e{n, i64};
  SmallVector<int64_t> unused(t.getRank(), 0);
  AxisLast m = axisLast(unused, *a);
  SymbolicSize M = SymbolicSize::constant(1), K = SymbolicSize::constant(k);
  Sizes moved;
  for (int64_t d : m.perm)
    moved.push_back((*s)[d]);
  for (int64_t d = 0; d < t.getRank(); ++d)
    if (d != *a)
      M = M * (*s)[d];
  auto xm = n.reshapeTo(e.transpose(*x, m.perm), {M, N});
  DLC_TRY(xm);
  auto xi = n.reshapeTo(*xm, {M, N, SymbolicSize::constant(1)});
  auto xj = n.reshapeTo(*xm, {M, SymbolicSize::constant(1), N});
  auto posI = iotaAlong(n, N, 1, 3), posJ = iotaAlong(n, N, 2, 3);
  auto iotaK = iotaAlong(n, K, 2, 3);
  DLC_TRY(xi);
  DLC_TRY(xj);
  DLC_TRY(posI);
  DLC_TRY(posJ);
  DLC_TRY(iotaK);
  if (!N.isStatic() && k > 0 && // k <= N: the k-th rank exists
      failed(checkRangeAtRunTime(n, e.ints({1}, {k - 1}), Value(), 0, *x, *a,
                                 "k - 1 (k = " + Twine(k) + ", at most the size of dim " +
                                     Twine(*a) + ")")))
    return failure();
  Value beats = *largest ? e.op<GreaterOp>({*xj, *xi}) : e.op<LessOp>({*xj, *xi});
  Value before = e.op<LessOp>({*posJ, *posI});
  Value tie = e.op<AndOp>({e.op<EqualOp>({*xj, *xi}), before});
  Value rank = e.reduce<ReduceSumOp>(e.cast(e.op<OrOp>({beats, tie}), i64), {2}, true); // [M,N,1]
  Value hot = e.cast(e.op<EqualOp>({rank, *iotaK}), i64);                            // [M,N,k]
  Value idx = e.reduce<ReduceSumOp>(e.op<MulOp>({hot, *posI}), {1}, false);          // [M, k]
  Value vals = e.op<GatherElementsOp>({*xm, idx}, {n.named("axis", n.b.getI64IntegerAttr(1))});
  moved.back() = K;
  if (e.failed)
    return failure();
  auto yv = n.reshapeTo(vals, moved), yi = n.reshapeTo(idx, moved);
  DLC_TRY(yv);
  DLC_TRY(yi);
  out.append({e.transpose(*yv, m.inverse), e.transpose(*yi, m.inverse)});
  if (e.failed)
    return failure();
  return success();
}

const OpBuilderEntry kRearrange[] = {
    {"TopK", 1, topK},
    {"OneHot", 9, oneHot},
    {"EyeLike", 9, eyeLike},
    {"Tile", 6, tile},
    {"DepthToSpace", 1, depthToSpace},
    {"SpaceToDepth", 1, spaceToDepth},
};

} // namespace

ArrayRef<OpBuilderEntry> rearrangeBuilders() { return kRearrange; }

} // namespace dlc::onnx_frontend
