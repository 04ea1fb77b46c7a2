// ONNX signal ops: DFT (forward, inverse, one-sided, irfft) as matmuls with constant cos/sin
// matrices, and the Hann/Hamming/Blackman windows as constants.
#include "frontends/Onnx/Expr.h"
#include "frontends/Onnx/RuntimeChecks.h"

#include <cmath>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

using Results = SmallVectorImpl<Value>;

/// A constant [rows, cols] of `elt` with f(r, c) computed in double.
template <typename Fn> Value matrix(NodeImporter &n, Type elt, int64_t rows, int64_t cols, Fn f) {
  SmallVector<APFloat> v;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      APFloat x(f(r, c));
      bool lost;
      x.convert(cast<FloatType>(elt).getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      v.push_back(x);
    }
  return n.constant(DenseElementsAttr::get(RankedTensorType::get({rows, cols}, elt), v));
}

/// x[:, :len] zero-padded or truncated to `len` columns (`have` now).
Value fitColumns(Expr &e, Value x, const SymbolicSize &have, const SymbolicSize &len) {
  if (e.failed || !x) // an earlier builder failed
    return Value();
  if (have == len)
    return x;
  SymbolicSize zero = SymbolicSize::constant(0);
  SmallVector<Value> out;
  if (failed(symbolicPad(e.n, x, {zero, zero, zero, *sizeAdd(len, have, -1)}, 0.0, out)))
    return e.fail();
  return out[0];
}

/// The DFT matrices of length L (a size of the symbols): constants for static sizes,
/// else computed when the model runs (the angles 2 pi r c / L in f64, as the constants).
struct Twiddles {
  NodeImporter &n;
  Expr &e;
  SymbolicSize L;
  /// cos or sin of 2 pi r c / L over [rows, cols], each row (or column) times weight(i)
  /// (static sizes) or `weights` ([rows, 1] or [1, cols] computed; null: 1).
  template <typename Fn>
  Value get(const SymbolicSize &rows, const SymbolicSize &cols, bool sine, Fn weight,
            Value weights) {
    if (e.failed)
      return Value();
    Type f64 = e.elt;
    if (L.isStatic() && rows.isStatic() && cols.isStatic()) {
      if (failed(n.checkShape({rows.coef, cols.coef}, f64, "the DFT matrix")))
        return e.fail();
      int64_t l = L.coef;
      return matrix(n, f64, rows.coef, cols.coef, [&](int64_t r, int64_t c) {
        double a = 2 * M_PI * r * c / l;
        return weight(r, c) * (sine ? std::sin(a) : std::cos(a));
      });
    }
    auto r = n.iota(rows), c = n.iota(cols), len = n.sizeValue(L);
    auto rc = succeeded(r) ? n.reshapeTo(*r, {rows, SymbolicSize::constant(1)}) : r;
    if (failed(rc) || failed(c) || failed(len))
      return e.fail();
    Value prod = e.op<MulOp>({*rc, *c});
    Value angle = e.op<DivOp>({e.op<MulOp>({e.c(2 * M_PI), e.cast(prod, f64)}),
                               e.cast(*len, f64)});
    Value v = sine ? e.op<SinOp>({angle}) : e.op<CosOp>({angle});
    return weights ? e.op<MulOp>({v, weights}) : v;
  }
};

