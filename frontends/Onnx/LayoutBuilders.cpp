// ONNX ops built from constants and layout changes at import time: Trilu, CumSum (a
// triangular matmul along the axis), CumProd, AffineGrid, MaxUnpool, CenterCropPad,
// ReverseSequence, Compress, Col2Im.
#include "frontends/Onnx/Expr.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

using Results = SmallVectorImpl<Value>;

/// An i1 constant [rows, cols] with keep(i, j); null (the error reported, so the
/// caller's Expr step fails) when it is too large (a zero dim elsewhere leaves rows
/// and cols unbounded).
template <typename Fn> Value maskConstant(NodeImporter &n, int64_t rows, int64_t cols, Fn keep) {
  if (failed(n.checkShape({rows, cols}, n.b.getI1Type(), "the mask")))
    return Value();
  SmallVector<bool> v;
  for (int64_t i = 0; i < rows && cols; ++i)
    for (int64_t j = 0; j < cols; ++j)
      v.push_back(keep(i, j));
  return n.constant(DenseElementsAttr::get(RankedTensorType::get({rows, cols}, n.b.getI1Type()),
                                           ArrayRef<bool>(v)));
}

/// An optional scalar integer input (default `dflt`).
FailureOr<int64_t> scalarInput(NodeImporter &n, unsigned i, int64_t dflt) {
  if (!n.input(i))
    return dflt;
  auto v = n.constantInts(i);
  DLC_TRY(v);
  if (v->size() != 1)
    return n.error("input " + Twine(i) + " must hold one value");
  return (*v)[0];
}

