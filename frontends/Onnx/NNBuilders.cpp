// ONNX contraction, convolution, pooling, normalization, softmax and reduction ops -> dlc_graph.
#include "frontends/Onnx/Conv3d.h"
#include "frontends/Onnx/Expr.h"

#include <cmath>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

using Results = SmallVectorImpl<Value>;

LogicalResult matmul(NodeImporter &n, Results &out) {
  auto a = n.requiredInput(0), b = n.requiredInput(1);
  DLC_TRY(a);
  DLC_TRY(b);
  // 1-D operands: promote to matrices, then drop the added dim (ONNX/NumPy).
  auto at = tensorType(*a), bt = tensorType(*b);
  if (at.getRank() == 0 || bt.getRank() == 0)
    return n.error("MatMul operands must have rank >= 1");
  Value lhs = *a, rhs = *b;
  if (at.getRank() == 1) {
    auto r = n.reshape(lhs, {1, at.getDimSize(0)});
    DLC_TRY(r);
    lhs = *r;
  }
  if (bt.getRank() == 1) {
    auto r = n.reshape(rhs, {bt.getDimSize(0), 1});
    DLC_TRY(r);
    rhs = *r;
  }
  // fp16/bf16 products are summed in f32 and rounded once (as NumPy and ONNX Runtime).
  Type elt = at.getElementType();
  bool widen = isa<FloatType>(elt) && elt.getIntOrFloatBitWidth() < 32 &&
               elt == bt.getElementType();
  auto toType = [&](Value v, Type t) -> FailureOr<Value> {
    return n.create<CastOp>({v}, {}, {RankedTensorType::get(tensorType(v).getShape(), t)});
  };
  if (widen) {
    auto l = toType(lhs, n.b.getF32Type()), r = toType(rhs, n.b.getF32Type());
    DLC_TRY(l);
    DLC_TRY(r);
    lhs = *l, rhs = *r;
  }
  auto y = n.create<MatMulOp>({lhs, rhs});
  DLC_TRY(y);
  if (widen) {
    y = toType(*y, elt);
    DLC_TRY(y);
  }
  SmallVector<int64_t> shape(tensorType(*y).getShape());
  if (bt.getRank() == 1)
    shape.erase(shape.end() - 1);
  if (at.getRank() == 1)
    shape.erase(shape.end() - (bt.getRank() == 1 ? 1 : 2));
  auto r = n.reshape(*y, shape);
  DLC_TRY(r);
  out.push_back(*r);
  return success();
}

LogicalResult gemm(NodeImporter &n, Results &out) {
  auto a = n.requiredInput(0), b = n.requiredInput(1);
  auto alpha = n.floatAttr("alpha", 1.0f), beta = n.floatAttr("beta", 1.0f);
  auto ta = n.intAttr("transA", 0), tb = n.intAttr("transB", 0);
  DLC_TRY(a); DLC_TRY(b); DLC_TRY(alpha); DLC_TRY(beta); DLC_TRY(ta); DLC_TRY(tb);
  SmallVector<Value> operands = {*a, *b};
  if (Value c = n.input(2))
    operands.push_back(c);
  auto r = n.create<GemmOp>(operands, {n.named("alpha", n.b.getF32FloatAttr(*alpha)),
                                       n.named("beta", n.b.getF32FloatAttr(*beta)),
                                       n.named("transA", n.b.getBoolAttr(*ta)),
                                       n.named("transB", n.b.getBoolAttr(*tb))});
  DLC_TRY(r);
  out.push_back(*r);
  return success();
}

/// Sliding-window attributes (conv and pooling); 1-D windows are lifted to 2-D.
struct Window {
  SmallVector<int64_t> kernel, strides, pads, dilations;
  bool ceilMode = false;
  /// auto_pad SAME with a stride over a dynamic image dim (--dims): its pads depend on
  /// the size, so padLateSame pads the input there (the window's pads are 0).
  SmallVector<bool> lateSame;
  bool sameUpper = false;
  bool anyLateSame() const { return llvm::is_contained(lateSame, true); }
};

