// ONNX Resize (and Upsample) -> dlc_graph. Resampling is separable, so each resized axis is
// one matmul with a constant [in, out] weight matrix computed here exactly as ONNX's
// reference does (coordinate transformation, nearest rounding, linear/cubic kernels with
// antialias and exclude_outside, edge clamping), plus tf_crop_and_resize extrapolation.
#include "frontends/Onnx/Expr.h"
#include "frontends/Onnx/Resize.h"

#include <cmath>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

using Results = SmallVectorImpl<Value>;

/// Kernel coefficients around a source position with fractional `ratio` in (0, 1].
std::vector<double> coefficients(const ResizeAttrs &a, double ratio, double scale) {
  if (a.mode == "nearest") {
    if (ratio == 1.0)
      return {0, 1};
    if (a.nearestMode == "round_prefer_ceil")
      return {ratio < 0.5 ? 1.0 : 0.0, ratio >= 0.5 ? 1.0 : 0.0};
    if (a.nearestMode == "floor")
      return {1, 0};
    if (a.nearestMode == "ceil")
      return {0, 1};
    return {ratio <= 0.5 ? 1.0 : 0.0, ratio > 0.5 ? 1.0 : 0.0}; // round_prefer_floor
  }
  std::vector<double> c;
  if (a.mode == "linear") {
    if (!a.antialias)
      return {1 - ratio, ratio};
    double s = std::min(scale, 1.0);
    int64_t start = (int64_t)std::floor(-1 / s) + 1, footprint = 2 - 2 * start;
    for (int64_t i = start; i < start + footprint; ++i)
      c.push_back(std::clamp(1 - std::fabs((i - ratio) * s), 0.0, 1.0));
  } else { // cubic
    double A = a.cubicA;
    if (!a.antialias) {
      double r1 = ratio + 1, q = 1 - ratio, q1 = q + 1;
      return {((A * r1 - 5 * A) * r1 + 8 * A) * r1 - 4 * A,
              ((A + 2) * ratio - (A + 3)) * ratio * ratio + 1,
              ((A + 2) * q - (A + 3)) * q * q + 1,
              ((A * q1 - 5 * A) * q1 + 8 * A) * q1 - 4 * A};
    }
    double s = std::min(scale, 1.0);
    int64_t start = (int64_t)std::floor(-2 / s) + 1, end = 2 - start;
    for (int64_t i = start; i < end; ++i) {
      double x = std::fabs(s * (i - ratio)), x2 = x * x, x3 = x2 * x;
      c.push_back(x <= 1 ? (A + 2) * x3 - (A + 3) * x2 + 1
                  : x < 2 ? A * x3 - 5 * A * x2 + 8 * A * x - 4 * A
                          : 0.0);
    }
  }
  double sum = 0;
  for (double v : c)
    sum += v;
  for (double &v : c)
    v /= sum;
  return c;
}

