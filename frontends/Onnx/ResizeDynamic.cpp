// Resize along a dynamic axis (dlc compile --dims): the [in, out] weights that
// ResizeBuilders.cpp computes at compile time (axisWeights), computed here as graph ops
// from the sizes when the model runs, then one product per axis.
#include "frontends/Onnx/Expr.h"
#include "frontends/Onnx/Resize.h"

#include <cmath>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {

std::optional<SymbolicSize> scaledSize(const SymbolicSize &in, double scale) {
  // scale = m / 2^e exactly (m an integer below 2^53).
  int e = 0;
  double m = scale;
  while (m != std::floor(m) && e < 1074)
    m *= 2, ++e;
  int64_t coef;
  if (!(m > 0) || m >= 0x1p53 || e > 62 || __builtin_mul_overflow(in.coef, (int64_t)m, &coef))
    return std::nullopt;
  return sizeFloorDiv(in * SymbolicSize::constant((int64_t)m), int64_t(1) << e);
}

namespace {

/// The weights of one output position's taps: `start` (the first tap's input index, before
/// clamping) and one coefficient per tap; each a [out] f64 tensor.
struct Taps {
  Value start;
  SmallVector<Value> coef;
};

/// ONNX's antialiased linear or cubic kernel around `x` ([out] f64) at scale s (below 1:
/// the kernel stretched by 1 / s), over `n` taps (even, at least the kernel's width at the
/// smallest scale: the taps beyond its width get 0), normalized to sum 1.
Taps antialiasTaps(Expr &e, const ResizeAttrs &a, Value x, Value s, int64_t n) {
  Value one = e.c(1), zero = e.c(0), xi = e.op<FloorOp>({x});
  Value whole = e.where(e.op<EqualOp>({x, xi}), one, zero);
  // Tap k reads floor(x) + 1 - n/2 + k (one less where x is whole), at distance d from x.
  Taps t;
  t.start = e.op<SubOp>({e.op<AddOp>({xi, e.c(1.0 - double(n / 2))}), whole});
  Value sum = zero;
  double A = a.cubicA;
  for (int64_t k = 0; k < n; ++k) {
    Value d = e.op<AbsOp>({e.op<MulOp>({e.op<SubOp>({e.op<AddOp>({t.start, e.c(double(k))}), x}), s})});
    Value c;
    if (a.mode == "linear") {
      c = e.op<MaxOp>({e.op<SubOp>({one, d}), zero});
    } else { // |d| <= 1: (A+2)d^3 - (A+3)d^2 + 1; |d| < 2: A d^3 - 5A d^2 + 8A d - 4A
      Value d2 = e.op<MulOp>({d, d}), d3 = e.op<MulOp>({d2, d});
      Value near = e.op<AddOp>({e.op<SubOp>({e.op<MulOp>({e.c(A + 2), d3}),
                                             e.op<MulOp>({e.c(A + 3), d2})}), one});
      Value far = e.op<SubOp>({e.op<AddOp>({e.op<SubOp>({e.op<MulOp>({e.c(A), d3}),
                                                         e.op<MulOp>({e.c(5 * A), d2})}),
                                            e.op<MulOp>({e.c(8 * A), d})}), e.c(4 * A)});
      c = e.where(e.op<LessEqualOp>({d, one}), near,
                  e.where(e.op<LessOp>({d, e.c(2)}), far, zero));
    }
    t.coef.push_back(c);
    sum = e.op<AddOp>({sum, c});
  }
  for (Value &c : t.coef)
    c = e.op<DivOp>({c, sum});
  return t;
}

/// ONNX's kernel around source coordinates `x` ([out] f64); antialiased (scale `s`) over
/// `n` taps where `a` says so.
Taps taps(Expr &e, const ResizeAttrs &a, Value x, Value in, Value s, int64_t n) {
  Value one = e.c(1), half = e.c(0.5);
  Value xi = e.op<FloorOp>({x});
  Value ratio = e.where(e.op<EqualOp>({x, xi}), one, e.op<SubOp>({x, xi}));
  auto pick = [&](Value cond) { return e.where(cond, one, e.c(0)); };
  Taps t;
  if (a.antialias) {
    t = antialiasTaps(e, a, x, e.op<MinOp>({s, one}), n);
  } else if (a.mode == "nearest") {
    if (a.nearestMode == "round_prefer_ceil")
      t.coef = {pick(e.op<LessOp>({ratio, half})), pick(e.op<GreaterEqualOp>({ratio, half}))};
    else if (a.nearestMode == "floor")
      t.coef = {pick(e.op<NotOp>({e.op<EqualOp>({ratio, one})})), pick(e.op<EqualOp>({ratio, one}))};
    else if (a.nearestMode == "ceil")
      t.coef = {e.op<MulOp>({ratio, e.c(0)}), e.op<AddOp>({e.op<MulOp>({ratio, e.c(0)}), one})};
    else // round_prefer_floor
      t.coef = {pick(e.op<LessEqualOp>({ratio, half})), pick(e.op<GreaterOp>({ratio, half}))};
  } else if (a.mode == "linear") {
    t.coef = {e.op<SubOp>({one, ratio}), ratio};
  } else { // cubic: A's polynomial at distances ratio + 1, ratio, 1 - ratio, 2 - ratio
    double A = a.cubicA;
    auto far = [&](Value d) { // ((A d - 5A) d + 8A) d - 4A
      Value p = e.op<SubOp>({e.op<MulOp>({e.c(A), d}), e.c(5 * A)});
      p = e.op<AddOp>({e.op<MulOp>({p, d}), e.c(8 * A)});
      return e.op<SubOp>({e.op<MulOp>({p, d}), e.c(4 * A)});
    };
    auto near = [&](Value d) { // ((A + 2) d - (A + 3)) d d + 1
      Value p = e.op<SubOp>({e.op<MulOp>({e.c(A + 2), d}), e.c(A + 3)});
      return e.op<AddOp>({e.op<MulOp>({e.op<MulOp>({p, d}), d}), one});
    };
    Value q = e.op<SubOp>({one, ratio});
    t.coef = {far(e.op<AddOp>({ratio, one})), near(ratio), near(q), far(e.op<AddOp>({q, one}))};
  }
  n = t.coef.size();
  if (!a.antialias) {
    // start = floor(x + pad) + offset - pad, offset -(n/2) (+1 unless x + pad is whole).
    int64_t pad = (n + 1) / 2;
    Value xp = e.op<AddOp>({x, e.c((double)pad)});
    Value p = e.op<FloorOp>({xp});
    Value whole = e.op<EqualOp>({xp, p});
    Value offset = e.where(whole, e.c(-(double)(n / 2)), e.c(-(double)(n / 2) + 1));
    t.start = e.op<SubOp>({e.op<AddOp>({p, offset}), e.c((double)pad)});
  }
  if (a.excludeOutside) {
    Value sum = e.c(0);
    for (int64_t k = 0; k < n; ++k) {
      Value idx = e.op<AddOp>({t.start, e.c((double)k)});
      Value inside = e.op<AndOp>({e.op<GreaterEqualOp>({idx, e.c(0)}), e.op<LessOp>({idx, in})});
      t.coef[k] = e.where(inside, t.coef[k], e.c(0));
      sum = e.op<AddOp>({sum, t.coef[k]});
    }
    sum = e.where(e.op<EqualOp>({sum, e.c(0)}), one, sum);
    for (Value &c : t.coef)
      c = e.op<DivOp>({c, sum});
  }
  return t;
}

} // namespace

