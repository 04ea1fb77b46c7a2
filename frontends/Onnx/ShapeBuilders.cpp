// ONNX shape, layout and data-movement ops -> dlc_graph, with ONNX index rules normalized.
#include "frontends/Onnx/NodeImporter.h"
#include "dialects/Graph/IR/CheckedBuild.h"
#include "frontends/Onnx/RuntimeChecks.h"
#include "frontends/Onnx/Expr.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {

namespace {

using Results = SmallVectorImpl<Value>;

LogicalResult push(FailureOr<Value> v, Results &out) {
  DLC_TRY(v);
  out.push_back(*v);
  return success();
}

std::string str(ArrayRef<int64_t> v) { return graph::shapeText(v); }

SmallVector<graph::SymbolicSize> constantSizes(ArrayRef<int64_t> values) {
  return llvm::map_to_vector(values, [](int64_t v) { return graph::SymbolicSize::constant(v); });
}

/// Reshape to a target computed from dynamic shapes (dlc compile --dims): each target
/// element a size of the symbolic dims; the op records every dynamic dim's size.
LogicalResult symbolicReshape(NodeImporter &n, Value x, ArrayRef<graph::SymbolicSize> target,
                              bool allowZero, Results &out) {
  using graph::SymbolicSize;
  auto in = n.symbolicDims(x);
  if (!in)
    return n.error("the sizes of input 0's dynamic dims are not known");
  SmallVector<SymbolicSize> dims;
  int64_t inferIdx = -1;
  for (auto [i, t] : llvm::enumerate(target)) {
    if (t.isStatic() && t.coef == 0 && !allowZero) {
      if (i >= in->size())
        return n.error("the shape copies dim " + Twine(i) + " of a rank-" + Twine(in->size()) +
                       " input");
      dims.push_back((*in)[i]);
    } else if (t.isStatic() && t.coef == -1) {
      if (inferIdx >= 0)
        return n.error("the shape has more than one -1");
      inferIdx = i;
      dims.push_back(SymbolicSize::constant(1));
    } else if (t.coef < 0) {
      return n.error("the shape has a negative dim (" + t.str() + ")");
    } else {
      dims.push_back(t);
    }
  }
  SymbolicSize total = graph::sizeProduct(*in);
  if (inferIdx >= 0) {
    SymbolicSize known = graph::sizeProduct(dims);
    std::optional<SymbolicSize> rest = total.divide(known);
    // The symbols divide but the constant may not: a floor quotient, checked when it runs.
    SymbolicSize symbols = known;
    symbols.coef = 1;
    if (!rest && known.coef > 0)
      if (std::optional<SymbolicSize> q = total.divide(symbols))
        rest = graph::sizeFloorDiv(*q, known.coef);
    if (!rest)
      return n.error("cannot infer the -1 of the shape: " + total.str() + " elements do not divide by " +
                     known.str());
    dims[inferIdx] = *rest;
  }
  if (graph::sizeProduct(dims) != total &&
      llvm::any_of(dims, [](const SymbolicSize &d) { return d.coef < 0; }))
    return n.error("cannot reshape " + total.str() + " elements to " + graph::sizeProduct(dims).str());
  return push(n.reshapeTo(x, dims), out);
}

LogicalResult reshape(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto allowZero = n.intAttr("allowzero", 0);
  DLC_TRY(x); DLC_TRY(allowZero);
  // A target computed from dynamic shapes.
  if (!n.knownInput(1))
    if (auto symbolic = n.symbolicInts(1))
      return symbolicReshape(n, *x, *symbolic, *allowZero, out);
  auto shape = n.constantInts(1);
  DLC_TRY(shape);
  // A constant target for an input with dynamic dims: 0 copies and -1 infers its sizes
  // (dims the analysis does not follow yet keep a dynamic -1, checked when lowered).
  if (!tensorType(*x).hasStaticShape() && n.symbolicDims(*x))
    return symbolicReshape(n, *x, constantSizes(*shape), *allowZero, out);
  auto in = tensorType(*x).getShape();
  SmallVector<int64_t> target(*shape);
  int64_t known = 1, inferIdx = -1;
  for (int64_t i = 0; i < (int64_t)target.size(); ++i) {
    if (target[i] == 0 && !*allowZero) {
      if (i >= (int64_t)in.size())
        return n.error("shape " + str(*shape) + " copies dim " + Twine(i) + " of a rank-" +
                       Twine(in.size()) + " input");
      target[i] = in[i];
    }
    if (ShapedType::isDynamic(target[i])) {
      continue; // a copied dynamic dim
    } else if (target[i] == -1) {
      if (inferIdx >= 0)
        return n.error("shape " + str(*shape) + " has more than one -1");
      inferIdx = i;
    } else if (target[i] < 0) {
      return n.error("shape " + str(*shape) + " has a negative dim");
    } else if (__builtin_mul_overflow(known, target[i], &known)) {
      return n.error("shape " + str(*shape) + " overflows (its element count exceeds 2^63)");
    }
  }
  if (inferIdx >= 0 && !tensorType(*x).hasStaticShape()) {
    target[inferIdx] = ShapedType::kDynamic;
    return push(n.reshape(*x, target), out);
  }
  int64_t total = tensorType(*x).getNumElements();
  if (inferIdx >= 0) {
    if (known == 0 || total % known)
      return n.error("cannot reshape " + str(in) + " to " + str(*shape));
    target[inferIdx] = total / known;
  }
  return push(n.reshape(*x, target), out);
}

LogicalResult flatten(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto axis = n.intAttr("axis", 1);
  DLC_TRY(x); DLC_TRY(axis);
  auto t = tensorType(*x);
  int64_t a = *axis < 0 ? *axis + t.getRank() : *axis;
  if (a < 0 || a > t.getRank())
    return n.error("axis " + Twine(*axis) + " is out of range for rank " + Twine(t.getRank()));
  auto dims = t.hasStaticShape() ? std::nullopt : n.symbolicDims(*x);
  if (dims) {
    ArrayRef<graph::SymbolicSize> all = *dims;
    return symbolicReshape(n, *x,
                           {graph::sizeProduct(all.take_front(a)),
                            graph::sizeProduct(all.drop_front(a))},
                           /*allowZero=*/true, out);
  }
  auto outer = n.product(t.getShape().take_front(a), "the outer (flattened) dim");
  auto inner = n.product(t.getShape().drop_front(a), "the inner (flattened) dim");
  DLC_TRY(outer); DLC_TRY(inner);
  return push(n.reshape(*x, {*outer, *inner}), out);
}

/// Axes of Squeeze/Unsqueeze: attribute before opset 13, input from 13.
FailureOr<SmallVector<int64_t>> axesOf(NodeImporter &n, bool required) {
  if (n.hasAttr("axes"))
    return n.intsAttr("axes");
  if (n.input(1))
    return n.constantInts(1);
  if (required)
    return n.error("missing axes");
  return SmallVector<int64_t>();
}

/// x reshaped to `target`, which keeps x's dims other than some of size 1 in order (a
/// squeeze or unsqueeze); its dynamic dims (dlc compile --dims) keep their sizes.
FailureOr<Value> reshapeKeeping(NodeImporter &n, Value x, ArrayRef<int64_t> target) {
  if (tensorType(x).hasStaticShape() || !n.dynamicFunc)
    return n.reshape(x, target);
  std::string why;
  auto sizes = n.shapes().dims(x, &why);
  if (failed(sizes))
    return n.error("the sizes of input 0's dynamic dims are not known: " + why);
  SmallVector<SymbolicSize> kept;
  for (const SymbolicSize &s : *sizes)
    if (!(s.isStatic() && s.coef == 1))
      kept.push_back(s);
  SmallVector<SymbolicSize> to;
  size_t next = 0;
  for (int64_t d : target)
    to.push_back(d == 1 || next == kept.size() ? SymbolicSize::constant(1) : kept[next++]);
  return n.reshapeTo(x, to);
}

LogicalResult squeeze(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto axes = axesOf(n, false);
  DLC_TRY(x); DLC_TRY(axes);
  auto shape = tensorType(*x).getShape();
  SmallVector<bool> drop(shape.size(), false);
  for (int64_t a : *axes) {
    auto na = n.dimAxis(a, shape.size()); // its dim is read: a scalar has none
    DLC_TRY(na);
    if (shape[*na] != 1)
      return n.error("cannot squeeze dim " + Twine(*na) + " of size " + Twine(shape[*na]));
    drop[*na] = true;
  }
  SmallVector<int64_t> target;
  for (size_t d = 0; d < shape.size(); ++d)
    if (!(axes->empty() ? shape[d] == 1 : drop[d]))
      target.push_back(shape[d]);
  return push(reshapeKeeping(n, *x, target), out);
}

LogicalResult unsqueeze(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto axes = axesOf(n, true);
  DLC_TRY(x); DLC_TRY(axes);
  auto shape = tensorType(*x).getShape();
  int64_t rank = shape.size() + axes->size();
  SmallVector<bool> added(rank, false);
  for (int64_t a : *axes) {
    auto na = n.normalizeAxis(a, rank);
    DLC_TRY(na);
    if (added[*na])
      return n.error("duplicate axis " + Twine(a));
    added[*na] = true;
  }
  SmallVector<int64_t> target;
  for (int64_t d = 0, src = 0; d < rank; ++d)
    target.push_back(added[d] ? 1 : shape[src++]);
  return push(reshapeKeeping(n, *x, target), out);
}

LogicalResult transpose(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  int64_t rank = tensorType(*x).getRank();
  SmallVector<int64_t> dflt;
  for (int64_t d = rank - 1; d >= 0; --d)
    dflt.push_back(d);
  auto perm = n.intsAttr("perm", dflt);
  DLC_TRY(perm);
  return push(n.create<TransposeOp>({*x}, {n.named("perm", n.b.getDenseI64ArrayAttr(*perm))}), out);
}

LogicalResult concat(NodeImporter &n, Results &out) {
  auto axis = n.intAttr("axis", 0);
  DLC_TRY(axis);
  SmallVector<Value> ins;
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    auto v = n.requiredInput(i);
    DLC_TRY(v);
    ins.push_back(*v);
  }
  if (ins.empty())
    return n.error("expected at least one input");
  auto a = n.normalizeAxis(*axis, tensorType(ins[0]).getRank());
  DLC_TRY(a);
  return push(n.create<ConcatOp>(ins, {n.named("axis", n.b.getI64IntegerAttr(*a))}), out);
}


