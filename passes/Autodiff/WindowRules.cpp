// Gradient rules of sliding-window dlc_graph ops: convolution, max and average pooling (NCHW).
#include "passes/Autodiff/GradientBuilder.h"

#include "dialects/Interfaces/Differentiable.h"

#include <limits>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::autodiff {
namespace {

RankedTensorType withShape(Value v, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, tensorTypeOf(v).getElementType());
}

Value pad(OpBuilder &b, Location l, Value v, ArrayRef<int64_t> pads, double value = 0.0) {
  if (llvm::all_of(pads, [](int64_t p) { return p == 0; }))
    return v;
  return PadOp::create(b, l, v, b.getDenseI64ArrayAttr(pads), b.getStringAttr("constant"),
                       b.getF64FloatAttr(value));
}

Value transpose01(OpBuilder &b, Location l, Value v) {
  return TransposeOp::create(b, l, v, ArrayRef<int64_t>{1, 0, 2, 3});
}

/// [N, C, H, W] -> [N, C, H*sh, W*sw] with v[n, c, i, j] at (i*sh, j*sw), zeros elsewhere.
Value dilate(OpBuilder &b, Location l, Value v, int64_t sh, int64_t sw) {
  if (sh == 1 && sw == 1)
    return v;
  auto s = tensorTypeOf(v).getShape();
  Value r = ReshapeOp::create(b, l, withShape(v, {s[0], s[1], s[2], 1, s[3], 1}), v);
  r = pad(b, l, r, {0, 0, 0, 0, 0, 0, 0, 0, 0, sh - 1, 0, sw - 1});
  return ReshapeOp::create(b, l, withShape(v, {s[0], s[1], s[2] * sh, s[3] * sw}), r);
}

/// The strided view of window offset (offH, offW): [N, C, OH, OW].
Value windowSlice(OpBuilder &b, Location l, Value x, int64_t offH, int64_t offW, int64_t sh,
                  int64_t sw, int64_t oh, int64_t ow) {
  auto s = tensorTypeOf(x).getShape();
  return SliceOp::create(b, l, x, ArrayRef<int64_t>{0, 0, offH, offW},
                         ArrayRef<int64_t>{s[0], s[1], oh, ow}, ArrayRef<int64_t>{1, 1, sh, sw});
}

/// y = conv(x, w) + bias, NCHW / FCHW, one group:
///   dbias = sum of dy over n, oh, ow;
///   dw    = conv(x as [C, N, H, W], dy as [F, N, OH, OW]) with stride and dilation swapped;
///   dx    = conv(dy dilated by the stride and padded, w flipped as [C, F, KH, KW]).
struct ConvVjp : DifferentiableOpInterface::ExternalModel<ConvVjp, ConvOp> {
  LogicalResult buildVjp(Operation *op, OpBuilder &b, ArrayRef<Value> gys,
                         SmallVectorImpl<Value> &gxs) const {
    gxs.assign(op->getNumOperands(), Value());
    if (!gys[0])
      return success();
    auto conv = cast<ConvOp>(op);
    if (conv.getGroup() != 1)
      return op->emitError("gradient of a grouped convolution is not supported yet");
    Location l = op->getLoc();
    Value g = gys[0], x = conv.getInput(), w = conv.getWeight();
    auto xs = tensorTypeOf(x).getShape(), ws = tensorTypeOf(w).getShape(),
         gs = tensorTypeOf(g).getShape();
    ArrayRef<int64_t> st = conv.getStrides(), pd = conv.getPads(), dl = conv.getDilations();
    if (conv.getBias())
      gxs[2] = ReduceSumOp::create(b, l, g, ArrayRef<int64_t>{0, 2, 3}, false);
    // dw: the correlation of the input with the output gradient, cropped to the kernel.
    Value full = ConvOp::create(b, l, transpose01(b, l, x), transpose01(b, l, g), Value(), dl, pd,
                                st, 1, false, false, IntegerAttr());
    Value cropped = SliceOp::create(b, l, full, ArrayRef<int64_t>{0, 0, 0, 0},
                                    ArrayRef<int64_t>{ws[1], ws[0], ws[2], ws[3]},
                                    ArrayRef<int64_t>{1, 1, 1, 1});
    gxs[1] = transpose01(b, l, cropped);
    // dx: the transposed convolution as a direct one.
    Value flipped = SliceOp::create(b, l, transpose01(b, l, w),
                                    ArrayRef<int64_t>{0, 0, ws[2] - 1, ws[3] - 1},
                                    ArrayRef<int64_t>{ws[1], ws[0], ws[2], ws[3]},
                                    ArrayRef<int64_t>{1, 1, -1, -1});
    int64_t top = (ws[2] - 1) * dl[0] - pd[0], left = (ws[3] - 1) * dl[1] - pd[1];
    int64_t bottom = xs[2] - gs[2] * st[0] - top + (ws[2] - 1) * dl[0];
    int64_t right = xs[3] - gs[3] * st[1] - left + (ws[3] - 1) * dl[1];
    Value spread = pad(b, l, dilate(b, l, g, st[0], st[1]), {0, 0, top, left, 0, 0, bottom, right});
    gxs[0] = ConvOp::create(b, l, spread, flipped, Value(), ArrayRef<int64_t>{1, 1},
                            ArrayRef<int64_t>{0, 0, 0, 0}, dl, 1, false, false, IntegerAttr());
    return success();
  }
};