LogicalResult trilu(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto upper = n.intAttr("upper", 1);
  DLC_TRY(x);
  DLC_TRY(upper);
  auto k = scalarInput(n, 1, 0);
  DLC_TRY(k);
  auto t = tensorType(*x);
  if (t.getRank() < 2)
    return n.error("expects an input of rank >= 2");
  int64_t m = t.getDimSize(t.getRank() - 2), c = t.getDimSize(t.getRank() - 1);
  Value keep;
  if (ShapedType::isDynamic(m) || ShapedType::isDynamic(c)) {
    // Dynamic dims: j - i compared with k over positions when the model runs.
    auto dims = n.sizesOf(*x);
    if (!dims)
      return n.error("the sizes of input 0's dynamic dims are not known");
    auto one = graph::SymbolicSize::constant(1);
    auto rows = n.iota((*dims)[t.getRank() - 2]), cols = n.iota((*dims)[t.getRank() - 1]);
    DLC_TRY(rows);
    DLC_TRY(cols);
    auto i = n.reshapeTo(*rows, {(*dims)[t.getRank() - 2], one});
    auto j = n.reshapeTo(*cols, {one, (*dims)[t.getRank() - 1]});
    DLC_TRY(i);
    DLC_TRY(j);
    auto diff = n.create<SubOp>({*j, *i});
    DLC_TRY(diff);
    Value kv = n.intConstant(n.b.getI64Type(), *k);
    auto cmp = *upper ? n.create<GreaterEqualOp>({*diff, kv}) : n.create<LessEqualOp>({*diff, kv});
    DLC_TRY(cmp);
    keep = *cmp;
  } else {
    keep = maskConstant(n, m, c, [&](int64_t i, int64_t j) {
      return *upper ? j - i >= *k : j - i <= *k;
    });
  }
  Expr e{n, t.getElementType()};
  Value y = e.where(keep, *x, e.c(0));
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

/// CumSum along `axis` as x[.., axis -> last] @ T with T[i][j] = 1 where i
/// contributes to j (i <= j; i < j exclusive; mirrored for reverse).
/// CumSum / CumProd operands: the input, the (normalized) axis, exclusive, reverse.
struct ScanArgs {
  Value x;
  int64_t axis;
  bool exclusive, reverse;
};

FailureOr<ScanArgs> scanArgs(NodeImporter &n) {
  auto x = n.requiredInput(0);
  auto exclusive = n.intAttr("exclusive", 0), reverse = n.intAttr("reverse", 0);
  DLC_TRY(x);
  DLC_TRY(exclusive);
  DLC_TRY(reverse);
  auto axisV = n.constantInts(1);
  DLC_TRY(axisV);
  if (axisV->size() != 1)
    return n.error("axis must hold one value");
  auto a = n.dimAxis((*axisV)[0], tensorType(*x).getRank()); // its dim is read
  DLC_TRY(a);
  return ScanArgs{*x, *a, *exclusive != 0, *reverse != 0};
}

/// CumSum over dynamic dims: the same product, its triangle from positions when the
/// model runs.
LogicalResult cumSumDynamic(NodeImporter &n, const ScanArgs &s, Results &out) {
  auto t = tensorType(s.x);
  auto dims = n.sizesOf(s.x);
  if (!dims)
    return n.error("the sizes of input 0's dynamic dims are not known");
  AxisLast m = axisLast(t.getShape(), s.axis);
  SmallVector<graph::SymbolicSize> moved;
  for (int64_t d : m.perm)
    moved.push_back((*dims)[d]);
  graph::SymbolicSize len = moved.back();
  auto moveT = n.create<TransposeOp>({s.x}, {n.named("perm", n.b.getDenseI64ArrayAttr(m.perm))});
  DLC_TRY(moveT);
  auto flat = n.reshapeTo(*moveT, {graph::sizeProduct(ArrayRef(moved).drop_back()), len});
  DLC_TRY(flat);
  auto pos = n.iota(len);
  DLC_TRY(pos);
  auto one = graph::SymbolicSize::constant(1);
  auto i = n.reshapeTo(*pos, {len, one}), j = n.reshapeTo(*pos, {one, len});
  DLC_TRY(i);
  DLC_TRY(j);
  // T[i][j] = 1 where i contributes to j.
  FailureOr<Value> tri = s.reverse ? (s.exclusive ? n.create<GreaterOp>({*i, *j})
                                                  : n.create<GreaterEqualOp>({*i, *j}))
                                   : (s.exclusive ? n.create<LessOp>({*i, *j})
                                                  : n.create<LessEqualOp>({*i, *j}));
  DLC_TRY(tri);
  auto triF = n.create<CastOp>({*tri}, {}, {RankedTensorType::get(tensorType(*tri).getShape(),
                                                                 t.getElementType())});
  DLC_TRY(triF);
  auto prod = n.create<MatMulOp>({*flat, *triF});
  DLC_TRY(prod);
  auto back = n.reshapeTo(*prod, moved);
  DLC_TRY(back);
  auto y = n.create<TransposeOp>({*back}, {n.named("perm", n.b.getDenseI64ArrayAttr(m.inverse))});
  DLC_TRY(y);
  out.push_back(*y);
  return success();
}

LogicalResult cumSum(NodeImporter &n, Results &out) {
  auto s = scanArgs(n);
  DLC_TRY(s);
  auto t = tensorType(s->x);
  if (!t.hasStaticShape())
    return cumSumDynamic(n, *s, out);
  int64_t len = t.getDimSize(s->axis);
  Type elt = t.getElementType();
  Expr e{n, elt};
  AxisLast m = axisLast(t.getShape(), s->axis);
  Value flat = e.reshape(e.transpose(s->x, m.perm),
                         {t.getNumElements() / std::max<int64_t>(len, 1), len});
  Value tri = e.cast(maskConstant(n, len, len, [&](int64_t i, int64_t j) {
                       if (s->reverse)
                         return s->exclusive ? i > j : i >= j;
                       return s->exclusive ? i < j : i <= j;
                     }),
                     elt);
  Value y = e.transpose(e.reshape(e.op<MatMulOp>({flat, tri}), m.shape), m.inverse);
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

/// CumProd along `axis` by log-step scanning: y *= y shifted by 1, 2, 4, ... (the
/// shift pads with ones), after a shift by one for `exclusive`.
LogicalResult cumProd(NodeImporter &n, Results &out) {
  auto s = scanArgs(n);
  DLC_TRY(s);
  auto t = tensorType(s->x);
  int64_t a = s->axis, len = t.getDimSize(a), r = t.getRank();
  Expr e{n, t.getElementType()};
  if (!t.hasStaticShape()) {
    // Dynamic dims (dlc compile --dims): shifts by min(k, len), up to the axis' greatest
    // size, each a crop and a block of ones (symbolicPad).
    auto sizes = n.sizesOf(s->x);
    if (!sizes)
      return n.error("the sizes of the input's dynamic dims are not known here");
    SymbolicSize dim = (*sizes)[a];
    auto bounds = dim.isStatic() ? std::optional<std::pair<int64_t, int64_t>>({dim.coef, dim.coef})
                                 : sizeBounds(n.dynamicFunc, dim);
    if (!bounds)
      return n.error("CumProd over a dynamic axis (" + dim.str() + ") needs its upper bound");
    auto shifted = [&](Value v, int64_t k) -> FailureOr<Value> {
      SymbolicSize kk = bounds->second <= k ? dim
                        : bounds->first >= k ? SymbolicSize::constant(k)
                                             : sizeMin(SymbolicSize::constant(k), dim);
      SmallVector<SymbolicSize> pads(2 * r, SymbolicSize::constant(0));
      pads[s->reverse ? r + a : a] = kk;                          // ones enter here
      pads[s->reverse ? a : r + a] = *sizeAdd(SymbolicSize::constant(0), kk, -1); // leave
      SmallVector<Value> padded;
      if (failed(symbolicPad(n, v, pads, 1.0, padded)))
        return failure();
      return padded[0];
    };
    Value y = s->x;
    if (bounds->second > 0) {
      if (s->exclusive) {
        auto one = shifted(y, 1);
        DLC_TRY(one);
        y = *one;
      }
      for (int64_t k = 1; k < bounds->second; k *= 2) {
        auto by = shifted(y, k);
        DLC_TRY(by);
        y = e.op<MulOp>({y, *by});
      }
    }
    if (e.failed)
      return failure();
    out.push_back(y);
    return success();
  }
  auto shift = [&](Value v, int64_t k) {
    SmallVector<int64_t> pads(2 * r, 0);
    pads[s->reverse ? r + a : a] = k;   // ones enter here
    pads[s->reverse ? a : r + a] = -k;  // and as many leave at the other end
    return e.pad(v, pads, 1.0);
  };
  Value y = s->x;
  if (len > 0) {
    if (s->exclusive)
      y = shift(y, 1);
    for (int64_t k = 1; k < len; k *= 2)
      y = e.op<MulOp>({y, shift(y, k)});
  }
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

/// AffineGrid: theta [N, d, d+1] times the constant homogeneous grid of `size`.
LogicalResult affineGrid(NodeImporter &n, Results &out) {
  auto theta = n.requiredInput(0);
  auto size = n.constantInts(1);
  auto align = n.intAttr("align_corners", 0);
  DLC_TRY(theta);
  DLC_TRY(size);
  DLC_TRY(align);
  auto tt = tensorType(*theta);
  int64_t sp = (int64_t)size->size() - 2;
  auto fits = [&](int64_t d, int64_t want) {
    return ShapedType::isDynamic(tt.getDimSize(d)) || tt.getDimSize(d) == want;
  };
  if ((sp != 2 && sp != 3) || tt.getRank() != 3 || !fits(1, sp) || !fits(2, sp + 1))
    return n.error("expects theta [N, 2, 3] with a 4-D size or [N, 3, 4] with a 5-D size");
  // Dynamic dims (dlc compile --dims): theta's matrix dims follow from the size (checked
  // when the model runs), the batch stays symbolic.
  std::optional<SymbolicSize> batch;
  if (!tt.hasStaticShape()) {
    auto ts = n.sizesOf(*theta);
    if (!ts)
      return n.error("the sizes of theta's dynamic dims are not known");
    batch = (*ts)[0];
    theta = n.expandTo(*theta, {*batch, SymbolicSize::constant(sp), SymbolicSize::constant(sp + 1)});
    DLC_TRY(theta);
    tt = tensorType(*theta);
  }
  SmallVector<int64_t> dims(size->begin() + 2, size->end()); // (H, W) or (D, H, W)
  if (llvm::any_of(dims, [](int64_t d) { return d < 0; }))
    return n.error("size must be non-negative, got a negative spatial size");
  auto count = n.product(dims, "the grid size");
  DLC_TRY(count);
  if (failed(n.checkShape({sp + 1, *count}, n.b.getF64Type(), "the base grid")))
    return failure();
  auto coord = [&](int64_t i, int64_t len) {
    if (*align)
      return len == 1 ? -1.0 : -1.0 + 2.0 * i / (len - 1);
    return -1.0 + 1.0 / len + 2.0 * i / len;
  };
  // Rows: x (fastest dim), y, (z), 1.
  SmallVector<double> grid((sp + 1) * *count);
  for (int64_t p = 0; p < *count; ++p) {
    int64_t rem = p;
    SmallVector<int64_t> idx(sp);
    for (int64_t d = sp - 1; d >= 0; --d) {
      idx[d] = rem % dims[d];
      rem /= dims[d];
    }
    for (int64_t c = 0; c < sp; ++c) // c = 0 is x, the last dim
      grid[c * *count + p] = coord(idx[sp - 1 - c], dims[sp - 1 - c]);
    grid[sp * *count + p] = 1.0;
  }
  Type elt = tt.getElementType();
  Value base = n.constant(DenseElementsAttr::get(RankedTensorType::get({sp + 1, *count}, n.b.getF64Type()),
                                                 ArrayRef<double>(grid)));
  Expr e{n, elt};
  Value g = e.op<MatMulOp>({*theta, e.cast(base, elt)}); // [N, sp, count]
  SmallVector<int64_t> shape = {tt.getDimSize(0)};
  llvm::append_range(shape, dims);
  shape.push_back(sp);
  Value gt = e.transpose(g, {0, 2, 1});
  if (e.failed)
    return failure();
  if (batch) {
    SmallVector<SymbolicSize> sizes = {*batch};
    for (int64_t d : ArrayRef(shape).drop_front())
      sizes.push_back(SymbolicSize::constant(d));
    auto y = n.reshapeTo(gt, sizes);
    DLC_TRY(y);
    out.push_back(*y);
    return success();
  }
  Value y = e.reshape(gt, shape);
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

/// MaxUnpool over dynamic dims (--dims): the static lowering with sizes of the symbols.
LogicalResult maxUnpoolDynamic(NodeImporter &n, Value x, Value idx, ArrayRef<int64_t> kernel,
                               ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                               Results &out) {
  using Size = SymbolicSize;
  auto xs = n.sizesOf(x);
  if (!xs)
    return n.error("the sizes of the input's dynamic dims are not known");
  int64_t r = xs->size(), sp = r - 2;
  SmallVector<Size> inferred(*xs);
  for (int64_t i = 0; i < sp; ++i) {
    auto d = sizeAdd(Size::constant(kernel[i] - strides[i] - pads[i] - pads[sp + i]),
                     (*xs)[2 + i], strides[i]);
    if (!d)
      return n.error("output dim " + Twine(i) + " overflows int64");
    inferred[2 + i] = *d;
  }
  Type elt = tensorType(x).getElementType();
  Size total = sizeProduct(inferred), count = sizeProduct(*xs);
  auto zeros = n.expandTo(n.scalarConstant(elt, 0.0), {total});
  auto flatIdx = n.reshapeTo(idx, {count, Size::constant(1)});
  auto flat = n.reshapeTo(x, {count});
  DLC_TRY(zeros);
  DLC_TRY(flatIdx);
  DLC_TRY(flat);
  auto y = n.create<ScatterNDOp>({*zeros, *flatIdx, *flat},
                                 {n.named("axis", n.b.getI64IntegerAttr(0)),
                                  n.named("reduction", n.b.getStringAttr("none"))},
                                 {tensorType(*zeros)});
  auto shaped = succeeded(y) ? n.reshapeTo(*y, inferred) : y;
  DLC_TRY(shaped);
  Value v = *shaped;
  if (n.input(2)) { // output_shape (constant, or from shapes): zeros at the end up to it
    auto os = n.symbolicInts(2);
    if (!os) {
      auto known = n.constantInts(2);
      DLC_TRY(known);
      os.emplace();
      for (int64_t d : *known)
        os->push_back(Size::constant(d));
    }
    if ((int64_t)os->size() != r ||
        llvm::any_of(*os, [](const Size &d) { return d.isStatic() && d.coef < 0; }))
      return n.error("output_shape must have the input's rank and be non-negative");
    SmallVector<Size> p(2 * r, Size::constant(0));
    for (int64_t d = 0; d < r; ++d)
      p[r + d] = *sizeAdd((*os)[d], inferred[d], -1);
    SmallVector<Value> padded;
    if (failed(symbolicPad(n, v, p, 0.0, padded)))
      return failure();
    v = padded[0];
  }
  out.push_back(v);
  return success();
}

/// MaxUnpool: zeros of the output shape with x scattered to the (flat) indices.
LogicalResult maxUnpool(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0), idx = n.requiredInput(1);
  auto kernel = n.intsAttr("kernel_shape");
  DLC_TRY(x);
  DLC_TRY(idx);
  DLC_TRY(kernel);
  auto xt = tensorType(*x);
  int64_t sp = xt.getRank() - 2;
  if (sp < 1 || (int64_t)kernel->size() != sp)
    return n.error("kernel_shape must have one entry per spatial dim");
  auto strides = n.intsAttr("strides", SmallVector<int64_t>(sp, 1));
  auto pads = n.intsAttr("pads", SmallVector<int64_t>(2 * sp, 0));
  DLC_TRY(strides);
  DLC_TRY(pads);
  // Scattered into the inferred shape, then placed at the origin of output_shape
  // (as ONNX's reference does).
  SmallVector<int64_t> inferred(xt.getShape()), outShape;
  if ((int64_t)strides->size() != sp || (int64_t)pads->size() != 2 * sp)
    return n.error("expected " + Twine(sp) + " strides and " + Twine(2 * sp) + " pads");
  if (!xt.hasStaticShape())
    return maxUnpoolDynamic(n, *x, *idx, *kernel, *strides, *pads, out);
  for (int64_t i = 0; i < sp; ++i) {
    I64c d = (I64c(xt.getDimSize(2 + i)) - 1) * (*strides)[i] + (*kernel)[i] - (*pads)[i] -
             (*pads)[sp + i];
    if (!d.ok() || d.value() < 0)
      return n.error("output dim " + Twine(i) + " is out of range (strides, kernel_shape and "
                     "pads overflow int64 or crop below zero)");
    inferred[2 + i] = d.value();
  }
  outShape = inferred;
  if (n.input(2)) {
    auto os = n.constantInts(2);
    DLC_TRY(os);
    outShape.assign(os->begin(), os->end());
  }
  if ((int64_t)outShape.size() != xt.getRank())
    return n.error("output_shape must have the input's rank");
  if (llvm::any_of(outShape, [](int64_t d) { return d < 0; }))
    return n.error("output_shape must be non-negative");
  Type elt = xt.getElementType();
  if (failed(n.checkShape(inferred, elt)))
    return failure();
  int64_t total = 1;
  for (int64_t d : inferred)
    total *= d;
  Expr e{n, elt};
  Value zeros = n.constant(DenseElementsAttr::get(RankedTensorType::get({total}, elt),
                                                  n.b.getZeroAttr(elt)));
  Value flatIdx = e.reshape(*idx, {xt.getNumElements(), 1});
  Value y = e.op<ScatterNDOp>({zeros, flatIdx, e.reshape(*x, {xt.getNumElements()})},
                              {n.named("axis", n.b.getI64IntegerAttr(0)),
                               n.named("reduction", n.b.getStringAttr("none"))},
                              {RankedTensorType::get({total}, elt)});
  y = e.reshape(y, inferred);
  if (outShape != inferred) {
    SmallVector<int64_t> p(2 * xt.getRank(), 0);
    for (int64_t d = 0; d < xt.getRank(); ++d)
      p[xt.getRank() + d] = outShape[d] - inferred[d];
    y = e.pad(y, p);
  }
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

/// TopK by ranking: rank[i] = #{j : x_j beats x_i, or ties it with j < i}; the element
/// of rank r is output r (values through GatherElements, so infinities stay exact).
/// O(N^2) per row: meant for the short axes TopK usually sees.
/// CenterCropPad: per axis, a centered crop or a centered zero pad (the odd element
/// at the end) -- one Pad with negative (cropping) or positive amounts.
LogicalResult centerCropPad(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto shape = n.constantInts(1);
  auto axesAttr = n.intsAttr("axes", {});
  DLC_TRY(x);
  DLC_TRY(shape);
  DLC_TRY(axesAttr);
  auto t = tensorType(*x);
  int64_t r = t.getRank();
  SmallVector<int64_t> axes;
  for (int64_t a : *axesAttr) {
    auto na = n.dimAxis(a, r); // its dim is padded: a scalar has none
    DLC_TRY(na);
    axes.push_back(*na);
  }
  if (axes.empty())
    for (int64_t d = 0; d < r; ++d)
      axes.push_back(d);
  if (shape->size() != axes.size())
    return n.error("shape has " + Twine(shape->size()) + " values for " + Twine(axes.size()) +
                   " axes");
  if (llvm::any_of(*shape, [](int64_t w) { return w < 0; }))
    return n.error("shape values must be non-negative");
  if (!t.hasStaticShape()) {
    // Dynamic dims (dlc compile --dims): crop by max(dim - want, 0), then pad by
    // max(want - dim, 0), each split in half (the odd element at the end).
    auto sizes = n.sizesOf(*x);
    if (!sizes)
      return n.error("the sizes of the input's dynamic dims are not known here");
    SymbolicSize zero = SymbolicSize::constant(0);
    auto atLeastZero = [&](const SymbolicSize &v) {
      auto b = v.isStatic() ? std::optional<std::pair<int64_t, int64_t>>({v.coef, v.coef})
                            : sizeBounds(n.dynamicFunc, v);
      return b && b->first >= 0 ? v : b && b->second <= 0 ? zero : sizeMax(v, zero);
    };
    SmallVector<SymbolicSize> crop(2 * r, zero), grow(2 * r, zero);
    for (auto [a, want] : llvm::zip(axes, *shape)) {
      std::optional<SymbolicSize> over = sizeAdd((*sizes)[a], SymbolicSize::constant(want), -1);
      std::optional<SymbolicSize> under = sizeAdd(SymbolicSize::constant(want), (*sizes)[a], -1);
      if (!over || !under)
        return n.error("the padded size of dim " + Twine(a) + " overflows int64");
      SymbolicSize c = atLeastZero(*over), p = atLeastZero(*under);
      SymbolicSize cLo = sizeFloorDiv(c, 2), pLo = sizeFloorDiv(p, 2);
      crop[a] = *sizeAdd(zero, cLo, -1);
      crop[r + a] = *sizeAdd(cLo, c, -1);
      grow[a] = pLo;
      grow[r + a] = *sizeAdd(p, pLo, -1);
    }
    SmallVector<Value> cropped;
    if (failed(symbolicPad(n, *x, crop, 0, cropped)))
      return failure();
    return symbolicPad(n, cropped[0], grow, 0, out);
  }
  SmallVector<int64_t> pads(2 * r, 0);
  for (auto [a, want] : llvm::zip(axes, *shape)) {
    int64_t d = want - t.getDimSize(a); // > 0 pads, < 0 crops
    int64_t m = std::abs(d), lo = m / 2, hi = m - lo;
    pads[a] = d < 0 ? -lo : lo;
    pads[r + a] = d < 0 ? -hi : hi;
  }
  Expr e{n, t.getElementType()};
  Value y = e.pad(*x, pads);
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

/// ReverseSequence: along time_axis, each batch entry's first sequence_lens[b]
/// elements reversed -- a GatherElements with a constant index map.
/// ReverseSequence over dynamic dims (dlc compile --dims): the index map from the lengths
/// when the model runs, t < len ? len - 1 - t : t (len clamped to [0, T]).
LogicalResult reverseSequenceDynamic(NodeImporter &n, Value x, int64_t batchAxis,
                                     int64_t timeAxis, Results &out) {
  auto sizes = n.sizesOf(x);
  Value lens0 = n.input(1);
  if (!sizes || !lens0 || tensorType(lens0).getRank() != 1)
    return n.error("expects sequence_lens [batch] and an input whose dims' sizes are known");
  Type i64 = n.b.getI64Type();
  Expr e{n, i64};
  SymbolicSize T = (*sizes)[timeAxis], one = SymbolicSize::constant(1);
  auto iota = n.iota(T);
  auto len = n.expandTo(e.cast(lens0, i64, n.isUnsigned(1)), {(*sizes)[batchAxis]});
  auto tLen = n.dimSize(x, timeAxis);
  DLC_TRY(iota); DLC_TRY(len); DLC_TRY(tLen);
  // [B, T] or [T, B] maps of the time index and the (clamped) length.
  SmallVector<SymbolicSize> tShape(2, one), bShape(2, one);
  tShape[timeAxis] = T;
  bShape[batchAxis] = (*sizes)[batchAxis];
  auto tt = n.reshapeTo(*iota, tShape);
  auto ll = n.reshapeTo(e.op<MinOp>({e.op<MaxOp>({*len, e.c(0)}), *tLen}), bShape);
  DLC_TRY(tt); DLC_TRY(ll);
  Value map = e.where(e.op<LessOp>({*tt, *ll}), e.op<SubOp>({e.op<SubOp>({*ll, e.c(1)}), *tt}), *tt);
  if (e.failed)
    return failure();
  SmallVector<SymbolicSize> mapSizes(*sizes);
  auto full = n.reshapeTo(map, [&] {
    SmallVector<SymbolicSize> s(sizes->size(), one);
    s[timeAxis] = T;
    s[batchAxis] = (*sizes)[batchAxis];
    return s;
  }());
  DLC_TRY(full);
  auto expanded = n.expandTo(*full, mapSizes);
  DLC_TRY(expanded);
  auto y = n.create<GatherElementsOp>({x, *expanded},
                                      {n.named("axis", n.b.getI64IntegerAttr(timeAxis))});
  DLC_TRY(y);
  out.push_back(*y);
  return success();
}

LogicalResult reverseSequence(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  if (!tensorType(*x).hasStaticShape()) {
    auto batchAxis = n.intAttr("batch_axis", 1), timeAxis = n.intAttr("time_axis", 0);
    DLC_TRY(batchAxis);
    DLC_TRY(timeAxis);
    if (tensorType(*x).getRank() < 2 || (*batchAxis != 0 && *batchAxis != 1) ||
        (*timeAxis != 0 && *timeAxis != 1) || *batchAxis == *timeAxis)
      return n.error("batch_axis and time_axis must be 0 and 1 (either order)");
    return reverseSequenceDynamic(n, *x, *batchAxis, *timeAxis, out);
  }
  auto lens = n.constantInts(1);
  auto batchAxis = n.intAttr("batch_axis", 1), timeAxis = n.intAttr("time_axis", 0);
  DLC_TRY(x);
  DLC_TRY(lens);
  DLC_TRY(batchAxis);
  DLC_TRY(timeAxis);
  auto t = tensorType(*x);
  int64_t r = t.getRank();
  if (r < 2 || (*batchAxis != 0 && *batchAxis != 1) || (*timeAxis != 0 && *timeAxis != 1) ||
      *batchAxis == *timeAxis)
    return n.error("batch_axis and time_axis must be 0 and 1 (either order)");
  int64_t B = t.getDimSize(*batchAxis), T = t.getDimSize(*timeAxis);
  if ((int64_t)lens->size() != B)
    return n.error("sequence_lens has " + Twine(lens->size()) + " values for batch " + Twine(B));
  SmallVector<int64_t> idx;
  SmallVector<int64_t> mapShape(r, 1);
  mapShape[*batchAxis] = B;
  mapShape[*timeAxis] = T;
  if (failed(n.checkShape(mapShape, n.b.getI64Type(), "the index map")))
    return failure();
  for (int64_t i = 0; i < mapShape[0]; ++i)
    for (int64_t j = 0; j < mapShape[1]; ++j) {
      int64_t b = *batchAxis == 0 ? i : j, tt = *batchAxis == 0 ? j : i;
      int64_t len = std::clamp<int64_t>((*lens)[b], 0, T);
      idx.push_back(tt < len ? len - 1 - tt : tt);
    }
  Type i64 = n.b.getI64Type();
  Value map = n.constant(DenseElementsAttr::get(RankedTensorType::get(mapShape, i64), ArrayRef<int64_t>(idx)));
  Expr e{n, i64};
  if (mapShape != SmallVector<int64_t>(t.getShape()))
    map = e.op<ExpandOp>({map}, {}, {RankedTensorType::get(t.getShape(), i64)});
  Value y = e.op<GatherElementsOp>({*x, map}, {n.named("axis", n.b.getI64IntegerAttr(*timeAxis))});
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

/// Compress with a condition known when compiling: a Gather of the selected indices
/// (the output shape depends on the condition's values).
LogicalResult compress(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  auto c = n.requiredInput(1);
  DLC_TRY(c);
  if (!tensorType(*c).getElementType().isInteger(1))
    return n.error("condition must be a bool tensor");
  auto t = tensorType(*x);
  Expr e{n, t.getElementType()};
  Value data = *x;
  int64_t axis = 0;
  if (n.hasAttr("axis")) {
    auto a = n.intAttr("axis", 0);
    DLC_TRY(a);
    auto na = n.dimAxis(*a, t.getRank()); // its dim is read
    DLC_TRY(na);
    axis = *na;
  } else if (t.hasStaticShape()) {
    data = e.reshape(*x, {t.getNumElements()});
  }
  if (e.failed)
    return failure();
  // A condition known only when the model runs (or data with dynamic dims): the output's
  // size is computed then.
  DenseElementsAttr cond = n.knownInput(1);
  if (!cond || !t.hasStaticShape())
    return compressWithRuntimeCondition(n, data, *c, n.hasAttr("axis") ? axis : -1, out);
  int64_t len = tensorType(data).getDimSize(axis);
  SmallVector<int64_t> idx;
  int64_t i = 0;
  for (const APInt &v : cond.getValues<APInt>()) {
    if (i >= len)
      break;
    if (!v.isZero())
      idx.push_back(i);
    ++i;
  }
  Value indices = e.ints({(int64_t)idx.size()}, idx);
  Value y = e.op<GatherOp>({data, indices}, {n.named("axis", n.b.getI64IntegerAttr(axis))});
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

/// Col2Im: sums sliding-block columns [N, C*K, L] back into an image [N, C, spatial...]:
/// a ScatterND with add of every (kernel offset, block) column into its pixel (out-of-image
/// positions go to a trailing discard slot).
LogicalResult col2im(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto image = n.constantInts(1), block = n.constantInts(2);
  DLC_TRY(x);
  DLC_TRY(image);
  DLC_TRY(block);
  int64_t sp = image->size();
  auto dil = n.intsAttr("dilations", SmallVector<int64_t>(sp, 1));
  auto pads = n.intsAttr("pads", SmallVector<int64_t>(2 * sp, 0));
  auto strides = n.intsAttr("strides", SmallVector<int64_t>(sp, 1));
  DLC_TRY(dil);
  DLC_TRY(pads);
  DLC_TRY(strides);
  auto t = tensorType(*x);
  if (sp < 1 || (int64_t)block->size() != sp || (int64_t)dil->size() != sp ||
      (int64_t)pads->size() != 2 * sp || (int64_t)strides->size() != sp || t.getRank() != 3)
    return n.error("expects input [N, C*K, L] and matching image_shape, block_shape, "
                   "dilations, pads and strides");
  int64_t K = 1, L = 1, HW = 1;
  SmallVector<int64_t> blocks(sp);
  for (int64_t d = 0; d < sp; ++d) {
    if ((*block)[d] < 1 || (*strides)[d] < 1 || (*dil)[d] < 1 || (*image)[d] < 1)
      return n.error("sizes, strides and dilations must be positive");
    if ((*pads)[d] < 0 || (*pads)[sp + d] < 0)
      return n.error("pads must be non-negative");
    I64c k = I64c(K) * (*block)[d], hw = I64c(HW) * (*image)[d];
    I64c room = I64c((*image)[d]) + (*pads)[d] + (*pads)[sp + d] -
                I64c((*dil)[d]) * ((*block)[d] - 1) - 1;
    I64c nb = room / (*strides)[d] + 1, l = nb * L;
    if (!k.ok() || !hw.ok() || !l.ok())
      return n.error("image_shape, block_shape, pads or dilations overflow int64 in dim " +
                     Twine(d));
    if (room.value() < 0)
      return n.error("no complete block fits the padded image");
    K = k.value(), HW = hw.value(), blocks[d] = nb.value(), L = l.value();
  }
  using Size = SymbolicSize;
  auto xs = n.sizesOf(*x);
  if (!xs)
    return n.error("the sizes of the input's dynamic dims are not known");
  // Over dynamic dims (--dims): the channels follow from C*K, L must be the blocks'
  // count (both checked when the model runs).
  Size Ns = (*xs)[0], Cs = sizeFloorDiv((*xs)[1], K);
  if (!t.hasStaticShape()) {
    auto fixed = n.expandTo(*x, {Ns, Cs * Size::constant(K), Size::constant(L)});
    DLC_TRY(fixed);
    x = fixed;
  } else {
    int64_t N = t.getDimSize(0);
    if (t.getDimSize(1) % K || t.getDimSize(2) != L)
      return n.error("input shape does not match the block and image shapes");
    int64_t rows = HW == INT64_MAX ? HW : HW + 1;
    auto cols = n.product({N, t.getDimSize(1) / K}, "batch x channels");
    DLC_TRY(cols);
    // The sums (a zero batch leaves K * L unbounded).
    if (failed(n.checkShape({rows, *cols}, t.getElementType())))
      return failure();
  }
  // The target index map.
  if (failed(n.checkShape({K, L}, n.b.getI64Type(), "the block index map")))
    return failure();
  SmallVector<int64_t> target;
  for (int64_t k = 0; k < K; ++k)
    for (int64_t l = 0; l < L; ++l) {
      int64_t kr = k, lr = l, flat = 0;
      bool inside = true;
      SmallVector<int64_t> kc(sp), lc(sp);
      for (int64_t d = sp - 1; d >= 0; --d) {
        kc[d] = kr % (*block)[d];
        kr /= (*block)[d];
        lc[d] = lr % blocks[d];
        lr /= blocks[d];
      }
      for (int64_t d = 0; d < sp && inside; ++d) { // pads >= 0: pos is in range
        int64_t pos = lc[d] * (*strides)[d] - (*pads)[d] + kc[d] * (*dil)[d];
        inside = pos >= 0 && pos < (*image)[d];
        flat = flat * (*image)[d] + pos;
      }
      target.push_back(inside ? flat : HW);
    }
  Type elt = t.getElementType();
  Expr e{n, elt};
  Size NC = Ns * Cs, KL = Size::constant(K * L), zero = Size::constant(0);
  auto blocks3 = n.reshapeTo(*x, {Ns, Cs, KL});
  DLC_TRY(blocks3);
  auto upd = n.reshapeTo(e.transpose(*blocks3, {2, 0, 1}), {KL, NC});
  auto zeros = n.expandTo(e.c(0.0), {Size::constant(HW + 1), NC});
  DLC_TRY(upd);
  DLC_TRY(zeros);
  Value idx = e.ints({K * L, 1}, target);
  Value sum = e.op<ScatterNDOp>({*zeros, idx, *upd},
                                {n.named("axis", n.b.getI64IntegerAttr(0)),
                                 n.named("reduction", n.b.getStringAttr("add"))},
                                {tensorType(*zeros)});
  auto img = sliceTo(n, sum, {zero, zero}, {Size::constant(HW), NC});
  DLC_TRY(img);
  SmallVector<Size> shape = {Ns, Cs};
  for (int64_t d : *image)
    shape.push_back(Size::constant(d));
  auto y = n.reshapeTo(e.transpose(*img, {1, 0}), shape);
  DLC_TRY(y);
  if (e.failed)
    return failure();
  out.push_back(*y);
  return success();
}

const OpBuilderEntry kLayout[] = {
    {"Col2Im", 18, col2im},
    {"Compress", 9, compress},
    {"CenterCropPad", 18, centerCropPad},
    {"ReverseSequence", 10, reverseSequence},
    {"AffineGrid", 20, affineGrid},
    {"MaxUnpool", 9, maxUnpool},
    {"CumProd", 26, cumProd},
    {"Trilu", 14, trilu},
    {"CumSum", 11, cumSum},
};

} // namespace

ArrayRef<OpBuilderEntry> layoutBuilders() { return kLayout; }

} // namespace dlc::onnx_frontend
