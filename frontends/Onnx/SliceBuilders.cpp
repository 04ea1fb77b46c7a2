// ONNX Split and Slice -> dlc_graph.split / dlc_graph.slice: static sizes, or sizes of the
// symbolic dims (dlc compile --dims) with ONNX's clamping of slice bounds.
#include "frontends/Onnx/NodeImporter.h"
#include "dialects/Graph/IR/CheckedBuild.h"
#include "frontends/Onnx/RuntimeChecks.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

using Results = SmallVectorImpl<Value>;

std::string str(ArrayRef<int64_t> v) { return graph::shapeText(v); }

LogicalResult push(FailureOr<Value> v, Results &out) {
  DLC_TRY(v);
  out.push_back(*v);
  return success();
}

/// Split's piece count without sizes: num_outputs (opset 18), which must be the node's
/// output count.
FailureOr<int64_t> numPieces(NodeImporter &n) {
  auto numOutputs = n.intAttr("num_outputs", n.node.output_size());
  DLC_TRY(numOutputs);
  if (*numOutputs < 1 || *numOutputs != (int64_t)n.node.output_size())
    return n.error("num_outputs must be >= 1 and equal the node's " +
                   Twine(n.node.output_size()) + " outputs, got " + Twine(*numOutputs));
  return *numOutputs;
}

/// Split of a dynamic dim (dlc compile --dims): given sizes, which must sum to the dim
/// (checked when the model runs), or num_outputs pieces of ceil(dim / n) and the rest.
LogicalResult splitDynamic(NodeImporter &n, Value x, int64_t axis, Results &out) {
  auto dims = n.sizesOf(x);
  if (!dims)
    return n.error("the sizes of input 0's dynamic dims are not known");
  graph::SymbolicSize dim = (*dims)[axis];
  auto size = n.dimSize(x, axis);
  DLC_TRY(size);
  SmallVector<int64_t> sizes;
  SmallVector<std::string> names;
  FailureOr<Value> bad;
  std::string what;
  std::optional<SmallVector<graph::SymbolicSize>> symbolic =
      n.hasAttr("split") || !n.input(1) || n.knownInput(1) ? std::nullopt : n.symbolicInts(1);
  if (symbolic && llvm::any_of(*symbolic, [](auto &v) { return !v.isStatic(); })) {
    // Sizes computed from shapes (a rotary half, d // 2): they must sum to the dim.
    graph::SymbolicSize total = graph::SymbolicSize::constant(0);
    for (const graph::SymbolicSize &v : *symbolic) {
      std::optional<graph::SymbolicSize> t = graph::sizeAdd(total, v);
      if (!t)
        return n.error("split sizes overflow int64");
      total = *t;
      sizes.push_back(v.isStatic() ? v.coef : ShapedType::kDynamic);
      names.push_back(v.isStatic() ? "" : v.str());
    }
    auto sum = n.sizeValue(total);
    DLC_TRY(sum);
    auto same = n.create<EqualOp>({*size, *sum});
    DLC_TRY(same);
    bad = n.create<NotOp>({*same});
    what = "split sizes (" + total.str() + " in all) do not sum to dim " +
           std::to_string(axis) + " (" + dim.str() + ")";
  } else if (n.hasAttr("split") || n.input(1)) {
    auto s = n.hasAttr("split") ? n.intsAttr("split") : n.constantInts(1);
    DLC_TRY(s);
    int64_t total = 0;
    for (int64_t v : *s) {
      if (v < 0 || __builtin_add_overflow(total, v, &total))
        return n.error("split sizes " + str(*s) + " must be >= 0 and sum within int64");
      names.push_back("");
    }
    sizes = *s;
    auto same = n.create<EqualOp>({*size, n.intConstant(n.b.getI64Type(), total)});
    DLC_TRY(same);
    bad = n.create<NotOp>({*same});
    what = "split sizes " + str(*s) + " do not sum to dim " + std::to_string(axis) + " (" +
           dim.str() + ")";
  } else {
    auto pieces = numPieces(n);
    DLC_TRY(pieces);
    int64_t k = *pieces;
    std::optional<graph::SymbolicSize> chunk = graph::sizeCeilDiv(dim, k);
    std::optional<graph::SymbolicSize> last =
        chunk ? graph::sizeAdd(dim, *chunk, -(k - 1)) : std::nullopt;
    if (!last)
      return n.error("the pieces' sizes overflow int64");
    for (int64_t i = 0; i < k; ++i) {
      const graph::SymbolicSize &piece = i + 1 < k ? *chunk : *last;
      sizes.push_back(piece.isStatic() ? piece.coef : ShapedType::kDynamic);
      names.push_back(piece.isStatic() ? "" : piece.str());
    }
    // The last piece must not be negative: dim > (k - 1) * ceil(dim / k) - 1.
    Type i64 = n.b.getI64Type();
    auto up = n.create<AddOp>({*size, n.intConstant(i64, k - 1)});
    DLC_TRY(up);
    auto ch = n.create<DivOp>({*up, n.intConstant(i64, k)});
    DLC_TRY(ch);
    auto used = n.create<MulOp>({*ch, n.intConstant(i64, k - 1)});
    DLC_TRY(used);
    bad = n.create<GreaterOp>({*used, *size});
    what = "dim " + std::to_string(axis) + " (" + dim.str() + ") is too small to split into " +
           std::to_string(k) + " pieces";
  }
  DLC_TRY(bad);
  if (failed(checkAtRunTime(n, *bad, what)))
    return failure();
  SmallVector<NamedAttribute> attrs = {n.named("axis", n.b.getI64IntegerAttr(axis)),
                                       n.named("sizes", n.b.getDenseI64ArrayAttr(sizes))};
  if (llvm::any_of(sizes, ShapedType::isDynamic)) {
    SmallVector<StringRef> refs(names.begin(), names.end());
    attrs.push_back(n.named("dims", n.b.getStrArrayAttr(refs)));
  }
  auto r = n.createMulti(SplitOp::getOperationName(), {x}, attrs);
  DLC_TRY(r);
  llvm::append_range(out, *r);
  return success();
}