/// Reads kernel/strides/pads/dilations/auto_pad for `spatial` (1, 2 or 3) dims of
/// `inShape` and lifts 1-D to 2-D by inserting a leading unit dim.
FailureOr<Window> readWindow(NodeImporter &n, ArrayRef<int64_t> inShape,
                             ArrayRef<int64_t> kernel) {
  int64_t sp = kernel.size();
  auto strides = n.intsAttr("strides", SmallVector<int64_t>(sp, 1));
  auto dil = n.intsAttr("dilations", SmallVector<int64_t>(sp, 1));
  auto pads = n.intsAttr("pads", SmallVector<int64_t>(2 * sp, 0));
  auto autoPad = n.stringAttr("auto_pad", "NOTSET");
  auto ceil = n.intAttr("ceil_mode", 0);
  DLC_TRY(strides); DLC_TRY(dil); DLC_TRY(pads); DLC_TRY(autoPad); DLC_TRY(ceil);
  if ((int64_t)strides->size() != sp || (int64_t)dil->size() != sp ||
      (int64_t)pads->size() != 2 * sp)
    return n.error("expected " + Twine(sp) + " strides and dilations and " + Twine(2 * sp) +
                   " pads");
  for (int64_t i = 0; i < sp; ++i)
    if (kernel[i] < 1 || (*strides)[i] < 1 || (*dil)[i] < 1)
      return n.error("kernel sizes, strides and dilations must be positive");
  if (llvm::any_of(*pads, [](int64_t p) { return p < 0; }))
    return n.error("pads must be non-negative");
  // Every later window computation stays within the padded input and the kernel's span
  // (a dynamic image dim, dlc compile --dims, is checked when the model runs).
  bool isSame = *autoPad == "SAME_UPPER" || *autoPad == "SAME_LOWER";
  for (int64_t i = 0; i < sp; ++i) {
    bool dynamic = ShapedType::isDynamic(inShape[2 + i]);
    int64_t inSize = dynamic ? 1 : inShape[2 + i];
    I64c span = (I64c(kernel[i]) - 1) * (*dil)[i] + 1;
    I64c padded = I64c(inSize) + (*pads)[i] + (*pads)[sp + i];
    // auto_pad SAME: ((in + s - 1) / s - 1) * s + span
    I64c same = isSame ? ((I64c(inSize) + (*strides)[i] - 1) / (*strides)[i] - 1) *
                                 (*strides)[i] + span
                       : I64c(0);
    if (!span.ok() || !padded.ok() || !same.ok())
      return n.error("output dim " + Twine(i) + " overflows int64 (input " +
                     Twine(inSize) + ", pads " + Twine((*pads)[i]) + " and " +
                     Twine((*pads)[sp + i]) + ", kernel " + Twine(kernel[i]) + ", stride " +
                     Twine((*strides)[i]) + ", dilation " + Twine((*dil)[i]) + ")");
  }
  Window w;
  w.ceilMode = *ceil;
  w.sameUpper = *autoPad == "SAME_UPPER";
  w.lateSame.assign(sp, false);
  SmallVector<int64_t> p = *pads;
  if (isSame) {
    for (int64_t i = 0; i < sp; ++i) {
      int64_t in = inShape[2 + i], s = (*strides)[i], span = (kernel[i] - 1) * (*dil)[i] + 1;
      // Over a dynamic dim: stride 1 has as many outputs as inputs, a stride pads later.
      w.lateSame[i] = ShapedType::isDynamic(in) && s != 1;
      int64_t total = w.lateSame[i]             ? 0
                      : ShapedType::isDynamic(in) ? span - 1
                          : std::max<int64_t>(0, ((in + s - 1) / s - 1) * s + span - in);
      int64_t small = total / 2, big = total - small;
      p[i] = *autoPad == "SAME_UPPER" ? small : big;
      p[i + sp] = *autoPad == "SAME_UPPER" ? big : small;
    }
  } else if (*autoPad == "VALID") {
    std::fill(p.begin(), p.end(), 0);
  } else if (*autoPad != "NOTSET") {
    return n.error("unsupported auto_pad '" + *autoPad + "'");
  }
  if (sp == 1) {
    w.lateSame.insert(w.lateSame.begin(), false);
    w.kernel = {1, kernel[0]};
    w.strides = {1, (*strides)[0]};
    w.dilations = {1, (*dil)[0]};
    w.pads = {0, p[0], 0, p[1]};
  } else {
    w.kernel = SmallVector<int64_t>(kernel);
    w.strides = *strides;
    w.dilations = *dil;
    w.pads = p;
  }
  return w;
}

/// The sizes of `v`'s dims (symbolic where dynamic: dlc compile --dims).
FailureOr<SmallVector<SymbolicSize>> sizes(NodeImporter &n, Value v) {
  std::optional<SmallVector<SymbolicSize>> s = n.sizesOf(v);
  if (!s)
    return n.error("the sizes of the input's dynamic dims are not known here");
  return *s;
}

/// `x` [N, C, spatial...] (lifted to the window's rank) padded with `value` where
/// `w.lateSame`: ONNX's SAME total, max(0, (ceil(in / s) - 1) * s + span - in), split with
/// the odd element at the end for SAME_UPPER (at the start for SAME_LOWER).
FailureOr<Value> padLateSame(NodeImporter &n, Value x, const Window &w, double value) {
  if (!w.anyLateSame())
    return x;
  auto xs = sizes(n, x);
  DLC_TRY(xs);
  int64_t r = xs->size();
  if (r != (int64_t)w.lateSame.size() + 2)
    return n.error("auto_pad SAME with a stride over a dynamic dim is supported for 1-D and "
                   "2-D windows only");
  SmallVector<SymbolicSize> pads(2 * r, SymbolicSize::constant(0));
  for (int64_t i = 0; i + 2 < r; ++i) {
    if (!w.lateSame[i])
      continue;
    const SymbolicSize &in = (*xs)[2 + i];
    int64_t s = w.strides[i], span = (w.kernel[i] - 1) * w.dilations[i] + 1;
    auto out = sizeCeilDiv(in, s);
    auto total = out ? sizeAdd(*out * SymbolicSize::constant(s), SymbolicSize::constant(span - s))
                     : out;
    total = total ? sizeAdd(*total, in, -1) : total;
    if (!total)
      return n.error("the SAME pads of dim " + Twine(2 + i) + " overflow int64");
    if (span < s)
      total = sizeMax(SymbolicSize::constant(0), *total);
    SymbolicSize small = sizeFloorDiv(*total, 2), big = *sizeAdd(*total, small, -1);
    pads[2 + i] = w.sameUpper ? small : big;
    pads[r + 2 + i] = w.sameUpper ? big : small;
  }
  SmallVector<Value> padded;
  if (failed(symbolicPad(n, x, pads, value, padded)))
    return failure();
  return padded[0];
}

