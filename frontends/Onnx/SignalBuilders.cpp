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
  int64_t have = tensorType(x).getDimSize(1);
  if (have == len)
    return x;
  return e.op<PadOp>({x}, {e.n.named("pads", e.n.b.getDenseI64ArrayAttr({0, 0, 0, len - have})),
                           e.n.named("mode", e.n.b.getStringAttr("constant")),
                           e.n.named("value", e.n.b.getF64FloatAttr(0))});
}

LogicalResult dft(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto inverse = n.intAttr("inverse", 0), onesided = n.intAttr("onesided", 0);
  TRY(x);
  TRY(inverse);
  TRY(onesided);
  auto t = tensorType(*x);
  int64_t r = t.getRank();
  Type elt = t.getElementType();
  if (!isa<FloatType>(elt) || r < 2 || (t.getDimSize(r - 1) != 1 && t.getDimSize(r - 1) != 2))
    return n.error("expects a floating-point input [..., 1 or 2]");
  int64_t axis = n.opset >= 20 ? -2 : 1;
  if (n.opset >= 20 && n.input(2)) {
    auto a = n.constantInts(2);
    TRY(a);
    axis = (*a)[0];
  } else if (n.opset < 20) {
    auto a = n.intAttr("axis", 1);
    TRY(a);
    axis = *a;
  }
  auto na = n.normalizeAxis(axis, r);
  TRY(na);
  axis = *na;
  if (axis == r - 1)
    return n.error("axis cannot be the last (real/imaginary) dim");
  int64_t inLen = t.getDimSize(axis);
  bool irfft = *inverse && *onesided;
  int64_t L = irfft ? 2 * (inLen - 1) : inLen;
  if (n.input(1)) {
    auto l = n.constantInts(1);
    TRY(l);
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
  auto part = [&](int64_t i) {
    return e.reshape(e.op<SliceOp>({v}, {n.named("starts", n.b.getDenseI64ArrayAttr({0, 0, i})),
                                         n.named("sizes", n.b.getDenseI64ArrayAttr({M, inLen, 1})),
                                         n.named("steps", n.b.getDenseI64ArrayAttr({1, 1, 1}))}),
                     {M, inLen});
  };
  Value xr = part(0), xi = c == 2 ? part(1) : Value();
  const double twoPi = 2 * M_PI;
  Value yr, yi;
  int64_t outLen;
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
    int64_t K = *onesided ? L / 2 + 1 : L;
    outLen = K;
    double sign = *inverse ? 1.0 : -1.0, scale = *inverse ? 1.0 / L : 1.0;
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
  Value y = yi ? e.op<ConcatOp>({e.reshape(yr, {M, outLen, 1}), e.reshape(yi, {M, outLen, 1})},
                                {n.named("axis", n.b.getI64IntegerAttr(2))})
               : e.reshape(yr, {M, outLen, 1});
  moved[r - 2] = outLen;
  moved[r - 1] = yi ? 2 : 1;
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
  TRY(size);
  TRY(periodic);
  TRY(dtype);
  if (size->size() != 1 || (*size)[0] < 0)
    return n.error("size must be one non-negative value");
  Type elt = elementTypeFor(n.b.getContext(), *dtype);
  if (!elt)
    return n.error("unsupported output_datatype " + Twine(*dtype));
  int64_t N = (*size)[0];
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

const OpBuilderEntry kSignal[] = {
    {"DFT", 17, dft},
    {"HannWindow", 17, window<0>},
    {"HammingWindow", 17, window<1>},
    {"BlackmanWindow", 17, window<2>},
};

} // namespace

ArrayRef<OpBuilderEntry> signalBuilders() { return kSignal; }

} // namespace dlc::onnx_frontend