LogicalResult split(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto axis = n.intAttr("axis", 0);
  DLC_TRY(x); DLC_TRY(axis);
  auto t = tensorType(*x);
  auto a = n.dimAxis(*axis, t.getRank());
  DLC_TRY(a);
  int64_t dim = t.getDimSize(*a);
  // A dynamic dim, or sizes computed from dynamic shapes (dlc compile --dims).
  if (ShapedType::isDynamic(dim) ||
      (!n.hasAttr("split") && n.input(1) && !n.knownInput(1) && n.symbolicInts(1)))
    return splitDynamic(n, *x, *a, out);
  SmallVector<int64_t> sizes;
  if (n.hasAttr("split")) {
    auto s = n.intsAttr("split");
    DLC_TRY(s);
    sizes = *s;
  } else if (n.input(1)) {
    auto s = n.constantInts(1);
    DLC_TRY(s);
    sizes = *s;
  } else {
    auto pieces = numPieces(n);
    DLC_TRY(pieces);
    int64_t k = *pieces;
    int64_t chunk = dim / k + (dim % k != 0);
    for (int64_t i = 0; i < k; ++i)
      sizes.push_back(std::max<int64_t>(0, std::min(chunk, dim - i * chunk)));
  }
  auto r = n.createMulti(SplitOp::getOperationName(), {*x},
                         {n.named("axis", n.b.getI64IntegerAttr(*a)),
                          n.named("sizes", n.b.getDenseI64ArrayAttr(sizes))});
  DLC_TRY(r);
  llvm::append_range(out, *r);
  return success();
}

