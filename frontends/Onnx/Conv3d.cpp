// 3-D convolution (Conv and ConvTranspose over [N, C, D, H, W]) as one 2-D dlc_graph conv:
// the depth taps are stacked into channels, the output depths become batch rows.
#include "frontends/Onnx/Conv3d.h"

#include "frontends/Onnx/Expr.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {

LogicalResult checkConv3dShapes(NodeImporter &n, RankedTensorType xt, RankedTensorType wt,
                                int64_t group) {
  int64_t c = xt.getDimSize(1), f = wt.getDimSize(0);
  if (group < 1 || c % group || f % group || wt.getDimSize(1) != c / group)
    return n.error("weight [" + Twine(f) + ", " + Twine(wt.getDimSize(1)) +
                   ", ...] does not fit " + Twine(c) + " input channels in " + Twine(group) +
                   " groups");
  return success();
}

/// Output depth OD of a conv over depth D (pads already applied), or 0 when the window
/// does not fit.
static int64_t outDepth(int64_t d, int64_t k, int64_t stride, int64_t dil) {
  int64_t reach = (k - 1) * dil + 1;
  return d < reach ? 0 : (d - reach) / stride + 1;
}

// With x [N, C, D, H, W] and w [F, Cg, KD, KH, KW] (Cg = C / g):
//   x'  = transpose(pad_D(x)) : [N, Dp, C, H, W]
//   tap kd = x'[:, kd*dd :: sd][:OD] viewed [N, OD, g, 1, Cg, H*W]; the KD taps concatenated
//        on axis 3 and viewed [N*OD, g*KD*Cg, H, W]: group-major, then tap, then channel;
//   w'  = w transposed to [F, KD, Cg, KH, KW], viewed [F, KD*Cg, KH, KW] (the same order
//        within a group);
//   y'  = conv2d(x', w', bias) over (H, W) : [N*OD, F, OH, OW] -> [N, F, OD, OH, OW].
// The reduction of one output is the 3-D conv's (KD*Cg*KH*KW terms), as one GEMM-shaped conv.
FailureOr<Value> conv3dAs2d(NodeImporter &n, Value x, Value w, Value bias,
                            ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                            ArrayRef<int64_t> dilations, int64_t group) {
  auto xt = tensorType(x), wt = tensorType(w);
  DLC_TRY(checkConv3dShapes(n, xt, wt, group));
  int64_t N = xt.getDimSize(0), C = xt.getDimSize(1), H = xt.getDimSize(3),
          W = xt.getDimSize(4);
  int64_t F = wt.getDimSize(0), Cg = C / group, KD = wt.getDimSize(2), KH = wt.getDimSize(3),
          KW = wt.getDimSize(4);
  int64_t sd = strides[0], dd = dilations[0];
  int64_t Dp = xt.getDimSize(2) + pads[0] + pads[3];
  int64_t OD = outDepth(Dp, KD, sd, dd);
  if (KD < 1 || OD < 1)
    return n.error("the kernel's depth " + Twine(KD) + " (dilation " + Twine(dd) +
                   ") does not fit the padded input depth " + Twine(Dp));
  // The merged dims below (a zero dim elsewhere leaves them unbounded).
  auto NOD = n.product({N, OD}, "batch x output depth");
  auto HW = n.product({H, W}, "height x width");
  auto KDC = n.product({KD, C}, "kernel depth x channels");
  DLC_TRY(NOD);
  DLC_TRY(HW);
  DLC_TRY(KDC);
  Expr e{n, xt.getElementType()};
  Value xp = x;
  if (pads[0] || pads[3])
    xp = e.pad(x, {0, 0, pads[0], 0, 0, 0, 0, pads[3], 0, 0});
  Value xd = e.transpose(xp, {0, 2, 1, 3, 4}); // [N, Dp, C, H, W]
  SmallVector<Value> taps;
  for (int64_t kd = 0; kd < KD; ++kd) {
    Value tap = xd;
    if (!(kd == 0 && sd == 1 && OD == Dp))
      tap = e.slice(xd, {0, kd * dd, 0, 0, 0}, {N, OD, C, H, W}, {1, sd, 1, 1, 1});
    taps.push_back(e.reshape(tap, {N, OD, group, 1, Cg, *HW}));
  }
  Value stacked = taps.front();
  if (KD > 1) {
    if (e.failed)
      return failure();
    auto cat = n.create<ConcatOp>(taps, {n.named("axis", n.b.getI64IntegerAttr(3))});
    DLC_TRY(cat);
    stacked = *cat;
  }
  Value x2 = e.reshape(stacked, {*NOD, *KDC, H, W});
  Value w2 = e.reshape(e.transpose(w, {0, 2, 1, 3, 4}), {F, KD * Cg, KH, KW});
  if (e.failed)
    return failure();
  SmallVector<Value> operands = {x2, w2};
  if (bias)
    operands.push_back(bias);
  auto y = n.create<ConvOp>(
      operands,
      {n.named("strides", n.b.getDenseI64ArrayAttr({strides[1], strides[2]})),
       n.named("pads", n.b.getDenseI64ArrayAttr({pads[1], pads[2], pads[4], pads[5]})),
       n.named("dilations", n.b.getDenseI64ArrayAttr({dilations[1], dilations[2]})),
       n.named("group", n.b.getI64IntegerAttr(group))});
  DLC_TRY(y);
  auto yt = tensorType(*y);
  int64_t OH = yt.getDimSize(2), OW = yt.getDimSize(3);
  auto OHW = n.product({OH, OW}, "output height x width");
  DLC_TRY(OHW);
  Value r = e.reshape(*y, {N, OD, F, *OHW});
  r = e.reshape(e.transpose(r, {0, 2, 1, 3}), {N, F, OD, OH, OW});
  if (e.failed)
    return failure();
  return r;
}

} // namespace dlc::onnx_frontend