/// Views a 3-D [N, C, L] tensor as [N, C, 1, L] (identity for 4-D).
FailureOr<Value> to2d(NodeImporter &n, Value v) {
  if (tensorType(v).getRank() != 3)
    return v;
  auto s = sizes(n, v);
  DLC_TRY(s);
  return n.reshapeTo(v, {(*s)[0], (*s)[1], SymbolicSize::constant(1), (*s)[2]});
}

/// Undoes to2d on a result when the input was 3-D.
FailureOr<Value> from2d(NodeImporter &n, Value v, int64_t inRank) {
  if (inRank != 3)
    return v;
  auto s = sizes(n, v);
  DLC_TRY(s);
  return n.reshapeTo(v, {(*s)[0], (*s)[1], (*s)[3]});
}

LogicalResult checkSpatialRank(NodeImporter &n, RankedTensorType t) {
  if (t.getRank() < 3 || t.getRank() > 5)
    return n.error("only 1-D, 2-D and 3-D windows are supported (input rank " +
                   Twine(t.getRank()) + ", expected 3, 4 or 5)");
  return success();
}

} // namespace

LogicalResult convOf(NodeImporter &n, Value x0, Value w0, Value bias, Results &out) {
  FailureOr<Value> x = x0, w = w0;
  auto xt = tensorType(*x), wt = tensorType(*w);
  DLC_TRY(checkSpatialRank(n, xt));
  if (wt.getRank() != xt.getRank())
    return n.error("weight rank " + Twine(wt.getRank()) + " differs from input rank " +
                   Twine(xt.getRank()));
  auto kernel = n.intsAttr("kernel_shape", wt.getShape().drop_front(2));
  auto group = n.intAttr("group", 1);
  DLC_TRY(kernel); DLC_TRY(group);
  if (!wt.hasStaticShape()) {
    // Weights with dynamic dims (dlc compile --dims): their sizes follow from kernel_shape
    // and the input's channels, checked when the model runs. Without a static size the
    // input channels are group * W's dim 1, the output channels of a grouped conv the
    // group count, and a dynamic kernel dim is its greatest size: W padded with zero taps,
    // the input with as many zero steps at its end (the windows start where they did).
    auto ws = n.sizesOf(*w), xs = n.sizesOf(*x);
    if (!ws || !xs || *group < 1)
      return n.error("the sizes of the weights' dynamic dims are not known");
    SmallVector<SymbolicSize> target;
    int64_t c = xt.getDimSize(1), m = wt.getDimSize(0);
    if (ShapedType::isDynamic(c) && !ShapedType::isDynamic(wt.getDimSize(1))) {
      c = *group * wt.getDimSize(1);
      SmallVector<SymbolicSize> in(*xs);
      in[1] = SymbolicSize::constant(c);
      x = n.expandTo(*x, in);
      DLC_TRY(x);
      xt = tensorType(*x);
    }
    if (ShapedType::isDynamic(m) && *group > 1)
      m = *group;
    if (ShapedType::isDynamic(m) || ShapedType::isDynamic(c) || c % *group)
      return n.error("weights with dynamic dims (--dims) need static output channels and "
                     "static input channels");
    target.push_back(SymbolicSize::constant(m));
    target.push_back(SymbolicSize::constant(c / *group));
    if (n.hasAttr("kernel_shape")) {
      for (int64_t k : *kernel)
        target.push_back(SymbolicSize::constant(k));
      if (target.size() != size_t(wt.getRank()))
        return n.error("kernel_shape must have " + Twine(wt.getRank() - 2) + " entries");
      w = n.expandTo(*w, target);
      DLC_TRY(w);
    } else {
      auto autoPad = n.stringAttr("auto_pad", "NOTSET");
      auto dil = n.intsAttr("dilations", SmallVector<int64_t>(wt.getRank() - 2, 1));
      DLC_TRY(autoPad);
      DLC_TRY(dil);
      if (*autoPad != "NOTSET" && *autoPad != "VALID")
        return n.error("auto_pad " + *autoPad + " with a kernel of dynamic size (--dims) is "
                       "not supported (its pads depend on it)");
      if (dil->size() != size_t(wt.getRank() - 2))
        return n.error("expected " + Twine(wt.getRank() - 2) + " dilations");
      int64_t r = wt.getRank();
      SymbolicSize zero = SymbolicSize::constant(0);
      SmallVector<SymbolicSize> wPads(2 * r, zero), xPads(2 * r, zero);
      kernel->clear();
      for (int64_t d = 2; d < r; ++d) {
        SymbolicSize k = (*ws)[d];
        target.push_back(k);
        auto most = unrollSteps(n, k, 64, "a kernel dim of dynamic size");
        DLC_TRY(most);
        kernel->push_back(*most);
        SymbolicSize extra = *sizeAdd(SymbolicSize::constant(*most), k, -1);
        wPads[r + d] = extra;
        xPads[r + d] = *sizeAdd(zero, extra, (*dil)[d - 2]);
      }
      auto wk = n.expandTo(*w, target);
      DLC_TRY(wk);
      SmallVector<Value> wp, xp;
      if (failed(symbolicPad(n, *wk, wPads, 0.0, wp)) ||
          failed(symbolicPad(n, *x, xPads, 0.0, xp)))
        return failure();
      w = wp[0];
      x = xp[0];
      xt = tensorType(*x);
    }
    wt = tensorType(*w);
  }
  if (ArrayRef<int64_t>(*kernel) != wt.getShape().drop_front(2))
    return n.error("kernel_shape does not match the weight shape");
  // The conv checks weight channels * group against the input's: that product must fit.
  if (*group < 1 || !(I64c(wt.getDimSize(1)) * *group).ok())
    return n.error("group must be >= 1 and fit the weight's " + Twine(wt.getDimSize(1)) +
                   " input channels, got " + Twine(*group));
  auto win = readWindow(n, xt.getShape(), *kernel);
  DLC_TRY(win);
  if (bias && !tensorType(bias).hasStaticShape()) { // [M], checked when the model runs
    auto b = n.expandTo(bias, {SymbolicSize::constant(wt.getDimSize(0))});
    DLC_TRY(b);
    bias = *b;
  }
  if (xt.getRank() == 5) {
    if (win->anyLateSame())
      return n.error("auto_pad SAME with a stride over a dynamic image dim (--dims) is "
                     "supported for 1-D and 2-D convolutions only");
    auto y = conv3dAs2d(n, *x, *w, bias, win->strides, win->pads, win->dilations, *group);
    DLC_TRY(y);
    out.push_back(*y);
    return success();
  }
  auto x2 = to2d(n, *x), w2 = to2d(n, *w);
  DLC_TRY(x2); DLC_TRY(w2);
  x2 = padLateSame(n, *x2, *win, 0.0);
  DLC_TRY(x2);
  SmallVector<Value> operands = {*x2, *w2};
  if (bias)
    operands.push_back(bias);
  auto y = n.create<ConvOp>(operands, {n.named("strides", n.b.getDenseI64ArrayAttr(win->strides)),
                                       n.named("pads", n.b.getDenseI64ArrayAttr(win->pads)),
                                       n.named("dilations", n.b.getDenseI64ArrayAttr(win->dilations)),
                                       n.named("group", n.b.getI64IntegerAttr(*group))});
  DLC_TRY(y);
  auto r = from2d(n, *y, xt.getRank());
  DLC_TRY(r);
  out.push_back(*r);
  return success();
}