/// The DFT of length L of the rows of v [M, inLen, c] (c = 1 real, 2 complex) as
/// matmuls with cos/sin matrices in v's (f64) type: [M, outLen, 1 or 2]. inverse+onesided
/// is the inverse real FFT (a real result). Sizes are those of the symbols (dynamic dims:
/// the matrices are computed when the model runs).
Value spectrum(Expr &e, Value v, ArrayRef<SymbolicSize> vs, const SymbolicSize &L, bool inverse,
               bool onesided, SymbolicSize &outLen) {
  if (e.failed || !v) // an earlier builder failed
    return Value();
  NodeImporter &n = e.n;
  Type f64 = tensorType(v).getElementType();
  SymbolicSize M = vs[0], inLen = vs[1], one = SymbolicSize::constant(1),
               zero = SymbolicSize::constant(0);
  int64_t c = tensorType(v).getDimSize(2);
  bool irfft = inverse && onesided;
  auto part = [&](int64_t i) -> Value {
    auto s = sliceTo(n, v, {zero, zero, SymbolicSize::constant(i)}, {M, inLen, one});
    auto r = succeeded(s) ? n.reshapeTo(*s, {M, inLen}) : s;
    return succeeded(r) ? *r : e.fail();
  };
  Value xr = part(0), xi = c == 2 ? part(1) : Value();
  // Half the spectrum: L/2 + 1 bins.
  SymbolicSize half = *sizeAdd(sizeFloorDiv(L, 2), one);
  Twiddles tw{n, e, L};
  auto lenValue = [&]() -> Value {
    auto l = n.sizeValue(L);
    return succeeded(l) ? e.cast(*l, f64) : e.fail();
  };
  Value yr, yi;
  if (irfft) {
    // Hermitian spectrum: k in [0, L/2], weight 2 except k = 0 and the Nyquist bin.
    outLen = L;
    int64_t l = L.isStatic() ? L.coef : 0;
    auto w = [&](int64_t k, int64_t) {
      return ((k == 0 || (l % 2 == 0 && k == l / 2)) ? 1.0 : 2.0) / l;
    };
    Value weights;
    if (!L.isStatic()) { // (2 - [k == 0] - [2k == L]) / L as [K, 1]
      auto k = n.iota(half);
      auto kc = succeeded(k) ? n.reshapeTo(*k, {half, one}) : k;
      auto len = n.sizeValue(L);
      if (failed(kc) || failed(len))
        return e.fail();
      Type i64 = n.b.getI64Type();
      Value ends = e.op<AddOp>({e.cast(e.op<EqualOp>({*kc, e.c(i64, 0)}), f64),
                                e.cast(e.op<EqualOp>({e.op<MulOp>({*kc, e.c(i64, 2)}), *len}), f64)});
      weights = e.op<DivOp>({e.op<SubOp>({e.c(2.0), ends}), lenValue()});
    }
    xr = fitColumns(e, xr, inLen, half);
    yr = e.op<MatMulOp>({xr, tw.get(half, L, false, w, weights)});
    if (xi)
      yr = e.op<SubOp>({yr, e.op<MatMulOp>({fitColumns(e, xi, inLen, half),
                                            tw.get(half, L, true, w, weights)})});
  } else {
    SymbolicSize K = onesided ? half : L;
    outLen = K;
    double sign = inverse ? 1.0 : -1.0;
    double scale = inverse && L.isStatic() ? 1.0 / L.coef : 1.0;
    auto wc = [&](int64_t, int64_t) { return scale; };
    auto ws = [&](int64_t, int64_t) { return sign * scale; };
    Value cw, sw; // computed factors: 1 / L for the inverse, and the sine's sign
    if (!L.isStatic()) {
      cw = inverse ? e.op<DivOp>({e.c(1.0), lenValue()}) : Value();
      sw = inverse ? cw : e.c(-1.0);
    }
    xr = fitColumns(e, xr, inLen, L);
    Value C = tw.get(L, K, false, wc, cw), S = tw.get(L, K, true, ws, sw);
    // (xr + i xi)(cos + i sign sin)
    yr = e.op<MatMulOp>({xr, C});
    yi = e.op<MatMulOp>({xr, S});
    if (xi) {
      xi = fitColumns(e, xi, inLen, L);
      yr = e.op<SubOp>({yr, e.op<MatMulOp>({xi, S})});
      yi = e.op<AddOp>({yi, e.op<MatMulOp>({xi, C})});
    }
  }
  if (e.failed)
    return Value();
  auto column = [&](Value y) -> Value {
    auto r = n.reshapeTo(y, {M, outLen, one});
    return succeeded(r) ? *r : e.fail();
  };
  return yi ? e.op<ConcatOp>({column(yr), column(yi)}, {n.named("axis", n.b.getI64IntegerAttr(2))})
            : column(yr);
}