/// Pooling window geometry: padded extent covering every window and the input.
struct Windows {
  int64_t kh, kw, sh, sw, dh, dw, top, left, fullH, fullW, oh, ow;
};

template <typename Op> FailureOr<Windows> windows(Op op, Value g) {
  if (op.getChannelsLast())
    return op->emitError("gradient of a channels-last pool is not supported");
  auto xs = tensorTypeOf(op.getInput()).getShape(), gs = tensorTypeOf(g).getShape();
  Windows w{op.getKernel()[0], op.getKernel()[1], op.getStrides()[0], op.getStrides()[1],
            op.getDilations()[0], op.getDilations()[1], op.getPads()[0], op.getPads()[1],
            0, 0, gs[2], gs[3]};
  w.fullH = std::max((w.oh - 1) * w.sh + (w.kh - 1) * w.dh + 1, xs[2] + w.top);
  w.fullW = std::max((w.ow - 1) * w.sw + (w.kw - 1) * w.dw + 1, xs[3] + w.left);
  return w;
}

/// The sum over a pool's window taps (row-major kh x kw) of each tap's [N, C, OH, OW]
/// gradient placed at (i*dh + oh*sh, j*dw + ow*sw) of the padded input, as
/// [N, C, >= fullH, >= fullW]. Summed per stride phase (positions with the same
/// (h % sh, w % sw)), where a tap is a shifted copy on a [N, C, fullH/sh, fullW/sw]
/// grid, and the phases interleaved once: placing every tap on the full grid
/// (dilate + pad) made kh*kw full-size tensors, all live at once when the sum was
/// fused (a 3x3 stride-2 pool's backward held 9 inputs' worth of memory).
Value sumWindowTaps(OpBuilder &b, Location l, ArrayRef<Value> taps, const Windows &w) {
  auto gs = tensorTypeOf(taps.front()).getShape();
  int64_t hp = llvm::divideCeil(w.fullH, w.sh), wp = llvm::divideCeil(w.fullW, w.sw);
  SmallVector<Value> phases(w.sh * w.sw);
  for (int64_t i = 0; i < w.kh; ++i)
    for (int64_t j = 0; j < w.kw; ++j) {
      int64_t offH = i * w.dh, offW = j * w.dw, top = offH / w.sh, left = offW / w.sw;
      Value part = pad(b, l, taps[i * w.kw + j],
                       {0, 0, top, left, 0, 0, hp - w.oh - top, wp - w.ow - left});
      Value &phase = phases[(offH % w.sh) * w.sw + offW % w.sw];
      phase = phase ? Value(AddOp::create(b, l, phase, part)) : part;
    }
  if (phases.size() == 1)
    return phases.front();
  // [N, C, hp, sh, wp, sw] with phase (p, q) at [.., :, p, :, q] is the interleaved grid.
  RankedTensorType grid = withShape(taps.front(), {gs[0], gs[1], hp, wp});
  SmallVector<Value> rows;
  for (int64_t p = 0; p < w.sh; ++p) {
    SmallVector<Value> cols;
    for (int64_t q = 0; q < w.sw; ++q) {
      Value v = phases[p * w.sw + q] ? phases[p * w.sw + q] : splat(b, l, grid, 0.0);
      cols.push_back(ReshapeOp::create(b, l, withShape(v, {gs[0], gs[1], hp, 1, wp, 1}), v));
    }
    rows.push_back(cols.size() == 1 ? cols.front() : ConcatOp::create(b, l, cols, 5));
  }
  Value all = rows.size() == 1 ? rows.front() : ConcatOp::create(b, l, rows, 3);
  return ReshapeOp::create(b, l, withShape(all, {gs[0], gs[1], hp * w.sh, wp * w.sw}), all);
}