/// A slice of dim `axis` (size `dim`) from `start` to `end` by `step` where the dim or a
/// bound is symbolic (dlc compile --dims): its start and size as sizes of the symbols, with
/// ONNX's clamping of the bounds to the dim (a max or min the declared ranges do not decide
/// is computed when the model runs).
struct DynamicSlice {
  graph::SymbolicSize start, size;
};
FailureOr<DynamicSlice> dynamicSlice(NodeImporter &n, int64_t axis, graph::SymbolicSize start,
                                     graph::SymbolicSize end, int64_t step,
                                     graph::SymbolicSize dim) {
  using graph::SymbolicSize;
  auto bounds = [&](const SymbolicSize &s) { return graph::sizeBounds(n.dynamicFunc, s); };
  std::string where = "slice of dim " + std::to_string(axis) + " (size " + dim.str() + ") from " +
                      start.str() + " to " + end.str();
  bool overflow = false;
  auto add = [&](const SymbolicSize &a, const SymbolicSize &b, int64_t scale) {
    std::optional<SymbolicSize> r = graph::sizeAdd(a, b, scale);
    overflow |= !r;
    return r ? *r : SymbolicSize::constant(0);
  };
  // max(x, lo) and min(x, hi), decided by the ranges where they can.
  auto atLeast = [&](const SymbolicSize &x, const SymbolicSize &lo) {
    auto r = bounds(add(x, lo, -1));
    return r && r->first >= 0 ? x : r && r->second <= 0 ? lo : graph::sizeMax(x, lo);
  };
  auto atMost = [&](const SymbolicSize &x, const SymbolicSize &hi) {
    auto r = bounds(add(hi, x, -1));
    return r && r->first >= 0 ? x : r && r->second <= 0 ? hi : graph::sizeMin(x, hi);
  };
  // A bound as an index into the dim (from the end when a negative constant), clamped to
  // [first, last].
  auto index = [&](const SymbolicSize &v, const SymbolicSize &first, const SymbolicSize &last) {
    // Constants past int64's half are past every dim: no sum with them.
    if (v.isStatic() && (v.coef >= (int64_t(1) << 62) || v.coef <= -(int64_t(1) << 62)))
      return v.coef > 0 ? last : first;
    // From the end (dim + v <= last), or from the start (v >= 0 >= first).
    if (v.isStatic() && v.coef < 0)
      return atLeast(add(dim, v, 1), first);
    if (v.isStatic())
      return atMost(v, last);
    return atMost(atLeast(v, first), last);
  };
  if (!bounds(dim))
    return n.error(where + ": the ranges of its symbolic dims are not known");
  if (step == std::numeric_limits<int64_t>::min())
    return n.error(where + ": step " + Twine(step) + " is out of range");
  SymbolicSize zero = SymbolicSize::constant(0);
  SymbolicSize s, span;
  if (step > 0) {
    s = index(start, zero, dim);
    span = add(index(end, zero, dim), s, -1);
  } else {
    SymbolicSize last = add(dim, SymbolicSize::constant(1), -1);
    s = index(start, zero, last);
    span = add(s, index(end, SymbolicSize::constant(-1), last), -1);
  }
  std::optional<SymbolicSize> size = graph::sizeCeilDiv(atLeast(span, zero), step > 0 ? step : -step);
  if (overflow || !size)
    return n.error(where + ": its sizes overflow int64");
  return DynamicSlice{s, *size};
}