namespace {

LogicalResult conv(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0), w = n.requiredInput(1);
  DLC_TRY(x); DLC_TRY(w);
  return convOf(n, *x, *w, n.input(2), out);
}

/// One 2-D pooling of an NCHW tensor with window `w`.
FailureOr<Value> pool2d(NodeImporter &n, Value x, const Window &w, bool isMax, bool includePad) {
  SmallVector<NamedAttribute> attrs = {
      n.named("kernel", n.b.getDenseI64ArrayAttr(w.kernel)),
      n.named("strides", n.b.getDenseI64ArrayAttr(w.strides)),
      n.named("pads", n.b.getDenseI64ArrayAttr(w.pads)),
      n.named("dilations", n.b.getDenseI64ArrayAttr(w.dilations)),
      n.named("ceil_mode", n.b.getBoolAttr(w.ceilMode))};
  if (isMax)
    return n.create<MaxPoolOp>({x}, attrs);
  attrs.push_back(n.named("count_include_pad", n.b.getBoolAttr(includePad)));
  return n.create<AveragePoolOp>({x}, attrs);
}

/// 3-D pooling is separable (max of maxes; sums and valid counts factor per axis):
/// a 2-D pool over (H, W) with C*D channels, then a 1-D pool over D.
FailureOr<Value> pool3d(NodeImporter &n, Value x, const Window &w, bool isMax, bool includePad) {
  auto xs = sizes(n, x);
  DLC_TRY(xs);
  SymbolicSize N = (*xs)[0], C = (*xs)[1], D = (*xs)[2];
  Window hw{{w.kernel[1], w.kernel[2]}, {w.strides[1], w.strides[2]},
            {w.pads[1], w.pads[2], w.pads[4], w.pads[5]}, {w.dilations[1], w.dilations[2]},
            w.ceilMode};
  Window d{{1, w.kernel[0]}, {1, w.strides[0]}, {0, w.pads[0], 0, w.pads[3]},
           {1, w.dilations[0]}, w.ceilMode};
  auto a = n.reshapeTo(x, {N, C * D, (*xs)[3], (*xs)[4]});
  DLC_TRY(a);
  auto b = pool2d(n, *a, hw, isMax, includePad);
  DLC_TRY(b);
  auto bs = sizes(n, *b);
  DLC_TRY(bs);
  SymbolicSize H2 = (*bs)[2], W2 = (*bs)[3];
  int64_t unused;
  if (__builtin_mul_overflow(C.coef, H2.coef, &unused) ||
      __builtin_mul_overflow(C.coef * H2.coef, W2.coef, &unused))
    return n.error("the pooled channels x height x width overflow int64");
  auto c = n.reshapeTo(*b, {N, C, D, H2 * W2});
  DLC_TRY(c);
  auto perm = n.named("perm", n.b.getDenseI64ArrayAttr({0, 1, 3, 2}));
  auto ct = n.create<TransposeOp>({*c}, {perm});
  DLC_TRY(ct);
  auto c2 = n.reshapeTo(*ct, {N, C * H2 * W2, SymbolicSize::constant(1), D});
  DLC_TRY(c2);
  auto e = pool2d(n, *c2, d, isMax, includePad);
  DLC_TRY(e);
  auto es = sizes(n, *e);
  DLC_TRY(es);
  SymbolicSize D2 = (*es)[3];
  auto f = n.reshapeTo(*e, {N, C, H2 * W2, D2});
  DLC_TRY(f);
  auto ft = n.create<TransposeOp>({*f}, {perm});
  DLC_TRY(ft);
  return n.reshapeTo(*ft, {N, C, D2, H2, W2});
}