/// The [in, out] weights of one axis, and which outputs extrapolate; false when a source
/// coordinate is not finite or beyond +-2^52 (an roi far outside [0, 1]).
bool axisWeights(const ResizeAttrs &a, int64_t in, int64_t out, double scale, double roiStart,
                 double roiEnd, std::vector<double> &w, std::vector<bool> &extrapolated) {
  w.assign(in * out, 0.0);
  extrapolated.assign(out, false);
  double outWidth = scale * in;
  for (int64_t o = 0; o < out; ++o) {
    double y = (double)o, x;
    const std::string &m = a.coordMode;
    if (m == "align_corners")
      x = outWidth == 1 ? 0 : y * (in - 1) / (outWidth - 1);
    else if (m == "asymmetric")
      x = y / scale;
    else if (m == "tf_crop_and_resize") {
      x = outWidth == 1 ? (roiEnd - roiStart) * (in - 1) / 2
                        : y * (roiEnd - roiStart) * (in - 1) / (outWidth - 1);
      x += roiStart * (in - 1);
      extrapolated[o] = x < 0 || x > in - 1;
    } else if (m == "pytorch_half_pixel")
      x = outWidth == 1 ? -0.5 : (y + 0.5) / scale - 0.5;
    else if (m == "half_pixel_symmetric") {
      double adjustment = out / outWidth, center = in / 2.0;
      x = center * (1 - adjustment) + (y + 0.5) / scale - 0.5;
    } else // half_pixel
      x = (y + 0.5) / scale - 0.5;
    if (!(std::fabs(x) < 0x1p52)) // also NaN; the taps below convert it to int64
      return false;
    double xi = std::floor(x);
    double ratio = x == xi ? 1.0 : x - xi;
    std::vector<double> c = coefficients(a, ratio, scale);
    int64_t n = c.size(), pad = (n + 1) / 2;
    double xp = x + pad, p = std::floor(xp), frac = xp - p;
    int64_t offset = n % 2 == 0 ? (frac == 0 ? -(n / 2) : -(n / 2) + 1)
                                : (frac <= 0.5 ? -((n - 1) / 2) : -((n - 1) / 2) + 1);
    int64_t start = (int64_t)p + offset - pad;
    if (a.excludeOutside) {
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) {
        if (start + k < 0 || start + k >= in)
          c[k] = 0;
        sum += c[k];
      }
      for (double &v : c)
        v /= sum == 0 ? 1 : sum;
    }
    for (int64_t k = 0; k < n; ++k)
      w[std::clamp<int64_t>(start + k, 0, in - 1) * out + o] += c[k];
  }
  return true;
}

/// Float values of an optional constant input; empty when absent or empty.
FailureOr<SmallVector<double>> floatsInput(NodeImporter &n, unsigned i) {
  SmallVector<double> v;
  if (!n.input(i))
    return v;
  auto attr = n.constantInput(i);
  DLC_TRY(attr);
  if (isa<FloatType>(attr->getElementType()))
    for (APFloat f : attr->getValues<APFloat>()) {
      bool lost;
      f.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
      v.push_back(f.convertToDouble());
    }
  else
    for (const APInt &x : attr->getValues<APInt>())
      v.push_back((double)x.getSExtValue());
  return v;
}