/// The gradient in padded coordinates, cropped back to the input.
Value cropToInput(OpBuilder &b, Location l, Value acc, Value x, const Windows &w) {
  auto xs = tensorTypeOf(x).getShape();
  return SliceOp::create(b, l, acc, ArrayRef<int64_t>{0, 0, w.top, w.left}, xs,
                         ArrayRef<int64_t>{1, 1, 1, 1});
}

/// Each output's gradient goes to the first element of its window equal to the
/// maximum (PyTorch's choice on ties).
struct MaxPoolVjp : DifferentiableOpInterface::ExternalModel<MaxPoolVjp, MaxPoolOp> {
  LogicalResult buildVjp(Operation *op, OpBuilder &b, ArrayRef<Value> gys,
                         SmallVectorImpl<Value> &gxs) const {
    gxs.assign(1, Value());
    if (!gys[0])
      return success();
    auto pool = cast<MaxPoolOp>(op);
    auto w = windows(pool, gys[0]);
    if (failed(w))
      return failure();
    Location l = op->getLoc();
    Value x = pool.getInput(), y = pool.getResult(), g = gys[0];
    auto xs = tensorTypeOf(x).getShape();
    Value xp = pad(b, l, x, {0, 0, w->top, w->left, 0, 0, w->fullH - xs[2] - w->top,
                             w->fullW - xs[3] - w->left},
                   -std::numeric_limits<double>::infinity());
    Value taken;
    SmallVector<Value> taps;
    for (int64_t i = 0; i < w->kh; ++i)
      for (int64_t j = 0; j < w->kw; ++j) {
        Value xsub = windowSlice(b, l, xp, i * w->dh, j * w->dw, w->sh, w->sw, w->oh, w->ow);
        Value hit = EqualOp::create(b, l, xsub, y);
        if (taken)
          hit = AndOp::create(b, l, hit, NotOp::create(b, l, taken));
        taken = taken ? Value(OrOp::create(b, l, taken, hit)) : hit;
        taps.push_back(selectOrZero(b, l, hit, g));
      }
    gxs[0] = cropToInput(b, l, sumWindowTaps(b, l, taps, *w), x, *w);
    return success();
  }
};

/// Each output's gradient is shared by its window: divided by the window size, or by
/// the number of input (non-padding) elements in it without count_include_pad.
struct AveragePoolVjp : DifferentiableOpInterface::ExternalModel<AveragePoolVjp, AveragePoolOp> {
  LogicalResult buildVjp(Operation *op, OpBuilder &b, ArrayRef<Value> gys,
                         SmallVectorImpl<Value> &gxs) const {
    gxs.assign(1, Value());
    if (!gys[0])
      return success();
    auto pool = cast<AveragePoolOp>(op);
    auto w = windows(pool, gys[0]);
    if (failed(w))
      return failure();
    Location l = op->getLoc();
    Value x = pool.getInput(), g = gys[0];
    auto xs = tensorTypeOf(x).getShape();
    Type elt = tensorTypeOf(x).getElementType();
    int64_t needH = (w->oh - 1) * w->sh + (w->kh - 1) * w->dh + 1;
    int64_t needW = (w->ow - 1) * w->sw + (w->kw - 1) * w->dw + 1;
    if (pool.getCeilMode() && (needH > xs[2] + pool.getPads()[0] + pool.getPads()[2] ||
                               needW > xs[3] + pool.getPads()[1] + pool.getPads()[3]))
      return op->emitError("gradient of an average pool whose ceil_mode adds windows is not "
                           "supported yet");
    Value share;
    double size = double(w->kh * w->kw);
    if (pool.getCountIncludePad()) {
      share = MulOp::create(b, l, g, scalar(b, l, elt, 1.0 / size));
    } else {
      // Elements per window: size times the mean of ones with padding counted as zeros.
      Value ones = splat(b, l, RankedTensorType::get({1, 1, xs[2], xs[3]}, elt), 1.0);
      Value frac = AveragePoolOp::create(b, l, ones, pool.getKernel(), pool.getStrides(),
                                         pool.getPads(), pool.getDilations(), pool.getCeilMode(),
                                         /*count_include_pad=*/true);
      share = DivOp::create(b, l, g, MulOp::create(b, l, frac, scalar(b, l, elt, size)));
    }
    SmallVector<Value> taps(w->kh * w->kw, share);
    gxs[0] = cropToInput(b, l, sumWindowTaps(b, l, taps, *w), x, *w);
    return success();
  }
};

} // namespace

void registerWindowGradientRules(MLIRContext *ctx) {
  ConvOp::attachInterface<ConvVjp>(*ctx);
  MaxPoolOp::attachInterface<MaxPoolVjp>(*ctx);
  AveragePoolOp::attachInterface<AveragePoolVjp>(*ctx);
}

} // namespace dlc::autodiff
