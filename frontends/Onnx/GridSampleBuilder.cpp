// ONNX GridSample (2-D and volumetric) as elementwise coordinate math plus GatherElements
// of the neighbours from the flattened input, following ONNX's reference: denormalize,
// (nearest: round half to even), out-of-range handling by padding mode, then nearest /
// linear / cubic interpolation with per-neighbour padding (zeros, border, reflection).
#include "frontends/Onnx/Expr.h"

#include <cmath>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {

LogicalResult roiAlign(NodeImporter &n, SmallVectorImpl<Value> &out); // RoiAlignBuilder.cpp

namespace {

using Results = SmallVectorImpl<Value>;

struct Sampler {
  Expr &e;
  std::string padding;
  bool alignCorners;

  /// Reflects v into [lo, hi] by folding at the borders (float arithmetic; `lo`, `hi`
  /// 0-d, from the dim's size).
  Value reflect(Value v, Value lo, Value hi) {
    Value rng = e.op<SubOp>({hi, lo});
    auto fold = [&](Value dx, bool below) {
      Value k = e.op<FloorOp>({e.op<DivOp>({dx, rng})});
      Value r = e.op<SubOp>({dx, e.op<MulOp>({k, rng})});
      Value even = e.op<EqualOp>({e.op<SubOp>({k, e.op<MulOp>({e.c(2), e.op<FloorOp>({e.op<DivOp>({k, e.c(2)})})})}),
                                  e.c(0)});
      Value nearLo = e.op<AddOp>({lo, r}), nearHi = e.op<SubOp>({hi, r});
      return below ? e.where(even, nearLo, nearHi) : e.where(even, nearHi, nearLo);
    };
    Value below = e.op<LessOp>({v, lo}), above = e.op<GreaterOp>({v, hi});
    Value fromLo = fold(e.op<SubOp>({lo, v}), true);
    Value fromHi = fold(e.op<SubOp>({v, hi}), false);
    Value folded = e.where(below, fromLo, e.where(above, fromHi, v));
    // A one-pixel axis: everything maps to 0 + lo.
    return e.where(e.op<LessEqualOp>({rng, e.c(0)}), e.op<MulOp>({v, e.c(0)}), folded);
  }

  Value borderLo(Value) { return e.c(alignCorners ? 0.0 : -0.5); }
  Value borderHi(Value dim) { return e.op<SubOp>({dim, e.c(alignCorners ? 1.0 : 0.5)}); }