LogicalResult dft(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto inverse = n.intAttr("inverse", 0), onesided = n.intAttr("onesided", 0);
  DLC_TRY(x);
  DLC_TRY(inverse);
  DLC_TRY(onesided);
  auto t = tensorType(*x);
  int64_t r = t.getRank();
  Type elt = t.getElementType();
  auto sizes = n.sizesOf(*x);
  if (!isa<FloatType>(elt) || r < 2 || !sizes)
    return n.error("expects a floating-point input [..., 1 or 2]");
  // The last dim: 1 (real) or 2 (complex); a dynamic one is read as complex, a real
  // input getting zero imaginary parts.
  auto cb = unrollSteps(n, sizes->back(), 2, "the last (real/imaginary) dim");
  DLC_TRY(cb);
  int64_t c = *cb;
  int64_t axis = n.opset >= 20 ? -2 : 1;
  if (n.opset >= 20 && n.input(2)) {
    auto a = n.constantInts(2);
    DLC_TRY(a);
    if (a->size() != 1)
      return n.error("axis must hold one value");
    axis = (*a)[0];
  } else if (n.opset < 20) {
    auto a = n.intAttr("axis", 1);
    DLC_TRY(a);
    axis = *a;
  }
  auto na = n.normalizeAxis(axis, r);
  DLC_TRY(na);
  axis = *na;
  if (axis == r - 1)
    return n.error("axis cannot be the last (real/imaginary) dim");
  using Size = SymbolicSize;
  Size inLen = (*sizes)[axis];
  bool irfft = *inverse && *onesided;
  Size L = irfft ? *sizeAdd(inLen * Size::constant(2), Size::constant(-2)) : inLen;
  if (n.input(1)) {
    auto l = n.constantInts(1);
    DLC_TRY(l);
    if (l->size() != 1)
      return n.error("dft_length must hold one value");
    L = Size::constant((*l)[0]);
  }
  if (L.isStatic() ? L.coef < 1 : failed(unrollSteps(n, L, int64_t(1) << 16, "the DFT length")))
    return n.error("dft_length must be positive");
  // Computed in f64 (as the reference does) and rounded once at the end.
  Type f64 = n.b.getF64Type();
  Expr e{n, f64};
  Value xf = e.cast(*x, f64);
  if (!sizes->back().isStatic()) {
    auto padded = padAxisTo(n, xf, r - 1, sizes->back(), c);
    DLC_TRY(padded);
    xf = *padded;
  }
  // Move the axis next to the last dim: [M, N, c].
  SmallVector<int64_t> perm, inv(r);
  SmallVector<Size> moved, rows;
  for (int64_t d = 0; d < r - 1; ++d)
    if (d != axis)
      perm.push_back(d);
  perm.append({axis, r - 1});
  for (int64_t d = 0; d < r; ++d)
    inv[perm[d]] = d;
  for (int64_t d : perm)
    moved.push_back((*sizes)[d]);
  moved.back() = Size::constant(c);
  rows.append(moved.begin(), moved.end() - 2);
  SmallVector<Size> vs = {sizeProduct(rows), inLen, Size::constant(c)};
  auto v = n.reshapeTo(e.transpose(xf, perm), vs);
  DLC_TRY(v);
  Size outLen = Size::constant(0);
  Value y = spectrum(e, *v, vs, L, *inverse, *onesided, outLen);
  if (e.failed) // y is null
    return failure();
  moved[r - 2] = outLen;
  moved[r - 1] = Size::constant(tensorType(y).getDimSize(2));
  auto shaped = n.reshapeTo(y, moved);
  DLC_TRY(shaped);
  y = e.cast(e.transpose(*shaped, inv), elt);
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

/// Generalized cosine windows: a0 - a1 cos(2 pi n / D) + a2 cos(4 pi n / D).
template <int kind> LogicalResult window(NodeImporter &n, Results &out) {
  auto size = n.constantInts(0);
  auto periodic = n.intAttr("periodic", 1), dtype = n.intAttr("output_datatype", 1);
  DLC_TRY(size);
  DLC_TRY(periodic);
  DLC_TRY(dtype);
  if (size->size() != 1 || (*size)[0] < 0)
    return n.error("size must be one non-negative value");
  Type elt = elementTypeFor(n.b.getContext(), *dtype);
  if (!elt)
    return n.error("unsupported output_datatype " + Twine(*dtype));
  int64_t N = (*size)[0];
  if (failed(n.checkShape({N}, elt)))
    return failure();
  double D = *periodic ? N : N - 1;
  double a0 = kind == 0 ? 0.5 : kind == 1 ? 25.0 / 46.0 : 0.42;
  double a1 = kind == 0 ? 0.5 : kind == 1 ? 21.0 / 46.0 : 0.5;
  double a2 = kind == 2 ? 0.08 : 0.0;
  Type f64 = n.b.getF64Type();
  Value w = matrix(n, f64, 1, N, [&](int64_t, int64_t i) {
    return a0 - a1 * std::cos(2 * M_PI * i / D) + a2 * std::cos(4 * M_PI * i / D);
  });
  Expr e{n, f64};
  Value y = e.cast(e.reshape(w, {N}), elt);
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

/// STFT: frames of the signal [B, L, 1 or 2] at frame_step (zero-padded past the
/// end), times the window, each transformed by a DFT of frame_length:
/// [B, frames, bins, 2]. Over dynamic dims the frame positions are computed when the
/// model runs.
LogicalResult stft(NodeImporter &n, Results &out) {
  using Size = SymbolicSize;
  auto x = n.requiredInput(0);
  auto onesided = n.intAttr("onesided", 1);
  DLC_TRY(x);
  DLC_TRY(onesided);
  auto t = tensorType(*x);
  Type elt = t.getElementType();
  auto xs = n.sizesOf(*x);
  if (!isa<FloatType>(elt) || t.getRank() != 3 || !xs ||
      ((*xs)[2] != Size::constant(1) && (*xs)[2] != Size::constant(2)))
    return n.error("expects a floating-point signal [batch, length, 1 or 2]");
  if (!n.input(1))
    return n.error("input 1 (frame_step) is required");
  auto step = n.constantInts(1);
  DLC_TRY(step);
  if (step->size() != 1)
    return n.error("frame_step must hold one value");
  Value window = n.input(2);
  if (window && tensorType(window).getRank() != 1)
    return n.error("window must be 1-D");
  Size B = (*xs)[0], len = (*xs)[1], one = Size::constant(1), zero = Size::constant(0);
  int64_t c = (*xs)[2].coef;
  Size W = window ? (*n.sizesOf(window))[0] : len, frameLen = W;
  if (n.input(3)) {
    auto fl = n.constantInts(3);
    DLC_TRY(fl);
    if (fl->size() != 1)
      return n.error("frame_length must hold one value");
    frameLen = Size::constant((*fl)[0]);
    if (!window)
      W = frameLen;
  }
  int64_t hop = (*step)[0];
  auto fit = sizeAdd(len, frameLen, -1); // len - frameLen
  // (sizeBounds of a static size is that size.)
  auto bounds = fit ? sizeBounds(n.dynamicFunc, *fit) : std::nullopt;
  auto wb = sizeBounds(n.dynamicFunc, W);
  if (hop < 1 || !bounds || bounds->second < 0 || !wb || wb->first < 1 ||
      (frameLen.isStatic() && frameLen.coef < 1))
    return n.error("needs frame_step >= 1 and 1 <= frame_length <= signal length");
  if (bounds->first < 0) { // a short signal fails the run
    auto have = n.sizeValue(len), need = n.sizeValue(frameLen);
    DLC_TRY(have);
    DLC_TRY(need);
    Expr i{n, n.b.getI64Type()};
    if (failed(checkAtRunTime(n, i.op<LessOp>({*have, *need}),
                              "the signal is shorter than frame_length")))
      return failure();
  }
  if (*onesided && c == 2)
    return n.error("onesided output needs a real signal");
  Size frames = *sizeAdd(sizeFloorDiv(*fit, hop), one);
  // Frame f, tap j reads position f * hop + j of the signal, zero-padded by the window's
  // excess over the frame length (at most its greatest size).
  auto excess = sizeAdd(W, frameLen, -1);
  auto eb = excess ? sizeBounds(n.dynamicFunc, *excess) : std::nullopt;
  int64_t padBy = eb ? std::max<int64_t>(0, eb->second) : wb->second;
  Type f64 = n.b.getF64Type();
  Expr e{n, f64};
  Value sig = e.cast(*x, f64);
  if (padBy > 0)
    sig = e.pad(sig, {0, 0, 0, 0, padBy, 0});
  auto fi = n.iota(frames), ji = n.iota(W);
  auto fc = succeeded(fi) ? n.reshapeTo(*fi, {frames, one}) : fi;
  DLC_TRY(fc);
  DLC_TRY(ji);
  Size count = frames * W;
  auto indices = n.reshapeTo(e.op<AddOp>({e.op<MulOp>({*fc, e.c(n.b.getI64Type(), hop)}), *ji}),
                             {count});
  DLC_TRY(indices);
  auto framed = n.reshapeTo(
      e.op<GatherOp>({sig, *indices}, {n.named("axis", n.b.getI64IntegerAttr(1))}),
      {B, frames, W, Size::constant(c)});
  DLC_TRY(framed);
  Value f = *framed;
  if (window) {
    auto wr = n.reshapeTo(e.cast(window, f64), {one, one, W, one});
    DLC_TRY(wr);
    f = e.op<MulOp>({f, *wr});
  }
  SmallVector<Size> vs = {B * frames, W, Size::constant(c)};
  auto v = n.reshapeTo(f, vs);
  DLC_TRY(v);
  Size bins = zero;
  Value y = spectrum(e, *v, vs, frameLen, false, *onesided, bins);
  if (e.failed)
    return failure();
  auto shaped = n.reshapeTo(y, {B, frames, bins, Size::constant(2)});
  DLC_TRY(shaped);
  y = e.cast(*shaped, elt);
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

/// MelWeightMatrix: the triangular mel filter bank [dft_length / 2 + 1, num_mel_bins]
/// as a constant, computed as ONNX's reference does (the edges in float32 first).
LogicalResult melWeightMatrix(NodeImporter &n, Results &out) {
  auto bins = n.constantInts(0), dftLen = n.constantInts(1), rate = n.constantInts(2);
  auto lo = n.constantInput(3), hi = n.constantInput(4);
  auto dtype = n.intAttr("output_datatype", onnx::TensorProto::FLOAT);
  DLC_TRY(bins);
  DLC_TRY(dftLen);
  DLC_TRY(rate);
  DLC_TRY(lo);
  DLC_TRY(hi);
  DLC_TRY(dtype);
  Type elt = elementTypeFor(n.b.getContext(), *dtype);
  if (!elt)
    return n.error("unsupported output_datatype " + Twine(*dtype));
  if (bins->size() != 1 || dftLen->size() != 1 || rate->size() != 1 ||
      lo->getNumElements() != 1 || hi->getNumElements() != 1 ||
      !isa<FloatType>(lo->getElementType()) || !isa<FloatType>(hi->getElementType()))
    return n.error("expects scalar integer bins, dft_length, sample_rate and float edges");
  int64_t mel = (*bins)[0], dft = (*dftLen)[0], sr = (*rate)[0];
  if (mel < 1 || dft < 1 || sr < 1 || mel > 65536 || dft > (1 << 24))
    return n.error("num_mel_bins, dft_length and sample_rate must be positive");
  int64_t spec = dft / 2 + 1;
  if (failed(n.checkShape({spec, mel}, n.b.getF64Type(), "the mel weight matrix")))
    return failure();
  auto toMel = [](APFloat v) {
    float f = (float)v.convertToDouble();
    return (double)(2595.0f * std::log1p(f / 700.0f)) / std::log(10.0);
  };
  double low = toMel(*lo->getValues<APFloat>().begin()),
         high = toMel(*hi->getValues<APFloat>().begin());
  double stepMel = (high - low) / (mel + 2);
  SmallVector<int64_t> f(mel + 2);
  for (int64_t i = 0; i < mel + 2; ++i) {
    double hz = 700 * std::expm1((i * stepMel + low) / 2595 * std::log(10.0));
    double bin = std::floor((double)(dft + 1) * hz / sr);
    if (!(std::fabs(bin) < 0x1p62)) // NaN or infinite edges
      return n.error("the mel band edges must be finite frequencies");
    f[i] = (int64_t)bin;
  }
  SmallVector<double> w(spec * mel, 0.0);
  for (int64_t i = 0; i < mel; ++i) {
    int64_t a = f[i], b = f[i + 1], c = f[i + 2];
    if (a < 0 || b < a || c < b || b >= spec || c > spec)
      return n.error("the mel bands do not fit the spectrogram's " + Twine(spec) + " bins");
    if (b == a)
      w[b * mel + i] = 1;
    else
      for (int64_t j = a; j <= b; ++j)
        w[j * mel + i] = double(j - a) / double(b - a);
    for (int64_t j = b; j < c; ++j)
      w[j * mel + i] = double(c - j) / double(c - b);
  }
  Value m = matrix(n, n.b.getF64Type(), spec, mel, [&](int64_t r, int64_t k) { return w[r * mel + k]; });
  Expr e{n, elt};
  Value y = e.cast(m, elt);
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

const OpBuilderEntry kSignal[] = {
    {"STFT", 17, stft},
    {"MelWeightMatrix", 17, melWeightMatrix},
    {"DFT", 17, dft},
    {"HannWindow", 17, window<0>},
    {"HammingWindow", 17, window<1>},
    {"BlackmanWindow", 17, window<2>},
};

} // namespace

ArrayRef<OpBuilderEntry> signalBuilders() { return kSignal; }

} // namespace dlc::onnx_frontend