/// Indices known at compile time must lie in [-dim, dim) of the dimension they address
/// (`dimOf(k)` for the k-th index, row-major); ONNX makes any other an error. Indices
/// computed at run time get a run-time check (checkIndicesAtRunTime); the lowering
/// clamps them, so even a failing run reads and writes in bounds.
LogicalResult checkKnownIndices(NodeImporter &n, function_ref<int64_t(int64_t)> dimOf) {
  DenseElementsAttr idx = n.knownInput(1);
  if (!idx || !isa<IntegerType>(idx.getElementType()))
    return success(); // not known, or not integers (the op reports those)
  int64_t k = 0;
  for (const APInt &v : idx.getValues<APInt>()) {
    int64_t i = v.getSExtValue(), dim = dimOf(idx.isSplat() ? 0 : k);
    if (dim != ShapedType::kDynamic && (i < -dim || i >= dim))
      return n.error("index " + Twine(i) + " (element " + Twine(k) + " of input 1) is out of "
                     "range for a dimension of size " + Twine(dim) + "; expected [" +
                     Twine(-dim) + ", " + Twine(dim) + ")");
    if (idx.isSplat())
      break;
    ++k;
  }
  return success();
}

/// Gather, GatherElements, ScatterElements: every index addresses data's dim `axis`.
LogicalResult checkKnownIndices(NodeImporter &n, Value data, int64_t axis) {
  int64_t dim = tensorType(data).getDimSize(axis);
  if (failed(checkKnownIndices(n, [&](int64_t) { return dim; })))
    return failure();
  return checkIndicesAtRunTime(n, 1, data, axis, 1);
}