LogicalResult slice(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  auto shape = tensorType(*x).getShape();
  int64_t rank = shape.size();
  SmallVector<int64_t> starts, ends, axes, steps;
  SmallVector<graph::SymbolicSize> symbolicStarts, symbolicEnds;
  if (n.opset < 10) {
    auto s = n.intsAttr("starts"), e = n.intsAttr("ends"), a = n.intsAttr("axes");
    DLC_TRY(s); DLC_TRY(e); DLC_TRY(a);
    starts = *s, ends = *e, axes = *a;
  } else {
    // Starts and ends computed from dynamic shapes (x[:, :, :seq]) are sizes of the
    // symbols; constant ones are read as given.
    auto bound = [&](unsigned i, SmallVector<int64_t> &ints,
                     SmallVector<graph::SymbolicSize> &sizes) -> LogicalResult {
      if (!n.knownInput(i))
        if (auto v = n.symbolicInts(i))
          sizes.assign(v->begin(), v->end());
      for (const graph::SymbolicSize &v : sizes)
        ints.push_back(v.isStatic() ? v.coef : 0);
      if (!sizes.empty())
        return success();
      auto c = n.constantInts(i);
      DLC_TRY(c);
      ints = *c;
      return success();
    };
    if (failed(bound(1, starts, symbolicStarts)) || failed(bound(2, ends, symbolicEnds)))
      return failure();
    if (n.input(3)) {
      auto a = n.constantInts(3);
      DLC_TRY(a);
      axes = *a;
    }
    if (n.input(4)) {
      auto st = n.constantInts(4);
      DLC_TRY(st);
      steps = *st;
    }
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return n.error("starts, ends, axes and steps must have the same length");
  SmallVector<int64_t> oStart(rank, 0), oSize(shape), oStep(rank, 1);
  SmallVector<std::string> oDims(rank), oStartDims(rank);
  std::optional<SmallVector<graph::SymbolicSize>> inDims;
  if (!tensorType(*x).hasStaticShape() && !(inDims = n.symbolicDims(*x)))
    return n.error("the sizes of input 0's dynamic dims are not known");
  for (auto [d, size] : llvm::enumerate(shape))
    if (ShapedType::isDynamic(size))
      oDims[d] = (*inDims)[d].str();
  for (size_t i = 0; i < starts.size(); ++i) {
    auto a = n.dimAxis(axes[i], rank); // its dim is read: a scalar has none
    DLC_TRY(a);
    int64_t dim = shape[*a], step = steps[i];
    if (step == 0)
      return n.error("slice step must not be 0");
    bool symbolicEnd = i < symbolicEnds.size() && !symbolicEnds[i].isStatic();
    bool symbolicStart = i < symbolicStarts.size() && !symbolicStarts[i].isStatic();
    if (ShapedType::isDynamic(dim) || symbolicEnd || symbolicStart) {
      auto sliced = dynamicSlice(
          n, *a, symbolicStart ? symbolicStarts[i] : graph::SymbolicSize::constant(starts[i]),
          symbolicEnd ? symbolicEnds[i] : graph::SymbolicSize::constant(ends[i]), step,
          inDims ? (*inDims)[*a] : graph::SymbolicSize::constant(dim));
      DLC_TRY(sliced);
      const graph::SymbolicSize &size = sliced->size, &from = sliced->start;
      bool empty = size.isStatic() && size.coef == 0;
      oSize[*a] = size.isStatic() ? size.coef : ShapedType::kDynamic;
      oDims[*a] = size.isStatic() ? "" : size.str();
      oStart[*a] = empty || !from.isStatic() ? 0 : from.coef;
      oStartDims[*a] = empty || from.isStatic() ? "" : from.str();
      oStep[*a] = step;
      continue;
    }
    // ONNX clamping: starts/ends are clamped to [0, dim] (positive step) or [-1, dim-1].
    auto clampIdx = [&](int64_t v, bool isEnd) {
      if (v < 0)
        v += dim;
      if (step > 0)
        return std::clamp<int64_t>(v, 0, dim);
      return std::clamp<int64_t>(v, -1, dim - 1);
    };
    int64_t s = clampIdx(starts[i], false), e = clampIdx(ends[i], true);
    // ceil(span / |step|) without overflow: |INT64_MIN| and span + |step| do not fit int64.
    int64_t span = step > 0 ? e - s : s - e;
    uint64_t mag = step > 0 ? uint64_t(step) : 0 - uint64_t(step);
    int64_t size = span <= 0 ? 0 : int64_t((uint64_t(span) - 1) / mag + 1);
    oStart[*a] = size ? s : 0;
    oSize[*a] = size;
    oStep[*a] = step;
  }
  SmallVector<NamedAttribute> attrs = {n.named("starts", n.b.getDenseI64ArrayAttr(oStart)),
                                       n.named("sizes", n.b.getDenseI64ArrayAttr(oSize)),
                                       n.named("steps", n.b.getDenseI64ArrayAttr(oStep))};
  if (llvm::any_of(oSize, ShapedType::isDynamic)) {
    for (auto [d, size] : llvm::enumerate(oSize))
      if (!ShapedType::isDynamic(size))
        oDims[d].clear();
    SmallVector<StringRef> refs(oDims.begin(), oDims.end());
    attrs.push_back(n.named("dims", n.b.getStrArrayAttr(refs)));
  }
  if (llvm::any_of(oStartDims, [](const std::string &d) { return !d.empty(); })) {
    SmallVector<StringRef> refs(oStartDims.begin(), oStartDims.end());
    attrs.push_back(n.named("start_dims", n.b.getStrArrayAttr(refs)));
  }
  return push(n.create<SliceOp>({*x}, attrs), out);
}

} // namespace