FailureOr<Value> resampleDynamicAxis(NodeImporter &n, const ResizeAttrs &a, Value y,
                                     int64_t axis, const SymbolicSize &out,
                                     std::optional<double> scale, double roiStart,
                                     double roiEnd) {
  auto sizes = n.sizesOf(y);
  if (!sizes)
    return n.error("the sizes of the input's dynamic dims are not known here");
  // Antialiasing (a downscale s < 1) widens the kernel by 1 / s: its taps at the
  // smallest scale the ranges allow.
  int64_t nTaps = 0;
  if (a.antialias) {
    double least = 1.0;
    if (scale) {
      least = std::min(*scale, 1.0);
    } else {
      auto ib = sizeBounds(n.dynamicFunc, (*sizes)[axis]), ob = sizeBounds(n.dynamicFunc, out);
      if (!ib || !ob || ob->first < 1 || ib->second < 1)
        return n.error("antialias over a dynamic dim (--dims) needs bounded sizes");
      least = std::min(1.0, double(ob->first) / double(ib->second));
    }
    double reach = a.mode == "linear" ? 1.0 : 2.0, width = -2 * std::floor(-reach / least);
    if (!(width <= 4096))
      return n.error("antialias over a dynamic dim (--dims) at scales down to " +
                     n.num(least) + " needs " + n.num(width) + " taps (at most 4096)");
    nTaps = (int64_t)width;
  }
  Type fe = tensorType(y).getElementType(), f64 = n.b.getF64Type();
  Expr e{n, f64};
  auto inSize = n.dimSize(y, axis), outSize = n.sizeValue(out);
  auto positions = n.iota(out);
  DLC_TRY(inSize);
  DLC_TRY(outSize);
  DLC_TRY(positions);
  Value in = e.cast(*inSize, f64), outD = e.cast(*outSize, f64);
  Value s = scale ? e.c(*scale) : e.op<DivOp>({outD, in});
  Value width = e.op<MulOp>({s, in}); // the output width before rounding
  Value o = e.cast(*positions, f64), one = e.c(1), half = e.c(0.5);
  Value unit = e.op<EqualOp>({width, one});
  Value inLast = e.op<SubOp>({in, one});
  Value centered = e.op<SubOp>({e.op<DivOp>({e.op<AddOp>({o, half}), s}), half});
  // The source coordinate of each output position (ResizeBuilders' axisWeights).
  Value x, extrapolated;
  const std::string &m = a.coordMode;
  if (m == "align_corners") {
    x = e.where(unit, e.c(0),
                e.op<DivOp>({e.op<MulOp>({o, inLast}), e.op<SubOp>({width, one})}));
  } else if (m == "asymmetric") {
    x = e.op<DivOp>({o, s});
  } else if (m == "tf_crop_and_resize") {
    Value span = e.op<MulOp>({e.c(roiEnd - roiStart), inLast});
    x = e.where(unit, e.op<DivOp>({span, e.c(2)}),
                e.op<DivOp>({e.op<MulOp>({o, span}), e.op<SubOp>({width, one})}));
    x = e.op<AddOp>({x, e.op<MulOp>({e.c(roiStart), inLast})});
    extrapolated = e.op<OrOp>({e.op<LessOp>({x, e.c(0)}), e.op<GreaterOp>({x, inLast})});
  } else if (m == "pytorch_half_pixel") {
    x = e.where(unit, e.c(-0.5), centered);
  } else if (m == "half_pixel_symmetric") {
    Value adjustment = e.op<DivOp>({outD, width}), center = e.op<DivOp>({in, e.c(2)});
    x = e.op<AddOp>({e.op<MulOp>({center, e.op<SubOp>({one, adjustment})}), centered});
  } else {
    x = centered;
  }
  Taps t = taps(e, a, x, in, s, nTaps);
  // W[i, o] = sum over taps k of coef_k[o] where clamp(start[o] + k, 0, in - 1) == i.
  auto rows = n.iota((*sizes)[axis]);
  DLC_TRY(rows);
  Value i = e.cast(*rows, f64);
  auto column = n.reshapeTo(i, {(*sizes)[axis], SymbolicSize::constant(1)});
  DLC_TRY(column);
  Value w;
  for (auto [k, c] : llvm::enumerate(t.coef)) {
    Value idx = e.op<AddOp>({t.start, e.c((double)k)});
    idx = e.op<MinOp>({e.op<MaxOp>({idx, e.c(0)}), inLast});
    Value hit = e.where(e.op<EqualOp>({*column, idx}), c, e.c(0));
    w = w ? e.op<AddOp>({w, hit}) : hit;
  }
  w = e.cast(w, fe);
  // Move the axis last, [outer, in] @ [in, out], and back.
  int64_t r = sizes->size();
  SmallVector<int64_t> shape(r, 0);
  AxisLast al = axisLast(shape, axis);
  SmallVector<SymbolicSize> moved, flat = {SymbolicSize::constant(1), (*sizes)[axis]};
  for (int64_t d : al.perm)
    moved.push_back((*sizes)[d]);
  for (int64_t d = 0; d < r; ++d)
    if (d != axis)
      flat[0] = flat[0] * (*sizes)[d];
  moved.back() = out;
  if (e.failed)
    return failure();
  auto m2 = n.reshapeTo(e.transpose(y, al.perm), flat);
  DLC_TRY(m2);
  Value product = e.op<MatMulOp>({*m2, w});
  if (e.failed)
    return failure();
  auto back = n.reshapeTo(product, moved);
  DLC_TRY(back);
  Value result = e.transpose(*back, al.inverse);
  if (extrapolated) {
    SmallVector<SymbolicSize> maskShape(r, SymbolicSize::constant(1));
    maskShape[axis] = out;
    auto mask = n.reshapeTo(extrapolated, maskShape);
    DLC_TRY(mask);
    Expr ef{n, fe};
    result = ef.where(*mask, ef.c(a.extrapolation), result);
    if (ef.failed)
      return failure();
  }
  if (e.failed)
    return failure();
  return result;
}

} // namespace dlc::onnx_frontend
