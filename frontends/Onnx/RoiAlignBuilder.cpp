// ONNX RoiAlign as coordinate math over a static sample grid plus GatherElements of the
// four bilinear neighbours, following ONNX's reference: per ROI and output bin a grid of
// sampling_ratio^2 points (or ceil(roi_size / output_size) per ROI when sampling_ratio is
// 0: then the ROIs must be known at compile time to bound the grid), out-of-map samples
// weigh 0, and the bin is their average or the max of the weighted neighbours.
#include "frontends/Onnx/Expr.h"

#include <cmath>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {

LogicalResult roiAlign(NodeImporter &n, SmallVectorImpl<Value> &out) {
  auto x = n.requiredInput(0), rois = n.requiredInput(1), batch = n.requiredInput(2);
  DLC_TRY(x);
  DLC_TRY(rois);
  DLC_TRY(batch);
  auto ctm = n.stringAttr("coordinate_transformation_mode", "half_pixel");
  auto mode = n.stringAttr("mode", "avg");
  auto oh = n.intAttr("output_height", 1), ow = n.intAttr("output_width", 1),
       ratio = n.intAttr("sampling_ratio", 0);
  auto scale = n.floatAttr("spatial_scale", 1.0f);
  DLC_TRY(ctm);
  DLC_TRY(mode);
  DLC_TRY(oh);
  DLC_TRY(ow);
  DLC_TRY(ratio);
  DLC_TRY(scale);
  if (n.opset < 16)
    *ctm = "output_half_pixel"; // before opset 16 ROIs were not shifted by half a pixel
  if (*ctm != "half_pixel" && *ctm != "output_half_pixel")
    return n.error("coordinate_transformation_mode must be half_pixel or output_half_pixel");
  if (*mode != "avg" && *mode != "max")
    return n.error("mode must be avg or max, got '" + *mode + "'");
  auto xt = tensorType(*x), rt = tensorType(*rois), bt = tensorType(*batch);
  if (xt.getRank() != 4 || !isa<FloatType>(xt.getElementType()) || rt.getRank() != 2 ||
      rt.getDimSize(1) != 4 || bt.getRank() != 1 || bt.getDimSize(0) != rt.getDimSize(0) ||
      !isa<IntegerType>(bt.getElementType()))
    return n.error("expects X [N, C, H, W], rois [R, 4] and integer batch_indices [R]");
  if (*oh < 1 || *ow < 1 || *ratio < 0)
    return n.error("output_height/width must be positive and sampling_ratio non-negative");
  bool halfPixel = *ctm == "half_pixel";
  double offset = halfPixel ? 0.5 : 0.0;
  int64_t R = rt.getDimSize(0), C = xt.getDimSize(1), H = xt.getDimSize(2), W = xt.getDimSize(3);
  // The sample grid per bin: fixed, or bounded by the largest ROI when known.
  int64_t gh = *ratio, gw = *ratio;
  if (*ratio == 0) {
    DenseElementsAttr known = n.knownInput(1);
    if (!known)
      return n.error("sampling_ratio 0 (adaptive) needs the rois known at compile time");
    if (!isa<FloatType>(known.getElementType()))
      return n.error("rois must be floating-point");
    gh = gw = 1;
    SmallVector<double> v;
    for (const APFloat &f : known.getValues<APFloat>())
      v.push_back(f.convertToDouble());
    for (int64_t r = 0; r < R; ++r) {
      double rw = (v[4 * r + 2] - v[4 * r]) * *scale, rh = (v[4 * r + 3] - v[4 * r + 1]) * *scale;
      if (!halfPixel) {
        rw = std::max(rw, 1.0);
        rh = std::max(rh, 1.0);
      }
      double gy = std::ceil(rh / *oh), gx = std::ceil(rw / *ow); // NaN, inf: bad rois
      if (!std::isfinite(gy) || !std::isfinite(gx) || gy > (1 << 22) || gx > (1 << 22))
        return n.error("the adaptive sampling grid is too large");
      gh = std::max<int64_t>(gh, (int64_t)std::max(gy, 1.0));
      gw = std::max<int64_t>(gw, (int64_t)std::max(gx, 1.0));
    }
    if ((double)gh * gw * *oh * *ow > (1 << 22))
      return n.error("the adaptive sampling grid is too large");
  }
  Type elt = xt.getElementType(), f = elt.isF64() ? elt : n.b.getF32Type(), i64 = n.b.getI64Type();
  // The sample grid [OH, OW, GH, GW] and the flattened map (bounded by no tensor when R = 0).
  auto HW = n.product({H, W}, "the feature map size");
  DLC_TRY(HW);
  if (failed(n.checkShape({*oh, *ow, gh, gw}, f, "the sampling grid")))
    return failure();
  Expr e{n, f};
  auto iota = [&](int64_t count, ArrayRef<int64_t> shape, double add) {
    SmallVector<double> v;
    for (int64_t i = 0; i < count; ++i)
      v.push_back(i + add);
    Value c = n.constant(DenseElementsAttr::get(RankedTensorType::get({count}, n.b.getF64Type()),
                                                ArrayRef<double>(v)));
    return e.reshape(e.cast(c, f), shape);
  };
  // Per-ROI scalars as [R, 1, 1, 1, 1]; sample dims [R, OH, OW, GH, GW].
  Value rf = e.cast(*rois, f);
  auto coord = [&](int64_t k) {
    Value c = e.slice(rf, {0, k}, {R, 1}, {1, 1});
    return e.op<SubOp>({e.op<MulOp>({e.reshape(c, {R, 1, 1, 1, 1}), e.c(*scale)}), e.c(offset)});
  };
  Value x0 = coord(0), y0 = coord(1);
  Value rw = e.op<SubOp>({coord(2), x0}), rh = e.op<SubOp>({coord(3), y0});
  if (!halfPixel) {
    rw = e.op<MaxOp>({rw, e.c(1)});
    rh = e.op<MaxOp>({rh, e.c(1)});
  }
  Value binH = e.op<DivOp>({rh, e.c((double)*oh)}), binW = e.op<DivOp>({rw, e.c((double)*ow)});
  Value gridH = *ratio ? e.c((double)gh) : e.op<CeilOp>({binH});
  Value gridW = *ratio ? e.c((double)gw) : e.op<CeilOp>({binW});
  Value iy = iota(gh, {1, 1, 1, gh, 1}, 0), ix = iota(gw, {1, 1, 1, 1, gw}, 0);
  Value yy = e.op<AddOp>({e.op<AddOp>({y0, e.op<MulOp>({iota(*oh, {1, *oh, 1, 1, 1}, 0), binH})}),
                          e.op<DivOp>({e.op<MulOp>({e.op<AddOp>({iy, e.c(0.5)}), binH}), gridH})});
  Value xx = e.op<AddOp>({e.op<AddOp>({x0, e.op<MulOp>({iota(*ow, {1, 1, *ow, 1, 1}, 0), binW})}),
                          e.op<DivOp>({e.op<MulOp>({e.op<AddOp>({ix, e.c(0.5)}), binW}), gridW})});
  // Samples outside [-1, size] weigh 0; others clamp to the map (the last row/column
  // interpolates with itself).
  auto inside = [&](Value v, int64_t size) {
    return e.op<AndOp>({e.op<GreaterEqualOp>({v, e.c(-1)}), e.op<LessEqualOp>({v, e.c((double)size)})});
  };
  Value valid = e.op<AndOp>({inside(yy, H), inside(xx, W)});
  if (!*ratio) // samples beyond this ROI's own grid do not exist
    valid = e.op<AndOp>({valid, e.op<AndOp>({e.op<LessOp>({iy, gridH}), e.op<LessOp>({ix, gridW})})});
  struct Axis {
    Value lo, hi, frac;
  };
  auto axis = [&](Value v, int64_t size) {
    v = e.op<MaxOp>({v, e.c(0)});
    Value lo = e.op<FloorOp>({v});
    Value edge = e.op<GreaterEqualOp>({lo, e.c((double)size - 1)});
    lo = e.where(edge, e.c((double)size - 1), lo);
    Value hi = e.where(edge, lo, e.op<AddOp>({lo, e.c(1)}));
    v = e.where(edge, lo, v);
    return Axis{lo, hi, e.op<SubOp>({v, lo})};
  };
  Axis ay = axis(yy, H), ax = axis(xx, W);
  Value zero = e.c(0), one = e.c(1);
  auto weight = [&](Value wy, Value wx) { return e.where(valid, e.op<MulOp>({wy, wx}), zero); };
  Value hy = e.op<SubOp>({one, ay.frac}), hx = e.op<SubOp>({one, ax.frac});
  SmallVector<int64_t> sampleShape = {R, *oh, *ow, gh, gw};
  int64_t P = *oh * *ow * gh * gw;
  // The ROIs' images [R, C, H*W], then each neighbour gathered at [R, C, P].
  Value images = e.reshape(e.op<GatherOp>({*x, *batch}, {n.named("axis", n.b.getI64IntegerAttr(0))}),
                           {R, C, *HW});
  Value data = e.cast(images, f);
  auto corner = [&](Value py, Value px, Value w) {
    Value pos = e.op<AddOp>({e.op<MulOp>({py, e.c((double)W)}), px});
    Value full = e.op<ExpandOp>({pos}, {}, {RankedTensorType::get(sampleShape, f)});
    Value idx = e.op<ExpandOp>({e.reshape(e.cast(full, i64), {R, 1, P})}, {},
                               {RankedTensorType::get({R, C, P}, i64)});
    Value v = e.op<GatherElementsOp>({data, idx}, {n.named("axis", n.b.getI64IntegerAttr(2))});
    Value wf = e.reshape(e.op<ExpandOp>({w}, {}, {RankedTensorType::get(sampleShape, f)}), {R, 1, P});
    return e.op<MulOp>({wf, v}); // [R, C, P]
  };
  Value c1 = corner(ay.lo, ax.lo, weight(hy, hx)), c2 = corner(ay.lo, ax.hi, weight(hy, ax.frac));
  Value c3 = corner(ay.hi, ax.lo, weight(ay.frac, hx)), c4 = corner(ay.hi, ax.hi, weight(ay.frac, ax.frac));
  SmallVector<int64_t> binShape = {R, C, *oh, *ow, gh * gw};
  Value y;
  if (*mode == "avg") {
    Value sum = e.op<AddOp>({e.op<AddOp>({c1, c2}), e.op<AddOp>({c3, c4})});
    Value total = e.reduce<ReduceSumOp>(e.reshape(sum, binShape), {4}, false);
    Value count = e.op<MaxOp>({e.op<MulOp>({gridH, gridW}), one}); // [R,1,1,1,1] or scalar
    if (!*ratio)
      count = e.reshape(count, {R, 1, 1, 1});
    y = e.op<DivOp>({total, count});
  } else {
    Value m = e.op<MaxOp>({e.op<MaxOp>({c1, c2}), e.op<MaxOp>({c3, c4})});
    if (!*ratio) { // samples outside this ROI's grid take no part in the max
      Value exists = e.op<AndOp>({e.op<LessOp>({iy, gridH}), e.op<LessOp>({ix, gridW})});
      Value ex = e.reshape(e.op<ExpandOp>({exists}, {}, {RankedTensorType::get(sampleShape, n.b.getI1Type())}),
                           {R, 1, P});
      m = e.where(ex, m, e.c(-INFINITY));
    }
    y = e.reduce<ReduceMaxOp>(e.reshape(m, binShape), {4}, false);
  }
  y = e.cast(y, elt);
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

} // namespace dlc::onnx_frontend