FailureOr<Value> sliceTo(NodeImporter &n, Value x, ArrayRef<graph::SymbolicSize> starts,
                         ArrayRef<graph::SymbolicSize> sizes) {
  SmallVector<int64_t> oStart, oSize, oStep(starts.size(), 1);
  SmallVector<std::string> oDims, oStartDims;
  for (auto [from, size] : llvm::zip(starts, sizes)) {
    bool empty = size.isStatic() && size.coef == 0;
    oStart.push_back(empty || !from.isStatic() ? 0 : from.coef);
    oStartDims.push_back(empty || from.isStatic() ? "" : from.str());
    oSize.push_back(size.isStatic() ? size.coef : ShapedType::kDynamic);
    oDims.push_back(size.isStatic() ? "" : size.str());
  }
  SmallVector<StringRef> dimRefs(oDims.begin(), oDims.end()),
      startRefs(oStartDims.begin(), oStartDims.end());
  return n.create<SliceOp>({x}, {n.named("starts", n.b.getDenseI64ArrayAttr(oStart)),
                                 n.named("sizes", n.b.getDenseI64ArrayAttr(oSize)),
                                 n.named("steps", n.b.getDenseI64ArrayAttr(oStep)),
                                 n.named("dims", n.b.getStrArrayAttr(dimRefs)),
                                 n.named("start_dims", n.b.getStrArrayAttr(startRefs))});
}