/// GatherND, ScatterND: the j-th entry of each index tuple (the indices' last dim)
/// addresses data's dim batchDims + j.
LogicalResult checkKnownTuples(NodeImporter &n, Value data, Value indices, int64_t batchDims) {
  auto it = tensorType(indices);
  int64_t k = it.getRank() ? it.getDimSize(it.getRank() - 1) : 0;
  auto dt = tensorType(data);
  if (k < 1 || k == ShapedType::kDynamic || batchDims + k > dt.getRank())
    return success(); // the op's own checks report these
  if (failed(checkKnownIndices(n, [&](int64_t e) { return dt.getDimSize(batchDims + e % k); })))
    return failure();
  return checkIndicesAtRunTime(n, 1, data, batchDims, k);
}

LogicalResult gather(NodeImporter &n, Results &out) {
  auto data = n.requiredInput(0), idx = n.requiredInput(1);
  auto axis = n.intAttr("axis", 0);
  DLC_TRY(data); DLC_TRY(idx); DLC_TRY(axis);
  auto a = n.dimAxis(*axis, tensorType(*data).getRank()); // its dim is read
  DLC_TRY(a);
  if (failed(checkKnownIndices(n, *data, *a)))
    return failure();
  return push(n.create<GatherOp>({*data, *idx}, {n.named("axis", n.b.getI64IntegerAttr(*a))}), out);
}