/// MaxPool's Indices output for an NCHW input `x` and its pooled `y`: the flat
/// index (row-major, or column-major over H and W with storage_order 1) of each
/// window's first maximum, found by a running strict `>` over the kernel taps in
/// row-major order, each tap a strided slice of the -inf-padded input.
FailureOr<Value> maxPoolIndices(NodeImporter &n, Value x, Value y, const Window &w,
                                bool columnMajor) {
  auto xt = tensorType(x), yt = tensorType(y);
  int64_t N = xt.getDimSize(0), C = xt.getDimSize(1), H = xt.getDimSize(2), W = xt.getDimSize(3);
  int64_t OH = yt.getDimSize(2), OW = yt.getDimSize(3);
  Type elt = xt.getElementType(), i64 = n.b.getI64Type();
  if (failed(n.checkShape({N, C}, i64, "the Indices base offsets")) ||
      failed(n.checkShape({OH, OW}, i64, "the Indices tap offsets")))
    return failure();
  Expr e{n, elt};
  // Pad so every tap's strided slice is in bounds (ceil_mode may reach past the pads).
  int64_t needH = (OH - 1) * w.strides[0] + (w.kernel[0] - 1) * w.dilations[0] + 1;
  int64_t needW = (OW - 1) * w.strides[1] + (w.kernel[1] - 1) * w.dilations[1] + 1;
  int64_t padB = std::max(w.pads[2], needH - H - w.pads[0]);
  int64_t padR = std::max(w.pads[3], needW - W - w.pads[1]);
  Value padded = e.pad(x, {0, 0, w.pads[0], w.pads[1], 0, 0, padB, padR}, -INFINITY);
  SmallVector<int64_t> base;
  for (int64_t i = 0; i < N * C; ++i)
    base.push_back(i * H * W);
  Value baseIdx = e.ints({N, C, 1, 1}, base);
  Value best = n.constant(DenseElementsAttr::get(RankedTensorType::get(yt.getShape(), elt),
                                                 n.b.getFloatAttr(elt, -INFINITY)));
  Value idx = n.constant(DenseElementsAttr::get(RankedTensorType::get(yt.getShape(), i64),
                                                (int64_t)0));
  for (int64_t kh = 0; kh < w.kernel[0]; ++kh) {
    for (int64_t kw = 0; kw < w.kernel[1]; ++kw) {
      int64_t h0 = kh * w.dilations[0], w0 = kw * w.dilations[1];
      Value v = e.slice(padded, {0, 0, h0, w0}, {N, C, OH, OW}, 
                                                              {1, 1, w.strides[0], w.strides[1]});
      SmallVector<int64_t> tap;
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          int64_t h = oh * w.strides[0] + h0 - w.pads[0], c = ow * w.strides[1] + w0 - w.pads[1];
          tap.push_back(columnMajor ? h + c * H : h * W + c);
        }
      Value tapIdx = e.ints({1, 1, OH, OW}, tap);
      Value gt = e.op<GreaterOp>({v, best});
      best = e.where(gt, v, best);
      idx = e.where(gt, e.op<AddOp>({baseIdx, tapIdx}), idx);
    }
  }
  if (e.failed)
    return failure();
  return idx;
}

