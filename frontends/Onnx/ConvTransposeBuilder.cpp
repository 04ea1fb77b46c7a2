// ONNX ConvTranspose (1-D, 2-D, 3-D) and CausalConvWithState -> dlc_graph conv.
// ConvTranspose: the input with (stride - 1) zeros inserted between elements, padded by
// (k - 1) * dilation - pad (negative pads crop), convolved at stride 1 with the spatially
// flipped weight whose in/out channels are swapped per group.
#include "frontends/Onnx/Conv3d.h"
#include "frontends/Onnx/Expr.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {

LogicalResult deformConv(NodeImporter &n, SmallVectorImpl<Value> &out); // DeformConvBuilder.cpp

namespace {

using Results = SmallVectorImpl<Value>;

/// ConvTranspose's window: strides, dilations, output_padding, pads ([begins, ends]), the
/// output_shape attribute (spatial, or empty), auto_pad when SAME_* (else empty) and
/// kernel_shape (or empty).
struct TransposedWindow {
  SmallVector<int64_t> strides, dil, outPad, pads, outShape;
  StringRef same;
  SmallVector<int64_t> kernel;
};

/// The weights [Cin, Cout/g, k...] with dynamic dims, as the static conv weight
/// [g * COg, CIg, K...] of the zero-inserted input: each group's channels and each kernel
/// dim extended with zeros to its greatest size (CIg, COg, K), swapped and flipped in space
/// (a kernel's zero taps come first, so the outputs start where they did).
FailureOr<Value> transposedWeights(NodeImporter &n, Value w, ArrayRef<SymbolicSize> dims,
                                   ArrayRef<int64_t> bounds) {
  auto wg = n.reshapeTo(w, dims); // [g, cin/g, cout/g, k...], checked when the model runs
  DLC_TRY(wg);
  Value v = *wg;
  for (size_t a = 1; a < dims.size(); ++a) {
    auto padded = padAxisTo(n, v, a, dims[a], bounds[a]);
    DLC_TRY(padded);
    v = *padded;
  }
  int64_t nd = dims.size() - 3, g = bounds[0];
  SmallVector<int64_t> perm = {0, 2, 1}, shape = {g * bounds[2], bounds[1]},
                       start = {0, 0}, step = {1, 1};
  for (int64_t i = 0; i < nd; ++i) {
    perm.push_back(3 + i);
    shape.push_back(bounds[3 + i]);
    start.push_back(bounds[3 + i] - 1);
    step.push_back(-1);
  }
  Expr e{n, tensorType(w).getElementType()};
  Value r = e.slice(e.reshape(e.transpose(v, perm), shape), start, shape, step);
  if (e.failed)
    return failure();
  return r;
}

/// ConvTranspose (1-D, 2-D) over dynamic dims (dlc compile --dims): the static lowering
/// with sizes of the symbols. Channels and kernel dims of dynamic size take their greatest
/// size (zeros in the weights and input channels, the output cut back to its sizes).
LogicalResult convTransposeDynamic(NodeImporter &n, Value x, Value w, int64_t g,
                                   const TransposedWindow &win, Results &out) {
  using Size = SymbolicSize;
  auto xs = n.sizesOf(x), ws = n.sizesOf(w);
  int64_t r = tensorType(x).getRank(), sp = r - 2;
  if (!xs || !ws || sp > 2 || g < 1)
    return n.error(sp > 2 ? "3-D ConvTranspose over dynamic dims (--dims) is not supported"
                          : "the sizes of the inputs' dynamic dims are not known");
  Size N = (*xs)[0], cin = (*xs)[1], coutG = (*ws)[1], zero = Size::constant(0);
  Size cinG = sizeFloorDiv(cin, g);
  // The weights as [g, cin/g, cout/g, k...] and each dim's greatest size.
  SmallVector<Size> dims = {Size::constant(g), cinG, coutG};
  SmallVector<int64_t> bounds = {g};
  for (int64_t i = 0; i < sp; ++i)
    dims.push_back(win.kernel.empty() ? (*ws)[2 + i] : Size::constant(win.kernel[i]));
  const char *what[] = {"", "the input channels per group", "the output channels per group",
                        "a kernel dim of dynamic size"};
  for (size_t a = 1; a < dims.size(); ++a) {
    auto most = unrollSteps(n, dims[a], a > 2 ? 64 : 4096, what[std::min<size_t>(a, 3)]);
    DLC_TRY(most);
    bounds.push_back(*most);
  }
  auto wt = transposedWeights(n, w, dims, bounds);
  DLC_TRY(wt);
  if (sp == 1) { // [g * COg, CIg, K] -> [g * COg, CIg, 1, K]
    auto lifted = n.reshapeTo(*wt, {Size::constant(g * bounds[2]), Size::constant(bounds[1]),
                                    Size::constant(1), Size::constant(bounds[3])});
    DLC_TRY(lifted);
    wt = lifted;
  }
  // The input with each group's channels extended to CIg, lifted to 2-D.
  SmallVector<Size> spatial(xs->begin() + 2, xs->end());
  SmallVector<Size> grouped = {N, Size::constant(g), cinG};
  grouped.append(spatial);
  auto xg = n.reshapeTo(x, grouped);
  DLC_TRY(xg);
  auto xp = padAxisTo(n, *xg, 2, cinG, bounds[1]);
  DLC_TRY(xp);
  SmallVector<int64_t> strides(win.strides), dil(win.dil), kb(bounds.begin() + 3, bounds.end());
  SmallVector<Size> kernel(dims.begin() + 3, dims.end());
  if (sp == 1) {
    spatial.insert(spatial.begin(), Size::constant(1));
    kernel.insert(kernel.begin(), Size::constant(1));
    kb.insert(kb.begin(), 1);
    strides.insert(strides.begin(), 1);
    dil.insert(dil.begin(), 1);
  }
  Size C = Size::constant(g * bounds[1]);
  // Zero insertion: [N, C, D0, 1, D1, 1] padded to [N, C, D0, s0, D1, s1], then merged.
  SmallVector<Size> split = {N, C}, merged = {N, C};
  SmallVector<Size> zp(12, zero);
  for (int64_t i = 0; i < 2; ++i) {
    split.append({spatial[i], Size::constant(1)});
    merged.push_back(spatial[i] * Size::constant(strides[i]));
    zp[6 + 3 + 2 * i] = Size::constant(strides[i] - 1);
  }
  auto up = n.reshapeTo(*xp, split);
  DLC_TRY(up);
  SmallVector<Value> ups;
  if (failed(symbolicPad(n, *up, zp, 0.0, ups)))
    return failure();
  auto upm = n.reshapeTo(ups[0], merged);
  DLC_TRY(upm);
  // Per spatial dim: the output's begin within the full result and its size; the input
  // padded so the stride-1 conv with the K-tap kernel starts there.
  SmallVector<Size> cp(8, zero), outSize(2, Size::constant(1));
  for (int64_t i = 0; i < sp; ++i) {
    int64_t a = i + (sp == 1), s = strides[a], d = dil[a], K = kb[a];
    Size in = spatial[a], k = kernel[a];
    auto full = sizeAdd(Size::constant(win.outPad[i] + 1 - s - d), in, s);
    full = full ? sizeAdd(*full, k, d) : full;
    std::optional<Size> begin, size;
    if (!win.same.empty()) {
      Size target = win.outShape.empty() ? in * Size::constant(s)
                                         : Size::constant(win.outShape[i]);
      auto total = full ? sizeAdd(*full, target, -1) : full;
      if (total) {
        Size half = sizeFloorDiv(*total, 2);
        begin = win.same == "SAME_UPPER" ? half : *sizeAdd(*total, half, -1);
      }
      size = target;
    } else {
      begin = Size::constant(win.pads[i]);
      size = win.outShape.empty() ? sizeAdd(*full, Size::constant(win.pads[i] + win.pads[sp + i]), -1)
                                  : Size::constant(win.outShape[i]);
    }
    if (!full || !begin || !size)
      return n.error("output dim " + Twine(i) + " overflows int64");
    outSize[a] = *size;
    // Conv length: the size plus the (K - k) * d outputs of the zero taps.
    auto convLen = sizeAdd(*sizeAdd(*size, Size::constant(K * d)), k, -d);
    auto padBegin = sizeAdd(Size::constant((K - 1) * d), *begin, -1);
    auto padEnd = convLen ? sizeAdd(*convLen, merged[2 + a], -1) : convLen;
    padEnd = padEnd ? sizeAdd(*padEnd, *begin) : padEnd;
    if (!padBegin || !padEnd)
      return n.error("output dim " + Twine(i) + " overflows int64");
    cp[2 + a] = *padBegin;
    cp[4 + 2 + a] = *padEnd;
  }
  SmallVector<Value> padded;
  if (failed(symbolicPad(n, *upm, cp, 0.0, padded)))
    return failure();
  auto y = n.create<ConvOp>({padded[0], *wt},
                            {n.named("strides", n.b.getDenseI64ArrayAttr({1, 1})),
                             n.named("pads", n.b.getDenseI64ArrayAttr({0, 0, 0, 0})),
                             n.named("dilations", n.b.getDenseI64ArrayAttr(dil)),
                             n.named("group", n.b.getI64IntegerAttr(g))});
  DLC_TRY(y);
  // Cut back to the output sizes and each group's true channels.
  SmallVector<Size> ySplit = {N, Size::constant(g), Size::constant(bounds[2])}, starts(5, zero);
  ySplit.append(outSize);
  auto ys = sliceTo(n, *y, {zero, zero, zero, zero},
                    {N, Size::constant(g * bounds[2]), outSize[0], outSize[1]});
  auto yg = succeeded(ys) ? n.reshapeTo(*ys, ySplit) : ys;
  DLC_TRY(yg);
  ySplit[2] = coutG;
  auto cut = sliceTo(n, *yg, starts, ySplit);
  DLC_TRY(cut);
  Size cout = coutG * Size::constant(g);
  SmallVector<Size> result = {N, cout};
  if (sp == 2)
    result.push_back(outSize[0]);
  result.push_back(outSize[1]);
  auto res = n.reshapeTo(*cut, result);
  DLC_TRY(res);
  Value v = *res;
  if (Value bias = n.input(2)) {
    SmallVector<Size> bshape(r - 1, Size::constant(1));
    bshape[0] = cout;
    auto b = n.reshapeTo(bias, bshape); // [cout], checked when the model runs
    auto sum = succeeded(b) ? n.create<AddOp>({v, *b}) : b;
    DLC_TRY(sum);
    v = *sum;
  }
  out.push_back(v);
  return success();
}

LogicalResult convTranspose(NodeImporter &n, Results &out) {
  auto x0 = n.requiredInput(0), w0 = n.requiredInput(1);
  DLC_TRY(x0);
  DLC_TRY(w0);
  auto xt = tensorType(*x0), wt = tensorType(*w0);
  int64_t sp = xt.getRank() - 2;
  if (sp < 1 || sp > 3)
    return n.error("only 1-D, 2-D and 3-D ConvTranspose are supported (input rank " +
                   Twine(xt.getRank()) + ", expected 3, 4 or 5)");
  if (wt.getRank() != xt.getRank())
    return n.error("weight rank " + Twine(wt.getRank()) + " differs from input rank " +
                   Twine(xt.getRank()));
  auto group = n.intAttr("group", 1);
  auto strides = n.intsAttr("strides", SmallVector<int64_t>(sp, 1));
  auto dil = n.intsAttr("dilations", SmallVector<int64_t>(sp, 1));
  auto outPad = n.intsAttr("output_padding", SmallVector<int64_t>(sp, 0));
  auto autoPad = n.stringAttr("auto_pad", "NOTSET");
  auto kernelAttr = n.intsAttr("kernel_shape", wt.getShape().drop_front(2));
  DLC_TRY(group);
  DLC_TRY(strides);
  DLC_TRY(dil);
  DLC_TRY(outPad);
  DLC_TRY(autoPad);
  DLC_TRY(kernelAttr);
  if ((int64_t)strides->size() != sp || (int64_t)dil->size() != sp ||
      (int64_t)outPad->size() != sp)
    return n.error("expected " + Twine(sp) + " strides, dilations and output_padding values");
  bool same = *autoPad == "SAME_UPPER" || *autoPad == "SAME_LOWER";
  if (!same && *autoPad != "NOTSET" && *autoPad != "VALID")
    return n.error("unsupported auto_pad '" + *autoPad + "'");
  // Per spatial dim: the full transposed size, the begin pad and the output size.
  SmallVector<int64_t> full(sp), padBegin(sp), outSize(sp);
  SmallVector<int64_t> pads(2 * sp, 0), outShapeAttr;
  if (n.hasAttr("pads") && *autoPad == "NOTSET") {
    auto p = n.intsAttr("pads");
    DLC_TRY(p);
    if ((int64_t)p->size() != 2 * sp)
      return n.error("expected " + Twine(2 * sp) + " pads");
    pads = *p;
  }
  if (n.hasAttr("output_shape")) {
    auto os = n.intsAttr("output_shape");
    DLC_TRY(os);
    outShapeAttr = *os;
    if ((int64_t)outShapeAttr.size() == sp + 2)
      outShapeAttr.erase(outShapeAttr.begin(), outShapeAttr.begin() + 2);
    if ((int64_t)outShapeAttr.size() != sp)
      return n.error("output_shape must have " + Twine(sp) + " values");
  }
  if (!xt.hasStaticShape() || !wt.hasStaticShape()) {
    if (n.hasAttr("kernel_shape") && (int64_t)kernelAttr->size() != sp)
      return n.error("kernel_shape must have " + Twine(sp) + " values");
    TransposedWindow win{*strides, *dil, *outPad, pads, outShapeAttr,
                         same ? StringRef(*autoPad) : StringRef(),
                         n.hasAttr("kernel_shape") ? *kernelAttr : SmallVector<int64_t>()};
    return convTransposeDynamic(n, *x0, *w0, *group, win, out);
  }
  SmallVector<int64_t> k(wt.getShape().drop_front(2));
  if (ArrayRef<int64_t>(*kernelAttr) != ArrayRef<int64_t>(k))
    return n.error("kernel_shape does not match the weight shape");
  if (llvm::any_of(k, [](int64_t d) { return d < 1; })) // the flip and the 3-D taps need one
    return n.error("the weight's kernel dims must be >= 1");
  int64_t g = *group, cin = xt.getDimSize(1);
  if (g < 1 || cin % g || wt.getDimSize(0) != cin)
    return n.error("weight has " + Twine(wt.getDimSize(0)) + " input channels, expected " +
                   Twine(cin) + " in " + Twine(g) + " groups");
  auto coutC = n.product({wt.getDimSize(1), g}, "output channels x group");
  DLC_TRY(coutC);
  int64_t cout = *coutC;
  for (int64_t i = 0; i < sp; ++i) {
    int64_t in = xt.getDimSize(2 + i), s = (*strides)[i], d = (*dil)[i];
    if (s < 1 || d < 1)
      return n.error("invalid strides, dilations, pads or output shape");
    // Every size the lowering below computes, checked here once.
    I64c reach = (I64c(k[i]) - 1) * d, upLen = I64c(in) * s;
    I64c fullC = I64c(s) * (in - 1) + (*outPad)[i] + reach + 1;
    I64c target = same && outShapeAttr.empty() ? upLen : I64c(0);
    if (!fullC.ok() || !upLen.ok() || !target.ok())
      return n.error("output dim " + Twine(i) + " overflows int64 (input " + Twine(in) +
                     ", stride " + Twine(s) + ", kernel " + Twine(k[i]) + ", dilation " +
                     Twine(d) + ")");
    full[i] = fullC.value();
    I64c begin(0), size(0);
    if (same) {
      if (!outShapeAttr.empty())
        target = outShapeAttr[i];
      I64c total = I64c(full[i]) - target;
      begin = *autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      size = target;
    } else {
      begin = pads[i];
      size = outShapeAttr.empty() ? I64c(full[i]) - pads[i] - pads[sp + i] : outShapeAttr[i];
    }
    I64c cpBegin = reach - begin, cpEnd = size + reach - upLen - cpBegin;
    if (!cpEnd.ok())
      return n.error("output dim " + Twine(i) + " overflows int64 (pads or output_shape too "
                     "large)");
    padBegin[i] = begin.value();
    outSize[i] = size.value();
    if (outSize[i] < 1)
      return n.error("invalid strides, dilations, pads or output shape");
  }
  // Work in 2-D or 3-D: lift 1-D to [N, C, 1, L].
  Expr e{n, xt.getElementType()};
  Value x = *x0, w = *w0;
  if (sp == 1) {
    x = e.reshape(x, {xt.getDimSize(0), cin, 1, xt.getDimSize(2)});
    w = e.reshape(w, {cin, wt.getDimSize(1), 1, k[0]});
    k.insert(k.begin(), 1);
    strides->insert(strides->begin(), 1);
    dil->insert(dil->begin(), 1);
    padBegin.insert(padBegin.begin(), 0);
    outSize.insert(outSize.begin(), 1);
  }
  int64_t nd = k.size(), rank = nd + 2, N = xt.getDimSize(0);
  if (e.failed)
    return failure();
  SmallVector<int64_t> in(tensorType(x).getShape().drop_front(2));
  // Zero insertion: [N, C, D0, 1, D1, 1, ...] padded to [N, C, D0, s0, D1, s1, ...], viewed
  // as [N, C, D0*s0, D1*s1, ...].
  Value up = x;
  if (llvm::any_of(*strides, [](int64_t s) { return s > 1; })) {
    SmallVector<int64_t> split = {N, cin}, merged = {N, cin};
    SmallVector<int64_t> zp(2 * (2 + 2 * nd), 0);
    for (int64_t i = 0; i < nd; ++i) {
      split.append({in[i], 1});
      merged.push_back(in[i] * (*strides)[i]);
      zp[(2 + 2 * nd) + 3 + 2 * i] = (*strides)[i] - 1;
    }
    up = e.reshape(e.pad(e.reshape(x, split), zp), merged);
  }
  // Pads of the zero-inserted input so the stride-1 conv yields exactly outSize.
  SmallVector<int64_t> cp(2 * rank, 0);
  for (int64_t i = 0; i < nd; ++i) {
    int64_t reach = (k[i] - 1) * (*dil)[i];
    int64_t begin = reach - padBegin[i];
    int64_t upLen = in[i] * (*strides)[i]; // includes s - 1 trailing zeros
    cp[2 + i] = begin;
    cp[rank + 2 + i] = outSize[i] + reach - upLen - begin;
  }
  Value padded = e.pad(up, cp);
  // Weight [Cin, Cout/g, k...] -> [Cout, Cin/g, k...], flipped in space.
  SmallVector<int64_t> grouped = {g, cin / g, cout / g}, perm = {0, 2, 1};
  SmallVector<int64_t> wShape = {cout, cin / g}, flipStart = {0, 0}, flipStep = {1, 1};
  for (int64_t i = 0; i < nd; ++i) {
    grouped.push_back(k[i]);
    perm.push_back(3 + i);
    wShape.push_back(k[i]);
    flipStart.push_back(k[i] - 1);
    flipStep.push_back(-1);
  }
  Value wg = e.reshape(e.transpose(e.reshape(w, grouped), perm), wShape);
  wg = e.slice(wg, flipStart, wShape, flipStep);
  if (e.failed)
    return failure();
  Value bias = n.input(2);
  FailureOr<Value> y;
  if (nd == 3) {
    y = conv3dAs2d(n, padded, wg, bias, {1, 1, 1}, SmallVector<int64_t>(6, 0), *dil, g);
  } else {
    SmallVector<Value> ops = {padded, wg};
    if (bias)
      ops.push_back(bias);
    y = n.create<ConvOp>(ops, {n.named("strides", n.b.getDenseI64ArrayAttr({1, 1})),
                               n.named("pads", n.b.getDenseI64ArrayAttr({0, 0, 0, 0})),
                               n.named("dilations", n.b.getDenseI64ArrayAttr(*dil)),
                               n.named("group", n.b.getI64IntegerAttr(g))});
  }
  DLC_TRY(y);
  Value r = *y;
  if (sp == 1)
    r = e.reshape(r, {N, cout, outSize[1]});
  if (e.failed)
    return failure();
  out.push_back(r);
  return success();
}

/// CausalConvWithState over dynamic dims (dlc compile --dims): the depthwise conv as a sum
/// of its taps, w[:, 0, j] * padded[:, :, j : j + L], unrolled up to the kernel's greatest
/// size (the weights and the padded input extended with zeros to it).
LogicalResult causalConvDynamic(NodeImporter &n, Value x, Value w, bool silu, Results &out) {
  using Size = SymbolicSize;
  auto xs = n.sizesOf(x), ws = n.sizesOf(w);
  if (!xs || !ws)
    return n.error("the sizes of the inputs' dynamic dims are not known");
  Size B = (*xs)[0], C = (*xs)[1], L = (*xs)[2], K = (*ws)[2], one = Size::constant(1),
       zero = Size::constant(0);
  auto bound = unrollSteps(n, K, 1024, "the kernel size");
  DLC_TRY(bound);
  int64_t kmax = *bound;
  Type elt = tensorType(x).getElementType();
  Expr e{n, elt};
  auto wk = n.expandTo(w, {C, one, K}); // [C, 1, k], checked when the model runs
  DLC_TRY(wk);
  Size state = *sizeAdd(K, one, -1);
  FailureOr<Value> past = n.input(3) ? n.expandTo(n.input(3), {B, C, state})
                                     : n.expandTo(n.scalarConstant(elt, 0.0), {B, C, state});
  DLC_TRY(past);
  auto padded = n.create<ConcatOp>({*past, x}, {n.named("axis", n.b.getI64IntegerAttr(2))});
  DLC_TRY(padded);
  // Zeros up to kmax taps: the weights along k, the padded input at its end.
  SmallVector<Value> wz, xz;
  Size extra = *sizeAdd(Size::constant(kmax), K, -1);
  if (failed(symbolicPad(n, *wk, {zero, zero, zero, zero, zero, extra}, 0.0, wz)) ||
      failed(symbolicPad(n, *padded, {zero, zero, zero, zero, zero, extra}, 0.0, xz)))
    return failure();
  // 16-bit inputs accumulate in f32, as the conv kernels do.
  Type acc = elt.getIntOrFloatBitWidth() < 32 ? Type(n.b.getF32Type()) : elt;
  FailureOr<Value> y = failure();
  for (int64_t j = 0; j < kmax; ++j) {
    auto tap = sliceTo(n, wz[0], {zero, zero, Size::constant(j)}, {C, one, one});
    auto col = succeeded(tap) ? n.reshapeTo(*tap, {C, one}) : tap;
    auto part = sliceTo(n, xz[0], {zero, zero, Size::constant(j)}, {B, C, L});
    DLC_TRY(col);
    DLC_TRY(part);
    auto term = n.create<MulOp>({e.cast(*part, acc), e.cast(*col, acc)});
    DLC_TRY(term);
    y = j ? n.create<AddOp>({*y, *term}) : term;
    DLC_TRY(y);
  }
  if (Value bias = n.input(2)) {
    auto b = n.reshapeTo(bias, {C, one});
    DLC_TRY(b);
    y = n.create<AddOp>({*y, e.cast(*b, acc)});
    DLC_TRY(y);
  }
  Value r = e.cast(*y, elt);
  if (silu) {
    Type f32 = n.b.getF32Type();
    Value yf = e.cast(r, f32);
    r = e.cast(e.op<MulOp>({yf, e.op<SigmoidOp>({yf})}), elt);
  }
  auto next = sliceTo(n, *padded, {zero, zero, L}, {B, C, state});
  DLC_TRY(next);
  if (e.failed)
    return failure();
  out.append({r, *next});
  return success();
}

/// CausalConvWithState: a depthwise 1-D conv over [past_state (or zeros), input],
/// optionally followed by SiLU (computed in f32); the last k-1 steps are the new state.
LogicalResult causalConvWithState(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0), w = n.requiredInput(1);
  auto act = n.stringAttr("activation", "none");
  DLC_TRY(x);
  DLC_TRY(w);
  DLC_TRY(act);
  auto xt = tensorType(*x), wt = tensorType(*w);
  if (*act != "none" && *act != "silu" && *act != "swish")
    return n.error("activation must be none, silu or swish, got '" + *act + "'");
  bool dynamic = false;
  for (unsigned i = 0; i < n.numInputs(); ++i)
    if (Value v = n.input(i))
      dynamic |= !tensorType(v).hasStaticShape();
  if (dynamic && xt.getRank() == 3 && wt.getRank() == 3)
    return causalConvDynamic(n, *x, *w, *act != "none", out);
  if (xt.getRank() != 3 || wt.getRank() != 3 || wt.getDimSize(0) != xt.getDimSize(1) ||
      wt.getDimSize(1) != 1 || wt.getDimSize(2) < 1)
    return n.error("expects input [B, C, L] and weight [C, 1, k] with k >= 1");
  int64_t B = xt.getDimSize(0), C = xt.getDimSize(1), L = xt.getDimSize(2), k = wt.getDimSize(2);
  Type elt = xt.getElementType();
  Expr e{n, elt};
  Value past = n.input(3);
  if (!past)
    past = n.constant(DenseElementsAttr::get(RankedTensorType::get({B, C, k - 1}, elt),
                                             n.b.getZeroAttr(elt)));
  Value padded = k > 1 ? e.op<ConcatOp>({past, *x}, {n.named("axis", n.b.getI64IntegerAttr(2))}) : *x;
  SmallVector<Value> ops = {e.reshape(padded, {B, C, 1, L + k - 1}), e.reshape(*w, {C, 1, 1, k})};
  if (Value bias = n.input(2))
    ops.push_back(bias);
  if (e.failed)
    return failure();
  auto conv = n.create<ConvOp>(ops, {n.named("strides", n.b.getDenseI64ArrayAttr({1, 1})),
                                     n.named("pads", n.b.getDenseI64ArrayAttr({0, 0, 0, 0})),
                                     n.named("dilations", n.b.getDenseI64ArrayAttr({1, 1})),
                                     n.named("group", n.b.getI64IntegerAttr(C))});
  DLC_TRY(conv);
  Value y = e.reshape(*conv, {B, C, L});
  if (*act != "none") {
    Type f32 = n.b.getF32Type();
    Value yf = e.cast(y, f32);
    y = e.cast(e.op<MulOp>({yf, e.op<SigmoidOp>({yf})}), elt);
  }
  Value state = k > 1 ? e.slice(padded, {0, 0, L}, {B, C, k - 1}, {1, 1, 1})
                      : past;
  if (e.failed)
    return failure();
  out.append({y, state});
  return success();
}

const OpBuilderEntry kConvTranspose[] = {
    {"ConvTranspose", 1, convTranspose},
    {"DeformConv", 19, deformConv},
    {"CausalConvWithState", 27, causalConvWithState},
};

} // namespace

ArrayRef<OpBuilderEntry> convTransposeBuilders() { return kConvTranspose; }

} // namespace dlc::onnx_frontend