LogicalResult gatherElements(NodeImporter &n, Results &out) {
  auto data = n.requiredInput(0), idx = n.requiredInput(1);
  auto axis = n.intAttr("axis", 0);
  DLC_TRY(data); DLC_TRY(idx); DLC_TRY(axis);
  auto a = n.dimAxis(*axis, tensorType(*data).getRank()); // its dim is read
  DLC_TRY(a);
  if (failed(checkKnownIndices(n, *data, *a)))
    return failure();
  return push(n.create<GatherElementsOp>({*data, *idx}, {n.named("axis", n.b.getI64IntegerAttr(*a))}),
              out);
}

LogicalResult gatherND(NodeImporter &n, Results &out) {
  auto data = n.requiredInput(0), idx = n.requiredInput(1);
  auto bd = n.intAttr("batch_dims", 0);
  DLC_TRY(data); DLC_TRY(idx); DLC_TRY(bd);
  auto dt = tensorType(*data), it = tensorType(*idx);
  int64_t b = *bd, ri = it.getRank();
  if (ri < 1 || b < 0 || b >= std::min<int64_t>(ri, dt.getRank() + 1))
    return n.error("batch_dims " + Twine(b) + " is out of range");
  int64_t k = it.getDimSize(ri - 1);
  if (ShapedType::isDynamic(k)) {
    // The tuples' length sets the result's rank: compiled for its greatest size (--dims),
    // a run with another fails.
    auto sizes = n.sizesOf(*idx);
    if (!sizes)
      return n.error("the index tuples' length (the indices' last dim) must be static");
    auto most = unrollSteps(n, sizes->back(), dt.getRank() - b,
                            "the index tuples' length (the indices' last dim, which sets the "
                            "result's rank)");
    DLC_TRY(most);
    k = *most;
    sizes->back() = graph::SymbolicSize::constant(k);
    idx = n.expandTo(*idx, *sizes);
    DLC_TRY(idx);
    it = tensorType(*idx);
  }
  if (k < 1 || b + k > dt.getRank())
    return n.error("index tuples of length " + Twine(k) + " do not fit data of rank " +
                   Twine(dt.getRank()));
  for (int64_t d = 0; d < b; ++d)
    if (it.getDimSize(d) != dt.getDimSize(d))
      return n.error("batch dims of data and indices differ");
  if (failed(checkKnownTuples(n, *data, *idx, b)))
    return failure();
  SmallVector<int64_t> shape(it.getShape().drop_back());
  llvm::append_range(shape, dt.getShape().drop_front(b + k));
  return push(n.create<GatherNDOp>({*data, *idx}, {n.named("batch_dims", n.b.getI64IntegerAttr(b))},
                                   {RankedTensorType::get(shape, dt.getElementType())}),
              out);
}