/// maxPoolIndices over dynamic dims (--dims): the same taps, sizes of the symbols. Each
/// tap's strided window is a slice of OH * s rows viewed [OH, s] and its first column
/// taken; the input is padded at its end (-inf) so every slice is in bounds.
FailureOr<Value> maxPoolIndicesDynamic(NodeImporter &n, Value x, Value y, const Window &w,
                                       bool columnMajor) {
  using Size = SymbolicSize;
  auto xs = n.sizesOf(x), ys = n.sizesOf(y);
  if (!xs || !ys)
    return n.error("the sizes of the input's dynamic dims are not known");
  Size N = (*xs)[0], C = (*xs)[1], H = (*xs)[2], W = (*xs)[3], OH = (*ys)[2], OW = (*ys)[3];
  Size zero = Size::constant(0), one = Size::constant(1);
  Type elt = tensorType(x).getElementType(), i64 = n.b.getI64Type();
  Expr e{n, elt}, ei{n, i64};
  int64_t sh = w.strides[0], sw = w.strides[1];
  int64_t spanH = (w.kernel[0] - 1) * w.dilations[0] + 1, spanW = (w.kernel[1] - 1) * w.dilations[1] + 1;
  SmallVector<Size> pads = {zero, zero, Size::constant(w.pads[0]), Size::constant(w.pads[1]),
                            zero, zero, Size::constant(w.pads[2] + spanH + 2 * sh),
                            Size::constant(w.pads[3] + spanW + 2 * sw)};
  SmallVector<Value> padded;
  if (failed(symbolicPad(n, x, pads, -INFINITY, padded)))
    return failure();
  // Flat offsets: n * C * H * W + c * H * W, and each output's tap position.
  auto nc = n.iota(N * C), hw = n.sizeValue(H * W), oh = n.iota(OH), ow = n.iota(OW),
       hv = n.sizeValue(H), wv = n.sizeValue(W);
  DLC_TRY(nc);
  DLC_TRY(hw);
  DLC_TRY(oh);
  DLC_TRY(ow);
  DLC_TRY(hv);
  DLC_TRY(wv);
  auto base = n.reshapeTo(ei.op<MulOp>({*nc, *hw}), {N, C, one, one});
  auto rows = n.reshapeTo(ei.op<MulOp>({*oh, ei.c(double(sh))}), {OH, one});
  auto cols = n.reshapeTo(ei.op<MulOp>({*ow, ei.c(double(sw))}), {one, OW});
  DLC_TRY(base);
  DLC_TRY(rows);
  DLC_TRY(cols);
  Value best = e.c(-INFINITY), idx = ei.c(0.0);
  for (int64_t kh = 0; kh < w.kernel[0]; ++kh) {
    for (int64_t kw = 0; kw < w.kernel[1]; ++kw) {
      int64_t h0 = kh * w.dilations[0], w0 = kw * w.dilations[1];
      auto block = sliceTo(n, padded[0], {zero, zero, Size::constant(h0), Size::constant(w0)},
                           {N, C, OH * Size::constant(sh), OW * Size::constant(sw)});
      auto split = succeeded(block) ? n.reshapeTo(*block, {N, C, OH, Size::constant(sh), OW,
                                                           Size::constant(sw)})
                                    : block;
      auto first = succeeded(split) ? sliceTo(n, *split, {zero, zero, zero, zero, zero, zero},
                                              {N, C, OH, one, OW, one})
                                    : split;
      auto v = succeeded(first) ? n.reshapeTo(*first, {N, C, OH, OW}) : first;
      DLC_TRY(v);
      Value h = ei.op<AddOp>({*rows, ei.c(double(h0 - w.pads[0]))});
      Value c = ei.op<AddOp>({*cols, ei.c(double(w0 - w.pads[1]))});
      Value tap = columnMajor ? ei.op<AddOp>({h, ei.op<MulOp>({c, *hv})})
                              : ei.op<AddOp>({ei.op<MulOp>({h, *wv}), c});
      Value gt = e.op<GreaterOp>({*v, best});
      best = e.where(gt, *v, best);
      idx = ei.where(gt, ei.op<AddOp>({*base, tap}), idx);
    }
  }
  if (e.failed || ei.failed)
    return failure();
  return idx;
}