  /// An integer-valued float index along a dim of size `dim` (0-d float) with the padding
  /// mode applied: returns (clamped index, validity as 0/1 float).
  std::pair<Value, Value> pixel(Value i, Value dim) {
    Value one = e.c(1), last = e.op<SubOp>({dim, one});
    if (padding == "zeros") {
      Value ok = e.op<AndOp>({e.op<GreaterEqualOp>({i, e.c(0)}), e.op<LessOp>({i, dim})});
      Value clamped = e.op<MaxOp>({e.op<MinOp>({i, last}), e.c(0)});
      return {clamped, e.where(ok, one, e.c(0))};
    }
    if (padding == "border")
      return {e.op<MaxOp>({e.op<MinOp>({i, last}), e.c(0)}), one};
    // reflection: int() of the reflected float index (truncation toward zero)
    Value rfl = reflect(i, borderLo(dim), borderHi(dim));
    Value t = e.where(e.op<LessOp>({rfl, e.c(0)}), e.op<CeilOp>({rfl}), e.op<FloorOp>({rfl}));
    return {e.op<MaxOp>({e.op<MinOp>({t, last}), e.c(0)}), one};
  }
};

/// Keys' cubic convolution weights (A = -0.75) for the 4 taps around fraction t.
std::array<Value, 4> cubicWeights(Expr &e, Value t) {
  const double A = -0.75;
  Value t1 = e.op<AddOp>({t, e.c(1)}), u = e.op<SubOp>({e.c(1), t}), u1 = e.op<SubOp>({e.c(2), t});
  auto far = [&](Value x) { // ((A(x) - 5A)x + 8A)x - 4A
    return e.op<SubOp>({e.op<MulOp>({e.op<AddOp>({e.op<MulOp>({e.op<SubOp>({e.op<MulOp>({e.c(A), x}), e.c(5 * A)}), x}), e.c(8 * A)}), x}),
                        e.c(4 * A)});
  };
  auto near = [&](Value x) { // ((A+2)x - (A+3)) x^2 + 1
    return e.op<AddOp>({e.op<MulOp>({e.op<SubOp>({e.op<MulOp>({e.c(A + 2), x}), e.c(A + 3)}), e.op<MulOp>({x, x})}), e.c(1)});
  };
  return {far(t1), near(t), near(u), far(u1)};
}

LogicalResult gridSample(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0), grid = n.requiredInput(1);
  auto modeAttr = n.stringAttr("mode", n.opset >= 20 ? "linear" : "bilinear");
  auto padding = n.stringAttr("padding_mode", "zeros");
  auto align = n.intAttr("align_corners", 0);
  DLC_TRY(x);
  DLC_TRY(grid);
  DLC_TRY(modeAttr);
  DLC_TRY(padding);
  DLC_TRY(align);
  std::string mode = *modeAttr == "bilinear" ? "linear" : *modeAttr == "bicubic" ? "cubic" : *modeAttr;
  if (mode != "linear" && mode != "nearest" && mode != "cubic")
    return n.error("unsupported mode '" + *modeAttr + "'");
  if (*padding != "zeros" && *padding != "border" && *padding != "reflection")
    return n.error("unsupported padding_mode '" + *padding + "'");
  auto xt = tensorType(*x), gt = tensorType(*grid);
  int64_t sp = xt.getRank() - 2;
  Type elt = xt.getElementType();
  if ((sp != 2 && sp != 3) || gt.getRank() != sp + 2 ||
      (!gt.isDynamicDim(sp + 1) && gt.getDimSize(sp + 1) != sp) || !isa<FloatType>(elt) ||
      (gt.getDimSize(0) != xt.getDimSize(0) && !gt.isDynamicDim(0) && !xt.isDynamicDim(0)))
    return n.error("expects X [N, C, spatial...] (2-D or 3-D) and grid [N, out..., spatial rank]");
  if (mode == "cubic" && sp != 2)
    return n.error("cubic interpolation is only defined for 2-D inputs");
  // Sizes: symbolic for dynamic dims (dlc compile --dims).
  auto xs = n.sizesOf(*x), gs = n.sizesOf(*grid);
  if (!xs || !gs)
    return n.error("the sizes of the inputs' dynamic dims are not known here");
  SymbolicSize N = (*xs)[0], C = (*xs)[1];
  SmallVector<SymbolicSize> dims(xs->begin() + 2, xs->end()), outSp(gs->begin() + 1,
                                                                      gs->begin() + 1 + sp);
  // Flattened output and input sizes (an empty batch or channel dim leaves them unbounded).
  if (xt.hasStaticShape() && gt.hasStaticShape()) {
    auto Pc = n.product(gt.getShape().slice(1, sp), "the output size");
    auto Sc = n.product(xt.getShape().drop_front(2), "the input size");
    DLC_TRY(Pc);
    DLC_TRY(Sc);
  }
  SymbolicSize P = sizeProduct(outSp), S = sizeProduct(dims);
  Expr e{n, elt};
  Sampler smp{e, *padding, *align != 0};
  SmallVector<Value> len(sp);
  for (int64_t d = 0; d < sp; ++d) {
    auto size = n.dimSize(*x, 2 + d);
    DLC_TRY(size);
    len[d] = e.cast(*size, elt);
  }
  // Coordinates per spatial dim (grid's last axis is x, y[, z]: reversed to dim order).
  auto g = n.reshapeTo(*grid, {N, P, SymbolicSize::constant(sp)});
  DLC_TRY(g);
  SmallVector<Value> coord(sp);
  for (int64_t d = 0; d < sp; ++d) {
    int64_t comp = sp - 1 - d;
    Value gd = e.op<GatherOp>({*g, n.intConstant(n.b.getI64Type(), comp)},
                              {n.named("axis", n.b.getI64IntegerAttr(2))}); // [N, P]
    Value one = e.c(1), up = e.op<AddOp>({gd, one});
    Value v = *align ? e.op<MulOp>({up, e.op<DivOp>({e.op<SubOp>({len[d], one}), e.c(2)})})
                     : e.op<DivOp>({e.op<SubOp>({e.op<MulOp>({up, len[d]}), one}), e.c(2)});
    if (mode == "nearest")
      v = e.op<RoundOp>({v});
    Value lo = smp.borderLo(len[d]), hi = smp.borderHi(len[d]);
    Value outside = e.op<OrOp>({e.op<LessOp>({v, lo}), e.op<GreaterOp>({v, hi})});
    if (*padding == "border")
      v = e.where(outside, e.op<MaxOp>({e.op<MinOp>({v, e.op<SubOp>({len[d], one})}), e.c(0)}), v);
    else if (*padding == "reflection")
      v = e.where(outside, smp.reflect(v, lo, hi), v);
    coord[d] = v;
  }
  // Taps per dim: (float index, weight).
  SmallVector<SmallVector<std::pair<Value, Value>>> taps(sp);
  for (int64_t d = 0; d < sp; ++d) {
    if (mode == "nearest") {
      taps[d].push_back({coord[d], e.c(1)});
      continue;
    }
    Value i0 = e.op<FloorOp>({coord[d]}), t = e.op<SubOp>({coord[d], i0});
    if (mode == "linear") {
      taps[d].push_back({i0, e.op<SubOp>({e.c(1), t})});
      taps[d].push_back({e.op<AddOp>({i0, e.c(1)}), t});
    } else {
      auto w = cubicWeights(e, t);
      for (int64_t k = 0; k < 4; ++k)
        taps[d].push_back({e.op<AddOp>({i0, e.c(k - 1.0)}), w[k]});
    }
  }
  if (e.failed)
    return failure();
  auto flatX = n.reshapeTo(*x, {N, C, S});
  DLC_TRY(flatX);
  Type i64 = n.b.getI64Type();
  Value acc;
  SmallVector<int64_t> pick(sp, 0);
  SymbolicSize one = SymbolicSize::constant(1);
  while (true) {
    Value idx = e.c(0), weight = e.c(1);
    for (int64_t d = 0; d < sp; ++d) {
      auto [fi, w] = taps[d][pick[d]];
      auto [clamped, valid] = smp.pixel(fi, len[d]);
      idx = e.op<AddOp>({e.op<MulOp>({idx, len[d]}), clamped});
      weight = e.op<MulOp>({weight, e.op<MulOp>({w, valid})});
    }
    if (e.failed)
      return failure();
    if (tensorType(weight).getRank() == 0) // every tap valid (border, reflection, nearest)
      weight = e.op<AddOp>({weight, e.op<MulOp>({idx, e.c(0)})});
    if (e.failed)
      return failure();
    auto row = n.reshapeTo(e.cast(idx, i64), {N, one, P});
    DLC_TRY(row);
    auto ii = n.expandTo(*row, {N, C, P});
    auto wr = n.reshapeTo(weight, {N, one, P});
    DLC_TRY(ii);
    DLC_TRY(wr);
    Value vals = e.op<GatherElementsOp>({*flatX, *ii}, {n.named("axis", n.b.getI64IntegerAttr(2))});
    Value term = e.op<MulOp>({vals, *wr});
    acc = acc ? e.op<AddOp>({acc, term}) : term;
    if (e.failed)
      return failure();
    int64_t d = sp - 1;
    while (d >= 0 && ++pick[d] == (int64_t)taps[d].size())
      pick[d--] = 0;
    if (d < 0)
      break;
  }
  SmallVector<SymbolicSize> shape = {N, C};
  llvm::append_range(shape, outSp);
  auto y = n.reshapeTo(acc, shape);
  DLC_TRY(y);
  out.push_back(*y);
  return success();
}

const OpBuilderEntry kGridSample[] = {
    {"GridSample", 16, gridSample},
    {"RoiAlign", 10, roiAlign},
};

} // namespace

ArrayRef<OpBuilderEntry> gridSampleBuilders() { return kGridSample; }

} // namespace dlc::onnx_frontend