/// ScatterElements (and the deprecated Scatter) / ScatterND.
template <bool nd> LogicalResult scatter(NodeImporter &n, Results &out) {
  auto data = n.requiredInput(0), idx = n.requiredInput(1), upd = n.requiredInput(2);
  auto axis = n.intAttr("axis", 0);
  auto red = n.stringAttr("reduction", "none");
  DLC_TRY(data); DLC_TRY(idx); DLC_TRY(upd); DLC_TRY(axis); DLC_TRY(red);
  int64_t a = 0;
  if (!nd) {
    auto na = n.dimAxis(*axis, tensorType(*data).getRank()); // its dim is read
    DLC_TRY(na);
    a = *na;
  }
  auto it = tensorType(*idx);
  if (nd && it.getRank() >= 1 && it.isDynamicDim(it.getRank() - 1)) {
    // The tuples' length follows from the ranks (checked when the model runs).
    int64_t k = tensorType(*data).getRank() - (tensorType(*upd).getRank() - (it.getRank() - 1));
    auto sizes = n.sizesOf(*idx);
    if (!sizes || k < 1)
      return n.error("the index tuples' length (the indices' last dim) must be static");
    sizes->back() = graph::SymbolicSize::constant(k);
    idx = n.expandTo(*idx, *sizes);
    DLC_TRY(idx);
  }
  if (failed(nd ? checkKnownTuples(n, *data, *idx, 0) : checkKnownIndices(n, *data, a)))
    return failure();
  SmallVector<NamedAttribute> attrs = {n.named("axis", n.b.getI64IntegerAttr(a)),
                                       n.named("reduction", n.b.getStringAttr(*red))};
  if (nd)
    return push(n.create<ScatterNDOp>({*data, *idx, *upd}, attrs, {tensorType(*data)}), out);
  return push(n.create<ScatterElementsOp>({*data, *idx, *upd}, attrs, {tensorType(*data)}), out);
}

