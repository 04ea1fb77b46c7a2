// ONNX signal ops: DFT (forward, inverse, one-sided, irfft) as matmuls with constant cos/sin
// matrices, and the Hann/Hamming/Blackman windows as constants.
#include "frontends/Onnx/Expr.h"

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

/// x[:, :len] zero-padded or truncated to `len` columns.
Value fitColumns(Expr &e, Value x, int64_t len) {
  if (e.failed || !x) // an earlier builder failed
    return Value();
  int64_t have = tensorType(x).getDimSize(1);
  if (have == len)
    return x;
  return e.pad(x, {0, 0, 0, len - have});
}

/// The DFT of length L of the rows of v [M, inLen, c] (c = 1 real, 2 complex) as
/// matmuls with constant cos/sin matrices in v's (f64) type: [M, outLen, 1 or 2].
/// inverse+onesided is the inverse real FFT (a real result).
Value spectrum(Expr &e, Value v, int64_t L, bool inverse, bool onesided, int64_t &outLen) {
  if (e.failed || !v) // an earlier builder failed
    return Value();
  NodeImporter &n = e.n;
  if (e.failed || !v)
    return e.fail();
  Type f64 = tensorType(v).getElementType();
  int64_t M = tensorType(v).getDimSize(0), inLen = tensorType(v).getDimSize(1),
          c = tensorType(v).getDimSize(2);
  bool irfft = inverse && onesided;
  // The constant cos/sin matrices: [L/2 + 1, L] or [L, L or L/2 + 1].
  if (failed(n.checkShape({L, onesided ? L / 2 + 1 : L}, f64, "the DFT matrix")))
    return e.fail();
  auto part = [&](int64_t i) {
    return e.reshape(e.slice(v, {0, 0, i}, {M, inLen, 1}, {1, 1, 1}),
                     {M, inLen});
  };
  Value xr = part(0), xi = c == 2 ? part(1) : Value();
  const double twoPi = 2 * M_PI;
  Value yr, yi;
  if (irfft) {
    // Hermitian spectrum: k in [0, L/2], weight 2 except k = 0 and the Nyquist bin.
    int64_t K = L / 2 + 1;
    outLen = L;
    xr = fitColumns(e, xr, K);
    auto w = [&](int64_t k) { return (k == 0 || (L % 2 == 0 && k == L / 2)) ? 1.0 : 2.0; };
    Value C = matrix(n, f64, K, L, [&](int64_t k, int64_t j) { return w(k) * std::cos(twoPi * k * j / L) / L; });
    yr = e.op<MatMulOp>({xr, C});
    if (xi) {
      Value S = matrix(n, f64, K, L, [&](int64_t k, int64_t j) { return w(k) * std::sin(twoPi * k * j / L) / L; });
      yr = e.op<SubOp>({yr, e.op<MatMulOp>({fitColumns(e, xi, K), S})});
    }
  } else {
    int64_t K = onesided ? L / 2 + 1 : L;
    outLen = K;
    double sign = inverse ? 1.0 : -1.0, scale = inverse ? 1.0 / L : 1.0;
    xr = fitColumns(e, xr, L);
    Value C = matrix(n, f64, L, K, [&](int64_t j, int64_t k) { return scale * std::cos(twoPi * j * k / L); });
    Value S = matrix(n, f64, L, K, [&](int64_t j, int64_t k) { return sign * scale * std::sin(twoPi * j * k / L); });
    // (xr + i xi)(cos + i sign sin)
    yr = e.op<MatMulOp>({xr, C});
    yi = e.op<MatMulOp>({xr, S});
    if (xi) {
      xi = fitColumns(e, xi, L);
      yr = e.op<SubOp>({yr, e.op<MatMulOp>({xi, S})});
      yi = e.op<AddOp>({yi, e.op<MatMulOp>({xi, C})});
    }
  }
  return yi ? e.op<ConcatOp>({e.reshape(yr, {M, outLen, 1}), e.reshape(yi, {M, outLen, 1})},
                            {n.named("axis", n.b.getI64IntegerAttr(2))})
            : e.reshape(yr, {M, outLen, 1});
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
  if (!isa<FloatType>(elt) || r < 2 || (t.getDimSize(r - 1) != 1 && t.getDimSize(r - 1) != 2))
    return n.error("expects a floating-point input [..., 1 or 2]");
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
  int64_t inLen = t.getDimSize(axis);
  bool irfft = *inverse && *onesided;
  int64_t L = irfft ? 2 * (inLen - 1) : inLen;
  if (n.input(1)) {
    auto l = n.constantInts(1);
    DLC_TRY(l);
    if (l->size() != 1)
      return n.error("dft_length must hold one value");
    L = (*l)[0];
  }
  if (L < 1)
    return n.error("dft_length must be positive");
  // Computed in f64 (as the reference does) and rounded once at the end.
  Type f64 = n.b.getF64Type();
  Expr e{n, f64};
  // Move the axis next to the last dim: [M, N, c].
  SmallVector<int64_t> perm, inv(r), moved;
  for (int64_t d = 0; d < r - 1; ++d)
    if (d != axis)
      perm.push_back(d);
  perm.append({axis, r - 1});
  for (int64_t d = 0; d < r; ++d)
    inv[perm[d]] = d;
  for (int64_t d : perm)
    moved.push_back(t.getDimSize(d));
  int64_t c = t.getDimSize(r - 1), M = t.getNumElements() / std::max<int64_t>(1, inLen * c);
  Value v = e.reshape(e.transpose(e.cast(*x, f64), perm), {M, inLen, c});
  int64_t outLen = 0;
  Value y = spectrum(e, v, L, *inverse, *onesided, outLen);
  if (e.failed) // y is null (and outLen unset)
    return failure();
  moved[r - 2] = outLen;
  moved[r - 1] = tensorType(y).getDimSize(2);
  y = e.cast(e.transpose(e.reshape(y, moved), inv), elt);
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
/// [B, frames, bins, 2].
LogicalResult stft(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto onesided = n.intAttr("onesided", 1);
  DLC_TRY(x);
  DLC_TRY(onesided);
  auto t = tensorType(*x);
  Type elt = t.getElementType();
  if (!isa<FloatType>(elt) || t.getRank() != 3 || (t.getDimSize(2) != 1 && t.getDimSize(2) != 2))
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
  int64_t B = t.getDimSize(0), len = t.getDimSize(1), c = t.getDimSize(2);
  int64_t frameLen = window ? tensorType(window).getDimSize(0) : len;
  if (n.input(3)) {
    auto fl = n.constantInts(3);
    DLC_TRY(fl);
    if (fl->size() != 1)
      return n.error("frame_length must hold one value");
    frameLen = (*fl)[0];
  }
  int64_t W = window ? tensorType(window).getDimSize(0) : frameLen;
  int64_t hop = (*step)[0];
  if (hop < 1 || frameLen < 1 || frameLen > len || W < 1)
    return n.error("needs frame_step >= 1 and 1 <= frame_length <= signal length");
  if (*onesided && c == 2)
    return n.error("onesided output needs a real signal");
  int64_t frames = 1 + (len - frameLen) / hop;
  if (failed(n.checkShape({frames, W}, n.b.getI64Type(), "the frame indices")))
    return failure();
  SmallVector<int64_t> idx;
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t j = 0; j < W; ++j)
      idx.push_back(f * hop + j);
  int64_t padTo = std::max(len, (frames - 1) * hop + W);
  Type f64 = n.b.getF64Type();
  Expr e{n, f64};
  Value sig = e.cast(*x, f64);
  if (padTo > len)
    sig = e.pad(sig, {0, 0, 0, 0, padTo - len, 0});
  Value indices = e.ints({frames * W}, idx);
  Value framed = e.reshape(e.op<GatherOp>({sig, indices}, {n.named("axis", n.b.getI64IntegerAttr(1))}),
                           {B, frames, W, c});
  if (window)
    framed = e.op<MulOp>({framed, e.reshape(e.cast(window, f64), {1, 1, W, 1})});
  int64_t bins = 0;
  Value y = spectrum(e, e.reshape(framed, {B * frames, W, c}), frameLen, false, *onesided, bins);
  y = e.cast(e.reshape(y, {B, frames, bins, 2}), elt);
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
