// ONNX DeformConv (2-D) as ONNX's reference defines it: every kernel tap samples the
// input bilinearly (zero outside the map) at its regular position plus a learned
// offset (per offset group), scaled by the optional mask; the sampled columns
// [N, C * kh * kw, OH * OW] are then contracted with the weights per conv group.
#include "frontends/Onnx/Expr.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {

LogicalResult deformConv(NodeImporter &n, SmallVectorImpl<Value> &out) {
  auto x = n.requiredInput(0), w = n.requiredInput(1), offset = n.requiredInput(2);
  DLC_TRY(x);
  DLC_TRY(w);
  DLC_TRY(offset);
  Value bias = n.input(3), mask = n.input(4);
  auto xt = tensorType(*x), wt = tensorType(*w), ot = tensorType(*offset);
  if (xt.getRank() != 4 || wt.getRank() != 4 || ot.getRank() != 4 ||
      !isa<FloatType>(xt.getElementType()))
    return n.error("only 2-D DeformConv is supported (X [N, C, H, W], W [OC, C/group, kh, kw])");
  auto group = n.intAttr("group", 1), offsetGroup = n.intAttr("offset_group", 1);
  auto strides = n.intsAttr("strides", {1, 1}), dil = n.intsAttr("dilations", {1, 1}),
       pads = n.intsAttr("pads", {0, 0, 0, 0}), kernel = n.intsAttr("kernel_shape", wt.getShape().drop_front(2));
  DLC_TRY(group);
  DLC_TRY(offsetGroup);
  DLC_TRY(strides);
  DLC_TRY(dil);
  DLC_TRY(pads);
  DLC_TRY(kernel);
  int64_t N = xt.getDimSize(0), C = xt.getDimSize(1), H = xt.getDimSize(2), W = xt.getDimSize(3);
  int64_t OC = wt.getDimSize(0), kh = wt.getDimSize(2), kw = wt.getDimSize(3);
  int64_t G = *group, OG = *offsetGroup;
  if (strides->size() != 2 || dil->size() != 2 || pads->size() != 4 ||
      ArrayRef<int64_t>(*kernel) != wt.getShape().drop_front(2))
    return n.error("expects 2 strides and dilations, 4 pads, and kernel_shape matching W");
  if (llvm::any_of(llvm::concat<const int64_t>(*strides, *dil), [](int64_t v) { return v < 1; }) ||
      llvm::any_of(*pads, [](int64_t p) { return p < 0; }))
    return n.error("strides and dilations must be positive and pads non-negative");
  if (G < 1 || OG < 1 || C % G || OC % G || wt.getDimSize(1) != C / G || C % OG)
    return n.error("channels do not split into the groups and offset groups");
  int64_t OH = ot.getDimSize(2), OW = ot.getDimSize(3);
  // Sizes from attributes and dims of possibly empty tensors: checked for overflow.
  auto Kc = n.product({kh, kw}, "the kernel size"), Pc = n.product({OH, OW}, "the output size");
  auto HW = n.product({H, W}, "the input size"), CK = n.product({C / G, kh, kw}, "the columns");
  DLC_TRY(Kc);
  DLC_TRY(Pc);
  DLC_TRY(HW);
  DLC_TRY(CK);
  int64_t K = *Kc, P = *Pc;
  auto outDim = [&](int64_t in, int64_t padA, int64_t padB, int64_t k, int64_t d, int64_t s) {
    return (I64c(in) + padA + padB - ((I64c(k) - 1) * d + 1)) / s + 1;
  };
  I64c offsetC = I64c(OG) * K * 2, expH = outDim(H, (*pads)[0], (*pads)[2], kh, (*dil)[0], (*strides)[0]),
       expW = outDim(W, (*pads)[1], (*pads)[3], kw, (*dil)[1], (*strides)[1]);
  if (!offsetC.ok() || !expH.ok() || !expW.ok())
    return n.error("kernel, pads or dilations overflow int64");
  if (ot.getDimSize(0) != N || ot.getDimSize(1) != offsetC.value() || OH != expH.value() ||
      OW != expW.value())
    return n.error("offset shape does not match the offset groups, kernel and output size");
  // The constant tap grids [kh, kw, OH, OW] (an empty batch leaves them unbounded).
  if (failed(n.checkShape({kh, kw, OH, OW}, n.b.getF64Type(), "the sampling grid")))
    return failure();
  if (mask && ArrayRef<int64_t>(tensorType(mask).getShape()) != ArrayRef<int64_t>{N, OG * K, OH, OW})
    return n.error("mask shape does not match the offset groups, kernel and output size");
  Type elt = xt.getElementType(), i64 = n.b.getI64Type();
  Expr e{n, elt};
  // Regular tap positions [1, 1, kh, kw, OH, OW] for y and x.
  auto grid = [&](bool isY) {
    SmallVector<double> v;
    for (int64_t a = 0; a < kh; ++a)
      for (int64_t b = 0; b < kw; ++b)
        for (int64_t i = 0; i < OH; ++i)
          for (int64_t j = 0; j < OW; ++j)
            v.push_back(isY ? -(*pads)[0] + (*strides)[0] * i + a * (*dil)[0]
                            : -(*pads)[1] + (*strides)[1] * j + b * (*dil)[1]);
    Value c = n.constant(DenseElementsAttr::get(
        RankedTensorType::get({1, 1, kh, kw, OH, OW}, n.b.getF64Type()), ArrayRef<double>(v)));
    return e.cast(c, elt);
  };
  Value off = e.reshape(*offset, {N, OG, kh, kw, 2, OH, OW});
  auto offsetPart = [&](int64_t i) {
    Value s = e.slice(off, {0, 0, 0, 0, i, 0, 0}, {N, OG, kh, kw, 1, OH, OW}, {1, 1, 1, 1, 1, 1, 1});
    return e.reshape(s, {N, OG, kh, kw, OH, OW});
  };
  Value py = e.op<AddOp>({grid(true), offsetPart(0)}), px = e.op<AddOp>({grid(false), offsetPart(1)});
  Value y0 = e.op<FloorOp>({py}), x0 = e.op<FloorOp>({px});
  Value ly = e.op<SubOp>({py, y0}), lx = e.op<SubOp>({px, x0});
  Value one = e.c(1), zero = e.c(0);
  Value hy = e.op<SubOp>({one, ly}), hx = e.op<SubOp>({one, lx});
  // Data per offset group [N, OG, C/OG, H*W]; each corner gathered at [N, OG, C/OG, K*P].
  int64_t CG = C / OG;
  Value data = e.reshape(*x, {N, OG, CG, *HW});
  SmallVector<int64_t> tapShape = {N, OG, kh, kw, OH, OW};
  auto corner = [&](Value cy, Value cx, Value wgt) {
    Value inY = e.op<AndOp>({e.op<GreaterEqualOp>({cy, zero}), e.op<LessEqualOp>({cy, e.c((double)H - 1)})});
    Value inX = e.op<AndOp>({e.op<GreaterEqualOp>({cx, zero}), e.op<LessEqualOp>({cx, e.c((double)W - 1)})});
    Value valid = e.op<AndOp>({inY, inX});
    Value sy = e.op<MinOp>({e.op<MaxOp>({cy, zero}), e.c((double)H - 1)});
    Value sx = e.op<MinOp>({e.op<MaxOp>({cx, zero}), e.c((double)W - 1)});
    Value pos = e.cast(e.op<AddOp>({e.op<MulOp>({sy, e.c((double)W)}), sx}), i64);
    Value idx = e.op<ExpandOp>({e.reshape(pos, {N, OG, 1, K * P})}, {},
                               {RankedTensorType::get({N, OG, CG, K * P}, i64)});
    Value v = e.op<GatherElementsOp>({data, idx}, {n.named("axis", n.b.getI64IntegerAttr(3))});
    Value wv = e.reshape(e.where(valid, wgt, zero), {N, OG, 1, K * P});
    return e.op<MulOp>({v, wv});
  };
  Value y1 = e.op<AddOp>({y0, one}), x1 = e.op<AddOp>({x0, one});
  Value sampled = e.op<AddOp>({e.op<AddOp>({corner(y0, x0, e.op<MulOp>({hy, hx})),
                                            corner(y0, x1, e.op<MulOp>({hy, lx}))}),
                               e.op<AddOp>({corner(y1, x0, e.op<MulOp>({ly, hx})),
                                            corner(y1, x1, e.op<MulOp>({ly, lx}))})});
  if (mask)
    sampled = e.op<MulOp>({sampled, e.reshape(mask, {N, OG, 1, K * P})});
  // Columns [N, G, C/G * K, P] times weights [G, OC/G, C/G * K].
  Value cols = e.reshape(sampled, {N, G, *CK, P});
  Value wg = e.reshape(*w, {1, G, OC / G, *CK});
  Value y = e.reshape(e.op<MatMulOp>({wg, cols}), {N, OC, OH, OW});
  if (bias)
    y = e.op<AddOp>({y, e.reshape(bias, {1, OC, 1, 1})});
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

} // namespace dlc::onnx_frontend