LogicalResult expand(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  // A target computed from dynamic shapes, or an input with dynamic dims.
  if (!n.knownInput(1) || !tensorType(*x).hasStaticShape())
    if (auto symbolic = n.assumingInts(1))
      return push(n.expandTo(*x, *symbolic), out);
  auto shape = n.constantInts(1);
  DLC_TRY(shape);
  auto t = tensorType(*x);
  if (llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
    return n.error("shape " + str(*shape) + " has a negative dim");
  auto s = broadcastShapes(t.getShape(), *shape);
  if (!s)
    return n.error("cannot expand " + str(t.getShape()) + " to " + str(*shape));
  auto rt = RankedTensorType::get(*s, t.getElementType());
  if (rt == t)
    return push(*x, out);
  return push(n.create<ExpandOp>({*x}, {}, {rt}), out);
}

/// Pad mode "wrap": per padded axis, a gather of indices (i - before) mod dim
/// (negative pads crop).
LogicalResult wrapPad(NodeImporter &n, Value x, ArrayRef<int64_t> pads, Results &out) {
  int64_t rank = tensorType(x).getRank();
  if ((int64_t)pads.size() != 2 * rank)
    return n.error("expected " + Twine(2 * rank) + " pads, got " + Twine(pads.size()));
  for (int64_t d = 0; d < rank; ++d) {
    int64_t dim = tensorType(x).getDimSize(d), before = pads[d], after = pads[d + rank];
    if (before == 0 && after == 0)
      continue;
    if (ShapedType::isDynamic(dim)) { // (i - before) mod dim, computed when the model runs
      auto sizes = n.sizesOf(x);
      auto size = sizes ? graph::sizeAdd((*sizes)[d], graph::SymbolicSize::constant(before + after))
                        : std::nullopt;
      if (!size)
        return n.error("the sizes of the input's dynamic dims are not known");
      auto i = n.iota(*size), len = n.dimSize(x, d);
      DLC_TRY(i);
      DLC_TRY(len);
      Expr e{n, n.b.getI64Type()};
      Value indices = e.op<ModOp>({e.op<SubOp>({*i, e.c(double(before))}), *len});
      auto g = n.create<GatherOp>({x, indices}, {n.named("axis", n.b.getI64IntegerAttr(d))});
      DLC_TRY(g);
      x = *g;
      continue;
    }
    I64c padded = I64c(dim) + before + after;
    if (!padded.ok() || padded.value() < 0 || (dim == 0 && padded.value() > 0))
      return n.error("pads of axis " + Twine(d) + " do not fit its size " + Twine(dim));
    int64_t size = padded.value();
    if (failed(n.checkShape({size}, n.b.getI64Type(), "the wrap indices")))
      return failure();
    SmallVector<int64_t> idx;
    for (int64_t i = 0; i < size; ++i) // i - before may not fit int64
      idx.push_back(int64_t(((__int128(i) - before) % dim + dim) % dim));
    Value indices = n.constant(DenseElementsAttr::get(
        RankedTensorType::get({size}, n.b.getI64Type()), ArrayRef<int64_t>(idx)));
    auto g = n.create<GatherOp>({x, indices}, {n.named("axis", n.b.getI64IntegerAttr(d))});
    DLC_TRY(g);
    x = *g;
  }
  out.push_back(x);
  return success();
}

LogicalResult pad(NodeImporter &n, Results &out) {
  // (Pads computed from dynamic shapes: symbolicPad, SliceBuilders.cpp.)
  auto x = n.requiredInput(0);
  auto mode = n.stringAttr("mode", "constant");
  DLC_TRY(x); DLC_TRY(mode);
  auto t = tensorType(*x);
  int64_t rank = t.getRank();
  SmallVector<int64_t> pads;
  double value = 0;
  if (n.opset < 11) {
    auto p = n.intsAttr("pads");
    auto v = n.floatAttr("value", 0.0f);
    DLC_TRY(p); DLC_TRY(v);
    pads = *p;
    value = *v;
  } else {
    // Pads computed from dynamic shapes (dlc compile --dims): constant mode only.
    if (!n.knownInput(1) && *mode == "constant")
      if (auto symbolic = n.symbolicInts(1)) {
        if (n.input(3)) { // pads of the given axes
          auto axes = n.constantInts(3);
          DLC_TRY(axes);
          if (symbolic->size() != 2 * axes->size())
            return n.error("expected " + Twine(2 * axes->size()) + " pads for " +
                           Twine(axes->size()) + " axes");
          SmallVector<graph::SymbolicSize> full(2 * rank, graph::SymbolicSize::constant(0));
          for (size_t i = 0; i < axes->size(); ++i) {
            auto a = n.dimAxis((*axes)[i], rank);
            DLC_TRY(a);
            full[*a] = (*symbolic)[i];
            full[*a + rank] = (*symbolic)[i + axes->size()];
          }
          *symbolic = full;
        }
        double fill = 0;
        if (n.input(2)) {
          auto v = n.constantInput(2);
          DLC_TRY(v);
          if (v->getNumElements() != 1)
            return n.error("constant_value must have one element");
          fill = isa<FloatType>(v->getElementType())
                     ? (*v->getValues<APFloat>().begin()).convertToDouble()
                     : (double)(*v->getValues<APInt>().begin()).getSExtValue();
        }
        return symbolicPad(n, *x, *symbolic, fill, out);
      }
    auto p = n.constantInts(1);
    DLC_TRY(p);
    pads = *p;
    if (n.input(2)) {
      auto v = n.constantInput(2);
      DLC_TRY(v);
      if (v->getNumElements() != 1)
        return n.error("constant_value must have one element");
      value = isa<FloatType>(v->getElementType())
                  ? (*v->getValues<APFloat>().begin()).convertToDouble()
                  : (double)(*v->getValues<APInt>().begin()).getSExtValue();
    }
    if (n.input(3)) {
      auto axes = n.constantInts(3);
      DLC_TRY(axes);
      if (pads.size() != 2 * axes->size())
        return n.error("expected " + Twine(2 * axes->size()) + " pads for " +
                       Twine(axes->size()) + " axes");
      SmallVector<int64_t> full(2 * rank, 0);
      for (size_t i = 0; i < axes->size(); ++i) {
        auto a = n.dimAxis((*axes)[i], rank); // indexes the pads of a dim
        DLC_TRY(a);
        full[*a] = pads[i];
        full[*a + rank] = pads[i + axes->size()];
      }
      pads = full;
    }
  }
  if (*mode == "wrap")
    return wrapPad(n, *x, pads, out);
  return push(n.create<PadOp>({*x}, {n.named("pads", n.b.getDenseI64ArrayAttr(pads)),
                                     n.named("mode", n.b.getStringAttr(*mode)),
                                     n.named("value", n.b.getF64FloatAttr(value))}),
              out);
}

LogicalResult shapeOp(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  auto shape = tensorType(*x).getShape();
  int64_t rank = shape.size();
  auto start = n.intAttr("start", 0), end = n.intAttr("end", rank);
  DLC_TRY(start); DLC_TRY(end);
  auto clampIdx = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
  int64_t s = clampIdx(*start), e = std::max(s, clampIdx(*end));
  if (s == 0 && e == rank)
    return push(n.create<ShapeOp>({*x}), out);
  // Dynamic dims (dlc compile --dims): the part of the whole shape.
  if (!tensorType(*x).hasStaticShape()) {
    auto whole = n.create<ShapeOp>({*x});
    DLC_TRY(whole);
    return push(n.create<SliceOp>({*whole},
                                  {n.named("starts", n.b.getDenseI64ArrayAttr({s})),
                                   n.named("sizes", n.b.getDenseI64ArrayAttr({e - s})),
                                   n.named("steps", n.b.getDenseI64ArrayAttr({1}))}),
                out);
  }
  SmallVector<int64_t> dims(shape.begin() + s, shape.begin() + e);
  out.push_back(n.constant(DenseElementsAttr::get(
      RankedTensorType::get({(int64_t)dims.size()}, n.b.getI64Type()), ArrayRef<int64_t>(dims))));
  return success();
}

LogicalResult sizeOp(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  auto count = n.elementCount(*x, n.b.getI64Type()); // read at run time for dynamic dims
  DLC_TRY(count);
  out.push_back(*count);
  return success();
}

LogicalResult constantOp(NodeImporter &n, Results &out) {
  Builder &b = n.b;
  if (const auto *a = n.findAttr("value")) {
    if (a->type() != onnx::AttributeProto::TENSOR)
      return n.error("attribute 'value' must be TENSOR");
    if (a->t().data_type() == onnx::TensorProto::STRING) {
      auto strings = tensorToStrings(a->t(), n.loc);
      DLC_TRY(strings);
      out.push_back(stringConstant(n.b, n.loc, strings->first, strings->second));
      return success();
    }
    auto v = n.tensorAttr(a->t());
    DLC_TRY(v);
    out.push_back(n.constant(*v));
  } else if (n.hasAttr("value_float")) {
    auto f = n.floatAttr("value_float", 0);
    DLC_TRY(f);
    out.push_back(n.constant(DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()), *f)));
  } else if (n.hasAttr("value_int")) {
    auto i = n.intAttr("value_int", 0);
    DLC_TRY(i);
    out.push_back(n.constant(DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()), *i)));
  } else if (n.hasAttr("value_ints")) {
    auto v = n.intsAttr("value_ints");
    DLC_TRY(v);
    out.push_back(n.constant(DenseElementsAttr::get(
        RankedTensorType::get({(int64_t)v->size()}, b.getI64Type()), ArrayRef<int64_t>(*v))));
  } else if (const auto *fs = n.findAttr("value_floats")) {
    SmallVector<float> v(fs->floats().begin(), fs->floats().end());
    out.push_back(n.constant(DenseElementsAttr::get(
        RankedTensorType::get({(int64_t)v.size()}, b.getF32Type()), ArrayRef<float>(v))));
  } else {
    return n.error("unsupported Constant form (expected value, value_float(s) or value_int(s))");
  }
  return success();
}