template <bool isMax> LogicalResult pool(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  auto xt = tensorType(*x);
  DLC_TRY(checkSpatialRank(n, xt));
  bool withIndices = isMax && n.numUsedOutputs() > 1;
  if (withIndices && xt.getRank() == 5)
    return n.error("the Indices output of 3-D MaxPool is not supported");
  auto storageOrder = n.intAttr("storage_order", 0);
  DLC_TRY(storageOrder);
  auto kernel = n.intsAttr("kernel_shape");
  auto include = n.intAttr("count_include_pad", 0);
  DLC_TRY(kernel);
  DLC_TRY(include);
  if ((int64_t)kernel->size() != xt.getRank() - 2)
    return n.error("kernel_shape must have " + Twine(xt.getRank() - 2) + " entries");
  auto win = readWindow(n, xt.getShape(), *kernel);
  DLC_TRY(win);
  if (win->anyLateSame() && (xt.getRank() == 5 || withIndices || !isa<FloatType>(xt.getElementType())))
    return n.error("auto_pad SAME with a stride over a dynamic image dim (--dims) is supported "
                   "for 1-D and 2-D float pools without Indices");
  if (xt.getRank() == 5) {
    auto r = pool3d(n, *x, *win, isMax, *include);
    DLC_TRY(r);
    out.push_back(*r);
    return success();
  }
  auto x2 = to2d(n, *x);
  DLC_TRY(x2);
  FailureOr<Value> y = failure();
  if (win->anyLateSame()) {
    // Pads of the input's size, made here: for an average that excludes them, the sum over
    // the window divided by the count of its elements inside (the same pool of ones).
    auto xp = padLateSame(n, *x2, *win, isMax ? -INFINITY : 0.0);
    DLC_TRY(xp);
    y = pool2d(n, *xp, *win, isMax, *include);
    if (succeeded(y) && !isMax && !*include) {
      auto ones = n.expandTo(n.scalarConstant(xt.getElementType(), 1.0), *sizes(n, *x2));
      auto mp = succeeded(ones) ? padLateSame(n, *ones, *win, 0.0) : ones;
      auto count = succeeded(mp) ? pool2d(n, *mp, *win, false, *include) : mp;
      y = succeeded(count) ? n.create<DivOp>({*y, *count}) : count;
    }
  } else {
    y = pool2d(n, *x2, *win, isMax, *include);
  }
  DLC_TRY(y);
  auto r = from2d(n, *y, xt.getRank());
  DLC_TRY(r);
  out.push_back(*r);
  if (withIndices) {
    auto idx = xt.hasStaticShape() ? maxPoolIndices(n, *x2, *y, *win, *storageOrder == 1)
                                   : maxPoolIndicesDynamic(n, *x2, *y, *win, *storageOrder == 1);
    DLC_TRY(idx);
    auto i = from2d(n, *idx, xt.getRank());
    DLC_TRY(i);
    out.push_back(*i);
  }
  return success();
}

/// LpPool: (sum over the window of |x|^p)^(1/p), the sum as an average that
/// counts the padding, times the window size.
LogicalResult lpPool(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto p = n.intAttr("p", 2);
  auto kernel = n.intsAttr("kernel_shape");
  DLC_TRY(x);
  DLC_TRY(p);
  DLC_TRY(kernel);
  auto xt = tensorType(*x);
  Type elt = xt.getElementType();
  if (!isa<FloatType>(elt) || *p < 1)
    return n.error("expects a floating-point input and p >= 1");
  if ((int64_t)kernel->size() != xt.getRank() - 2)
    return n.error("kernel_shape must have " + Twine(xt.getRank() - 2) + " entries");
  DLC_TRY(checkSpatialRank(n, xt));
  auto win = readWindow(n, xt.getShape(), *kernel);
  DLC_TRY(win);
  auto ax = n.create<AbsOp>({*x});
  DLC_TRY(ax);
  Value pw = *ax;
  if (*p != 1) {
    auto q = n.create<PowOp>({*ax, n.scalarConstant(elt, (double)*p)});
    DLC_TRY(q);
    pw = *q;
  }
  FailureOr<Value> avg;
  if (xt.getRank() == 5) {
    if (win->anyLateSame())
      return n.error("auto_pad SAME with a stride over a dynamic image dim (--dims) is "
                     "supported for 1-D and 2-D windows only");
    avg = pool3d(n, pw, *win, false, true);
  } else {
    auto x2 = to2d(n, pw);
    DLC_TRY(x2);
    x2 = padLateSame(n, *x2, *win, 0.0);
    DLC_TRY(x2);
    auto y = pool2d(n, *x2, *win, false, true);
    DLC_TRY(y);
    avg = from2d(n, *y, xt.getRank());
  }
  DLC_TRY(avg);
  double size = 1; // the window's volume (may not fit int64 with huge pads)
  for (int64_t k : *kernel)
    size *= (double)k;
  auto sum = n.create<MulOp>({*avg, n.scalarConstant(elt, size)});
  DLC_TRY(sum);
  auto r = *p == 1 ? FailureOr<Value>(*sum)
                   : n.create<PowOp>({*sum, n.scalarConstant(elt, 1.0 / (double)*p)});
  DLC_TRY(r);
  out.push_back(*r);
  return success();
}