/// Resizes `x` to `outShape` with per-axis `scales` (1 and same size: untouched). An
/// input with dynamic dims (dlc compile --dims) takes `dynamicOut`, the output sizes, and
/// its scales where `scaleFromSizes` is false (else out / in when the model runs).
LogicalResult resample(NodeImporter &n, const ResizeAttrs &a, Value x, ArrayRef<int64_t> outShape,
                       ArrayRef<double> scales, ArrayRef<double> roi, Results &out,
                       ArrayRef<SymbolicSize> dynamicOut = {},
                       ArrayRef<bool> scaleFromSizes = {}) {
  auto t = tensorType(x);
  int64_t r = t.getRank();
  Type elt = t.getElementType();
  Type fe = isa<FloatType>(elt) ? elt : n.b.getF32Type();
  Expr e{n, fe};
  Value y = e.cast(x, fe);
  SmallVector<int64_t> shape(t.getShape());
  std::optional<SmallVector<SymbolicSize>> inSizes = n.sizesOf(x);
  for (int64_t axis = 0; axis < r; ++axis) {
    double rs = roi.empty() ? 0.0 : roi[axis], re = roi.empty() ? 1.0 : roi[r + axis];
    bool noRoi = std::fabs(rs) < 1e-9 && std::fabs(re - 1.0) < 1e-9;
    if (!dynamicOut.empty()) {
      bool sameSize = inSizes && (*inSizes)[axis] == dynamicOut[axis];
      if (sameSize && noRoi && (scaleFromSizes[axis] || std::fabs(scales[axis] - 1.0) < 1e-9))
        continue;
      if (e.failed)
        return failure();
      auto resized = resampleDynamicAxis(
          n, a, y, axis, dynamicOut[axis],
          scaleFromSizes[axis] ? std::nullopt : std::optional<double>(scales[axis]), rs, re);
      DLC_TRY(resized);
      y = *resized;
      continue;
    }
    if (std::fabs(scales[axis] - 1.0) < 1e-9 && outShape[axis] == shape[axis] && noRoi)
      continue;
    int64_t in = shape[axis], o = outShape[axis];
    if (in == 0 || o == 0) {
      shape[axis] = o;
      y = n.constant(DenseElementsAttr::get(RankedTensorType::get(shape, fe), n.b.getZeroAttr(fe)));
      continue;
    }
    if (failed(n.checkShape({in, o}, fe, "the resampling matrix")))
      return failure();
    std::vector<double> w;
    std::vector<bool> extrap;
    if (!axisWeights(a, in, o, scales[axis], rs, re, w, extrap))
      return n.error("roi " + n.num(rs) + ".." + n.num(re) + " maps outputs of axis " +
                     Twine(axis) + " to non-finite or out-of-range input coordinates");
    SmallVector<APFloat> wv;
    for (double v : w) {
      APFloat f(v);
      bool lost;
      f.convert(cast<FloatType>(fe).getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      wv.push_back(f);
    }
    Value wm = n.constant(DenseElementsAttr::get(RankedTensorType::get({in, o}, fe), wv));
    // Move the axis last, [outer, in] @ [in, out], and back.
    AxisLast al = axisLast(shape, axis);
    SmallVector<int64_t> perm = al.perm, inv = al.inverse, moved = al.shape;
    moved.back() = o;
    int64_t outer = 1;
    for (int64_t d = 0; d < r; ++d)
      if (d != axis)
        outer *= shape[d];
    Value m = e.reshape(e.transpose(y, perm), {outer, in});
    y = e.transpose(e.reshape(e.op<MatMulOp>({m, wm}), moved), inv);
    shape[axis] = o;
    if (llvm::is_contained(extrap, true)) {
      SmallVector<int64_t> maskShape(r, 1);
      maskShape[axis] = o;
      SmallVector<bool> bits(extrap.begin(), extrap.end());
      Value mask = n.constant(DenseElementsAttr::get(
          RankedTensorType::get(maskShape, n.b.getI1Type()), ArrayRef<bool>(bits)));
      y = e.where(mask, e.c(a.extrapolation), y);
    }
  }
  if (!isa<FloatType>(elt)) // integers: round to nearest, as the reference's cast saturates
    y = e.op<RoundOp>({y});
  y = e.cast(y, elt);
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

LogicalResult resize(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  bool v10 = n.opset < 11;
  ResizeAttrs a;
  auto mode = n.stringAttr("mode", "nearest");
  auto coord = n.stringAttr("coordinate_transformation_mode", v10 ? "asymmetric" : "half_pixel");
  auto nearest = n.stringAttr("nearest_mode", v10 ? "floor" : "round_prefer_floor");
  auto policy = n.stringAttr("keep_aspect_ratio_policy", "stretch");
  auto cubicA = n.floatAttr("cubic_coeff_a", -0.75f), extrap = n.floatAttr("extrapolation_value", 0);
  auto exclude = n.intAttr("exclude_outside", 0), antialias = n.intAttr("antialias", 0);
  auto axesAttr = n.intsAttr("axes", {});
  DLC_TRY(mode);
  DLC_TRY(coord);
  DLC_TRY(nearest);
  DLC_TRY(policy);
  DLC_TRY(cubicA);
  DLC_TRY(extrap);
  DLC_TRY(exclude);
  DLC_TRY(antialias);
  DLC_TRY(axesAttr);
  a = {*mode, *coord, *nearest, *policy, *cubicA, *extrap, *exclude != 0, *antialias != 0};
  if (a.mode != "nearest" && a.mode != "linear" && a.mode != "cubic")
    return n.error("unsupported mode '" + a.mode + "'");
  static const char *kCoord[] = {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
                                 "align_corners", "asymmetric", "tf_crop_and_resize"};
  if (!llvm::is_contained(kCoord, a.coordMode))
    return n.error("unsupported coordinate_transformation_mode '" + a.coordMode + "'");
  if (a.mode == "nearest" && a.antialias)
    return n.error("antialias is not defined for mode 'nearest'");
  auto t = tensorType(*x);
  int64_t r = t.getRank();
  SmallVector<int64_t> axes;
  for (int64_t ax : *axesAttr) {
    auto na = n.dimAxis(ax, r); // its dim is resized: a scalar has none
    DLC_TRY(na);
    axes.push_back(*na);
  }
  if (axes.empty())
    for (int64_t d = 0; d < r; ++d)
      axes.push_back(d);
  auto roiIn = floatsInput(n, v10 ? 99 : 1);
  auto scalesIn = floatsInput(n, v10 ? 1 : 2);
  auto sizesIn = floatsInput(n, v10 ? 99 : 3);
  DLC_TRY(roiIn);
  DLC_TRY(scalesIn);
  DLC_TRY(sizesIn);
  int64_t k = axes.size();
  SmallVector<double> scales(r, 1.0), roi;
  SmallVector<int64_t> outShape(t.getShape());
  // Dynamic dims (dlc compile --dims): the output sizes as sizes of the symbols.
  bool dynamic = !t.hasStaticShape();
  SmallVector<SymbolicSize> dynamicOut;
  SmallVector<bool> scaleFromSizes(r, false);
  if (dynamic) {
    std::optional<SmallVector<SymbolicSize>> s = n.sizesOf(*x);
    if (!s)
      return n.error("the sizes of the input's dynamic dims are not known here");
    dynamicOut = *s;
    if (a.aspectPolicy != "stretch")
      return n.error("keep_aspect_ratio_policy over dynamic dims (--dims) is not supported");
  }
  if (!sizesIn->empty()) {
    if ((int64_t)sizesIn->size() != k)
      return n.error("sizes has " + Twine(sizesIn->size()) + " values for " + Twine(k) + " axes");
    for (int64_t i = 0; i < k; ++i) {
      if (!((*sizesIn)[i] >= 1 && (*sizesIn)[i] < 0x1p62))
        return n.error("sizes must be positive, got " + n.num((*sizesIn)[i]));
      outShape[axes[i]] = (int64_t)(*sizesIn)[i];
      scales[axes[i]] = t.getDimSize(axes[i]) ? (*sizesIn)[i] / t.getDimSize(axes[i]) : 1.0;
      if (dynamic) {
        dynamicOut[axes[i]] = SymbolicSize::constant(outShape[axes[i]]);
        scaleFromSizes[axes[i]] = t.isDynamicDim(axes[i]);
      }
    }
    if (a.aspectPolicy != "stretch") {
      if (a.aspectPolicy != "not_larger" && a.aspectPolicy != "not_smaller")
        return n.error("unsupported keep_aspect_ratio_policy '" + a.aspectPolicy + "'");
      double s = scales[axes[0]];
      for (int64_t ax : axes)
        s = a.aspectPolicy == "not_larger" ? std::min(s, scales[ax]) : std::max(s, scales[ax]);
      for (int64_t ax : axes) {
        double dim = s * t.getDimSize(ax) + 0.5;
        if (!(dim < 0x1p62))
          return n.error("keep_aspect_ratio_policy makes axis " + Twine(ax) + " " +
                         n.num(dim) + " long");
        scales[ax] = s;
        outShape[ax] = (int64_t)dim;
      }
    }
  } else if (!scalesIn->empty()) {
    if ((int64_t)scalesIn->size() != k)
      return n.error("scales has " + Twine(scalesIn->size()) + " values for " + Twine(k) + " axes");
    for (int64_t i = 0; i < k; ++i) {
      double s = (*scalesIn)[i], dim = t.isDynamicDim(axes[i]) ? 0.0 : s * t.getDimSize(axes[i]);
      if (!(s > 0) || !std::isfinite(s))
        return n.error("scales must be positive and finite, got " + n.num(s));
      if (!(dim < 0x1p62))
        return n.error("scale " + n.num(s) + " makes axis " + Twine(axes[i]) + " " +
                       n.num(dim) + " long");
      scales[axes[i]] = s;
      outShape[axes[i]] = (int64_t)dim;
      if (dynamic && t.isDynamicDim(axes[i])) {
        std::optional<SymbolicSize> o = scaledSize(dynamicOut[axes[i]], s);
        if (!o)
          return n.error("scale " + n.num(s) + " of dynamic axis " + Twine(axes[i]) +
                         " overflows int64");
        dynamicOut[axes[i]] = *o;
      } else if (dynamic) {
        dynamicOut[axes[i]] = SymbolicSize::constant(outShape[axes[i]]);
      }
    }
  } else {
    return n.error("needs scales or sizes");
  }
  if (!roiIn->empty()) {
    if ((int64_t)roiIn->size() != 2 * k)
      return n.error("roi has " + Twine(roiIn->size()) + " values for " + Twine(k) + " axes");
    if (!llvm::all_of(*roiIn, [](double v) { return std::isfinite(v); }))
      return n.error("roi values must be finite");
    roi.assign(r, 0.0);
    roi.append(r, 1.0);
    for (int64_t i = 0; i < k; ++i) {
      roi[axes[i]] = (*roiIn)[i];
      roi[r + axes[i]] = (*roiIn)[k + i];
    }
  }
  if (a.coordMode == "tf_crop_and_resize" && roi.empty())
    return n.error("tf_crop_and_resize needs roi");
  if (dynamic)
    return resample(n, a, *x, outShape, scales, roi, out, dynamicOut, scaleFromSizes);
  if (failed(n.checkShape(outShape, t.getElementType())))
    return failure();
  return resample(n, a, *x, outShape, scales, roi, out);
}

/// Upsample (deprecated): integer nearest repeats or linear, asymmetric coordinates.
LogicalResult upsample(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto mode = n.stringAttr("mode", "nearest");
  DLC_TRY(x);
  DLC_TRY(mode);
  SmallVector<double> scales;
  if (n.input(1)) {
    auto s = floatsInput(n, 1);
    DLC_TRY(s);
    scales = *s;
  } else {
    auto f = n.findAttr("scales");
    if (!f)
      return n.error("needs scales");
    scales.assign(f->floats().begin(), f->floats().end());
  }
  auto t = tensorType(*x);
  if ((int64_t)scales.size() != t.getRank())
    return n.error("scales must have one value per dim");
  if (*mode != "nearest" && *mode != "linear" && *mode != "bilinear")
    return n.error("mode must be nearest, linear or bilinear, got '" + *mode + "'");
  ResizeAttrs a{*mode == "bilinear" ? "linear" : *mode, "asymmetric", "floor", "stretch",
                -0.75, 0, false, false};
  SmallVector<int64_t> outShape;
  if (!t.hasStaticShape()) { // dynamic dims (dlc compile --dims)
    std::optional<SmallVector<SymbolicSize>> in = n.sizesOf(*x);
    if (!in)
      return n.error("the sizes of the input's dynamic dims are not known here");
    SmallVector<SymbolicSize> dynamicOut;
    for (int64_t d = 0; d < t.getRank(); ++d) {
      std::optional<SymbolicSize> o =
          scales[d] > 0 && std::isfinite(scales[d]) ? scaledSize((*in)[d], scales[d]) : std::nullopt;
      if (!o)
        return n.error("scales must be positive and finite and keep dims in int64, got " +
                       n.num(scales[d]) + " for dim " + Twine(d));
      dynamicOut.push_back(*o);
    }
    return resample(n, a, *x, t.getShape(), scales, {}, out, dynamicOut,
                    SmallVector<bool>(t.getRank(), false));
  }
  for (int64_t d = 0; d < t.getRank(); ++d) {
    double dim = scales[d] * t.getDimSize(d);
    if (!(scales[d] > 0) || !std::isfinite(scales[d]) || !(dim < 0x1p62))
      return n.error("scales must be positive and finite and keep dims below 2^62, got " +
                     n.num(scales[d]) + " for dim " + Twine(d));
    outShape.push_back((int64_t)dim);
  }
  if (failed(n.checkShape(outShape, t.getElementType())))
    return failure();
  return resample(n, a, *x, outShape, scales, {}, out);
}

const OpBuilderEntry kResize[] = {
    {"Resize", 10, resize},
    {"Upsample", 7, upsample},
};

} // namespace

ArrayRef<OpBuilderEntry> resizeBuilders() { return kResize; }

} // namespace dlc::onnx_frontend