LogicalResult constantOfShape(NodeImporter &n, Results &out) {
  DenseElementsAttr fill =
      DenseElementsAttr::get(RankedTensorType::get({1}, n.b.getF32Type()), 0.0f);
  if (const auto *a = n.findAttr("value")) {
    auto v = n.tensorAttr(a->t());
    DLC_TRY(v);
    if (v->getNumElements() != 1)
      return n.error("value must have one element");
    fill = *v;
  }
  // A shape computed from dynamic shapes: the value broadcast to those sizes.
  if (!n.knownInput(0))
    if (auto symbolic = n.symbolicInts(0)) {
      for (const graph::SymbolicSize &d : *symbolic)
        if (d.coef < 0)
          return n.error("negative dim in shape (" + d.str() + ")");
      Value scalar = n.constant(DenseElementsAttr::get(
          RankedTensorType::get({}, fill.getElementType()), fill.getValues<Attribute>()[0]));
      return push(n.expandTo(scalar, *symbolic), out);
    }
  auto shape = n.constantInts(0);
  DLC_TRY(shape);
  for (int64_t d : *shape)
    if (d < 0)
      return n.error("negative dim in shape " + str(*shape));
  if (failed(n.checkShape(*shape, fill.getElementType())))
    return failure();
  auto type = RankedTensorType::get(*shape, fill.getElementType());
  out.push_back(n.constant(DenseElementsAttr::get(type, fill.getValues<Attribute>()[0])));
  return success();
}