LogicalResult symbolicPad(NodeImporter &n, Value x, ArrayRef<graph::SymbolicSize> pads,
                          double value, SmallVectorImpl<Value> &out) {
  using graph::SymbolicSize;
  auto dims = n.sizesOf(x);
  if (!dims)
    return n.error("the sizes of input 0's dynamic dims are not known");
  int64_t rank = dims->size();
  if ((int64_t)pads.size() != 2 * rank)
    return n.error("expected " + Twine(2 * rank) + " pads, got " + Twine(pads.size()));
  // max(p, 0), decided by the ranges where they can.
  auto positive = [&](const SymbolicSize &p) {
    auto r = p.isStatic() ? std::optional<std::pair<int64_t, int64_t>>({p.coef, p.coef})
                          : graph::sizeBounds(n.dynamicFunc, p);
    SymbolicSize zero = SymbolicSize::constant(0);
    return r && r->first >= 0 ? p : r && r->second <= 0 ? zero : graph::sizeMax(p, zero);
  };
  auto negated = [&](const SymbolicSize &p) {
    return *graph::sizeAdd(SymbolicSize::constant(0), p, -1);
  };
  // Negative pads crop first (a slice), positive ones then add filled blocks (concats).
  SmallVector<SymbolicSize> starts, sizes;
  bool crop = false;
  for (int64_t d = 0; d < rank; ++d) {
    SymbolicSize lo = positive(negated(pads[d])), hi = positive(negated(pads[d + rank]));
    std::optional<SymbolicSize> size = graph::sizeAdd((*dims)[d], lo, -1);
    if (size)
      size = graph::sizeAdd(*size, hi, -1);
    if (!size)
      return n.error("the padded size of dim " + Twine(d) + " overflows int64");
    crop |= !(lo.isStatic() && lo.coef == 0 && hi.isStatic() && hi.coef == 0);
    starts.push_back(lo);
    sizes.push_back(*size);
  }
  Value y = x;
  if (crop) {
    auto cropped = sliceTo(n, x, starts, sizes);
    DLC_TRY(cropped);
    y = *cropped;
  }
  Type elt = tensorType(x).getElementType();
  Value fill = n.scalarConstant(elt, value);
  for (int64_t d = 0; d < rank; ++d) {
    SymbolicSize lo = positive(pads[d]), hi = positive(pads[d + rank]);
    SmallVector<Value> parts;
    for (auto [amount, before] : {std::pair(lo, true), std::pair(hi, false)}) {
      if (amount.isStatic() && amount.coef == 0)
        continue;
      SmallVector<SymbolicSize> shape = sizes;
      shape[d] = amount;
      auto block = n.expandTo(fill, shape);
      DLC_TRY(block);
      parts.insert(before ? parts.begin() : parts.end(), *block);
    }
    if (parts.empty())
      continue;
    parts.insert(parts.begin() + (lo.isStatic() && lo.coef == 0 ? 0 : 1), y);
    auto joined = n.create<ConcatOp>(parts, {n.named("axis", n.b.getI64IntegerAttr(d))});
    DLC_TRY(joined);
    y = *joined;
    std::optional<SymbolicSize> size = graph::sizeAdd(sizes[d], lo);
    if (size)
      size = graph::sizeAdd(*size, hi);
    if (!size)
      return n.error("the padded size of dim " + Twine(d) + " overflows int64");
    sizes[d] = *size;
  }
  // Sizes that came out static (a crop and a pad to a given size) get a static type.
  auto typed = n.reshapeTo(y, sizes);
  DLC_TRY(typed);
  out.push_back(*typed);
  return success();
}

FailureOr<int64_t> unrollSteps(NodeImporter &n, const graph::SymbolicSize &len, int64_t most,
                               StringRef what) {
  auto bounds = graph::sizeBounds(n.dynamicFunc, len); // a static size: itself
  if (!bounds || bounds->second < 1 || bounds->second > most)
    return n.error(what + " (" + len.str() + ") must be bounded by 1 to " + Twine(most) +
                   " (--dims)" + (bounds ? ", here up to " + Twine(bounds->second) : Twine()));
  return bounds->second;
}

FailureOr<Value> padAxisTo(NodeImporter &n, Value x, int64_t axis, const graph::SymbolicSize &len,
                           int64_t size) {
  int64_t rank = tensorType(x).getRank();
  SmallVector<graph::SymbolicSize> pads(2 * rank, graph::SymbolicSize::constant(0));
  pads[rank + axis] = *graph::sizeAdd(graph::SymbolicSize::constant(size), len, -1);
  SmallVector<Value> padded;
  if (failed(symbolicPad(n, x, pads, 0.0, padded)))
    return failure();
  return padded[0];
}

namespace {

const OpBuilderEntry kSlice[] = {
    {"Split", 2, split},
    {"Slice", 1, slice},
};

} // namespace

ArrayRef<OpBuilderEntry> sliceBuilders() { return kSlice; }

} // namespace dlc::onnx_frontend