/// LRN: x / (bias + alpha / size * sum of x^2 over a window of channels)^beta; the
/// channel sum is an average pool (counting the padding) times the window size.
LogicalResult lrn(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto size = n.intAttr("size", 0);
  auto alpha = n.floatAttr("alpha", 1e-4f), beta = n.floatAttr("beta", 0.75f),
       bias = n.floatAttr("bias", 1.0f);
  DLC_TRY(x);
  DLC_TRY(size);
  DLC_TRY(alpha);
  DLC_TRY(beta);
  DLC_TRY(bias);
  auto t = tensorType(*x);
  Type elt = t.getElementType();
  if (t.getRank() < 3 || !isa<FloatType>(elt) || *size < 1)
    return n.error("expects a floating-point [N, C, ...] input and size >= 1");
  int64_t N = t.getDimSize(0), C = t.getDimSize(1),
          rest = t.hasStaticShape() ? t.getNumElements() / std::max<int64_t>(1, N * C) : 0;
  auto sq = n.create<MulOp>({*x, *x});
  DLC_TRY(sq);
  // Dynamic dims (dlc compile --dims): the same view over symbolic sizes.
  auto sizes = n.sizesOf(*x);
  if (!sizes)
    return n.error("the sizes of the input's dynamic dims are not known");
  SymbolicSize restSize = sizeProduct(ArrayRef(*sizes).drop_front(2));
  auto one = SymbolicSize::constant(1);
  auto v = t.hasStaticShape() ? n.reshape(*sq, {N, 1, C, rest})
                              : n.reshapeTo(*sq, {(*sizes)[0], one, (*sizes)[1], restSize});
  DLC_TRY(v);
  int64_t lo = (*size - 1) / 2, hi = *size - 1 - lo;
  Window w{{*size, 1}, {1, 1}, {lo, 0, hi, 0}, {1, 1}, false};
  auto avg = pool2d(n, *v, w, false, true);
  DLC_TRY(avg);
  auto back = t.hasStaticShape() ? n.reshape(*avg, t.getShape()) : n.reshapeTo(*avg, *sizes);
  DLC_TRY(back);
  auto scaled = n.create<MulOp>({*back, n.scalarConstant(elt, *alpha)}); // (alpha/size) * sum
  DLC_TRY(scaled);
  auto base = n.create<AddOp>({*scaled, n.scalarConstant(elt, *bias)});
  DLC_TRY(base);
  auto den = n.create<PowOp>({*base, n.scalarConstant(elt, *beta)});
  DLC_TRY(den);
  auto y = n.create<DivOp>({*x, *den});
  DLC_TRY(y);
  out.push_back(*y);
  return success();
}

LogicalResult globalAveragePool(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  auto r = n.create<GlobalAveragePoolOp>({*x});
  DLC_TRY(r);
  out.push_back(*r);
  return success();
}

LogicalResult globalMaxPool(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  DLC_TRY(n.requireRank(0, 3, "input X [N, C, spatial...]")); // as GlobalAveragePool
  SmallVector<int64_t> axes;
  for (int64_t d = 2; d < tensorType(*x).getRank(); ++d)
    axes.push_back(d);
  return reduceOver(n, "dlc_graph.reduce_max", *x, axes, true, out);
}

template <typename SoftmaxOpTy> LogicalResult softmax(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto axis = n.intAttr("axis", n.opset >= 13 ? -1 : 1);
  DLC_TRY(x); DLC_TRY(axis);
  auto t = tensorType(*x);
  auto a = n.normalizeAxis(*axis, t.getRank());
  DLC_TRY(a);
  Value in = *x;
  int64_t softAxis = *a;
  if (n.opset < 13) {
    // Before opset 13 the input is viewed as a 2-D [prod(:axis), prod(axis:)] matrix.
    auto outer = n.product(t.getShape().take_front(*a), "the outer (flattened) dim");
    auto inner = n.product(t.getShape().drop_front(*a), "the inner (flattened) dim");
    DLC_TRY(outer);
    DLC_TRY(inner);
    auto r = n.reshape(in, {*outer, *inner});
    DLC_TRY(r);
    in = *r;
    softAxis = 1;
  }
  auto y = n.create<SoftmaxOpTy>({in}, {n.named("axis", n.b.getI64IntegerAttr(softAxis))});
  DLC_TRY(y);
  auto r = n.reshape(*y, t.getShape());
  DLC_TRY(r);
  out.push_back(*r);
  return success();
}

const OpBuilderEntry kNN[] = {
    {"MatMul", 1, matmul},
    {"Gemm", 7, gemm},
    {"Conv", 1, conv},
    {"MaxPool", 1, pool<true>},
    {"AveragePool", 1, pool<false>},
    {"LpPool", 2, lpPool},
    {"LRN", 1, lrn},
    {"GlobalAveragePool", 1, globalAveragePool},
    {"GlobalMaxPool", 1, globalMaxPool},
    {"Softmax", 1, softmax<SoftmaxOp>},
    {"LogSoftmax", 1, softmax<LogSoftmaxOp>},
};

} // namespace

ArrayRef<OpBuilderEntry> nnBuilders() { return kNN; }

} // namespace dlc::onnx_frontend