const OpBuilderEntry kShape[] = {
    {"GatherElements", 11, gatherElements},
    {"GatherND", 11, gatherND},
    {"ScatterElements", 11, scatter<false>},
    {"Scatter", 9, scatter<false>},
    {"ScatterND", 11, scatter<true>},
    {"Reshape", 5, reshape},
    {"Flatten", 1, flatten},
    {"Squeeze", 1, squeeze},
    {"Unsqueeze", 1, unsqueeze},
    {"Transpose", 1, transpose},
    {"Concat", 4, concat},
    {"Gather", 1, gather},
    {"Expand", 8, expand},
    {"Pad", 2, pad},
    {"Shape", 1, shapeOp},
    {"Size", 1, sizeOp},
    {"Constant", 1, constantOp},
    {"ConstantOfShape", 9, constantOfShape},
};

} // namespace

ArrayRef<OpBuilderEntry> shapeBuilders() { return kShape; }

const OpBuilderEntry *findOpBuilder(StringRef domain, StringRef opType, int opset) {
  if (domain == "ai.onnx")
    domain = "";
  for (auto table : {elementwiseBuilders(), activationBuilders(), reductionBuilders(), nnBuilders(),
                     shapeBuilders(), sliceBuilders(), lossBuilders(), attentionBuilders(),
                     linearAttentionBuilders(), normalizationBuilders(), layoutBuilders(), rearrangeBuilders(), resizeBuilders(),
                     convTransposeBuilders(), signalBuilders(), quantBuilders(),
                     einsumBuilders(), controlFlowBuilders(),
                     recurrentBuilders(), gridSampleBuilders(), sequenceBuilders(), trainingBuilders(),
                     mlBuilders(), contribBuilders(), rangeBuilders(),
                     dataDependentBuilders(), stringBuilders(), labelEncoderBuilders()})
    for (const OpBuilderEntry &e : table)
      if (opType == e.opType && domain == e.domain && opset >= e.minOpset)
        return &e;
  return nullptr;
}

} // namespace dlc::onnx_frontend
