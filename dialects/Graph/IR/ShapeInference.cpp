// Result-type inference and verifiers of dlc_graph ops: one place that knows each op's shape rule.
#include "dialects/Graph/IR/CheckedMath.h"
#include "dialects/Graph/IR/CheckedBuild.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace dlc::graph;

namespace {

LogicalResult fail(std::optional<Location> loc, const Twine &msg) {
  return emitOptionalError(loc, msg);
}


RankedTensorType tensorOf(Value v) { return cast<RankedTensorType>(v.getType()); }

} // namespace

std::optional<SmallVector<int64_t>> dlc::graph::broadcastShapes(ArrayRef<int64_t> a,
                                                                ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    // A dynamic dim broadcasts like an unknown size: against 1 it stays dynamic, against
    // a static size it is that size (convert-graph-to-linalg rejects the latter).
    if (da == db || db == 1)
      out[i] = da;
    else if (da == 1)
      out[i] = db;
    else if (ShapedType::isDynamic(da))
      out[i] = db;
    else if (ShapedType::isDynamic(db))
      out[i] = da;
    else
      return std::nullopt;
  }
  return out;
}

LogicalResult dlc::graph::inferBroadcastResult(std::optional<Location> loc, ValueRange operands,
                                               bool predicate, SmallVectorImpl<Type> &results) {
  auto lhs = tensorOf(operands[0]), rhs = tensorOf(operands[1]);
  if (lhs.getElementType() != rhs.getElementType())
    return fail(loc, "operand element types differ: " + std::string(llvm::formatv("{0} vs {1}", lhs.getElementType(), rhs.getElementType())));
  auto shape = broadcastShapes(lhs.getShape(), rhs.getShape());
  if (!shape)
    return fail(loc, "shapes " + shapeText(lhs.getShape()) + " and " + shapeText(rhs.getShape()) +
                         " are not broadcast-compatible");
  Type elt = predicate ? IntegerType::get(lhs.getContext(), 1) : lhs.getElementType();
  results.push_back(RankedTensorType::get(*shape, elt));
  return success();
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto c = tensorOf(adaptor.getCondition()), x = tensorOf(adaptor.getLhs()),
       y = tensorOf(adaptor.getRhs());
  if (x.getElementType() != y.getElementType())
    return fail(loc, "value operands have different element types");
  auto s = broadcastShapes(x.getShape(), y.getShape());
  if (s)
    s = broadcastShapes(c.getShape(), *s);
  if (!s)
    return fail(loc, "shapes " + shapeText(c.getShape()) + ", " + shapeText(x.getShape()) + " and " +
                         shapeText(y.getShape()) + " are not broadcast-compatible");
  results.push_back(RankedTensorType::get(*s, x.getElementType()));
  return success();
}

LogicalResult ClipOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                       Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto x = tensorOf(adaptor.getInput());
  for (Value bound : {adaptor.getLo(), adaptor.getHi()}) {
    auto t = tensorOf(bound);
    if (t.getNumElements() != 1 || t.getElementType() != x.getElementType())
      return fail(loc, "clip bounds must be one-element tensors of the input's element type");
  }
  results.push_back(x);
  return success();
}

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto a = tensorOf(adaptor.getLhs()), b = tensorOf(adaptor.getRhs());
  if (a.getRank() < 2 || b.getRank() < 2)
    return fail(loc, "expected operands of rank >= 2, got " + Twine(a.getRank()) + " and " +
                         Twine(b.getRank()));
  if (a.getElementType() != b.getElementType())
    return fail(loc, "operand element types differ");
  auto as = a.getShape(), bs = b.getShape();
  int64_t k1 = as.back(), k2 = bs[bs.size() - 2];
  if (k1 != k2 && !ShapedType::isDynamic(k1) && !ShapedType::isDynamic(k2))
    return fail(loc, "contraction dims differ: " + shapeText(as) + " x " + shapeText(bs));
  auto batch = broadcastShapes(as.drop_back(2), bs.drop_back(2));
  if (!batch)
    return fail(loc, "batch dims of " + shapeText(as) + " and " + shapeText(bs) +
                         " are not broadcast-compatible");
  batch->push_back(as[as.size() - 2]);
  batch->push_back(bs.back());
  results.push_back(RankedTensorType::get(*batch, a.getElementType()));
  return success();
}

LogicalResult MatMulIntegerOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                                Adaptor adaptor, SmallVectorImpl<Type> &results) {
  // The shape rule of matmul (operands of one element type, i8 here), an i32 result.
  SmallVector<Type, 1> product;
  MatMulOp::Adaptor plain(adaptor.getOperands());
  if (failed(MatMulOp::inferReturnTypes(ctx, loc, plain, product)))
    return failure();
  results.push_back(cast<RankedTensorType>(product[0]).clone(IntegerType::get(ctx, 32)));
  return success();
}

LogicalResult DequantMatMulOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                Adaptor adaptor, SmallVectorImpl<Type> &results) {
  // [..., K] x codes [N, K] (scale and zero point [N, ceil(K / B)]) -> [..., N].
  auto a = tensorOf(adaptor.getLhs()), q = tensorOf(adaptor.getCodes()),
       s = tensorOf(adaptor.getScale());
  int64_t block = adaptor.getBlockSize();
  if (a.getRank() < 1 || q.getRank() != 2)
    return fail(loc, "expected activations of rank >= 1 and codes [N, K], got " +
                         shapeText(a.getShape()) + " and " + shapeText(q.getShape()));
  int64_t n = q.getDimSize(0), k = q.getDimSize(1);
  if (a.getShape().back() != k)
    return fail(loc, "contraction dims differ: " + shapeText(a.getShape()) + " x codes " +
                         shapeText(q.getShape()));
  if (block <= 0)
    return fail(loc, "block_size must be positive, got " + Twine(block));
  SmallVector<int64_t> blocks = {n, (k + block - 1) / block};
  if (s.getShape() != ArrayRef<int64_t>(blocks) || s.getElementType() != a.getElementType())
    return fail(loc, "scale must be " + shapeText(blocks) + " of the activations' type, got " +
                         shapeText(s.getShape()));
  if (Value z = adaptor.getZeroPoint(); z && tensorOf(z).getShape() != ArrayRef<int64_t>(blocks))
    return fail(loc, "zero point must be " + shapeText(blocks) + ", got " +
                         shapeText(tensorOf(z).getShape()));
  SmallVector<int64_t> shape(a.getShape());
  shape.back() = n;
  results.push_back(RankedTensorType::get(shape, a.getElementType()));
  return success();
}

LogicalResult GemmOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                       Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto a = tensorOf(adaptor.getA()), b = tensorOf(adaptor.getB());
  if (a.getRank() != 2 || b.getRank() != 2)
    return fail(loc, "expected rank-2 A and B, got " + Twine(a.getRank()) + " and " +
                         Twine(b.getRank()));
  int64_t m = adaptor.getTransA() ? a.getDimSize(1) : a.getDimSize(0);
  int64_t k = adaptor.getTransA() ? a.getDimSize(0) : a.getDimSize(1);
  int64_t kb = adaptor.getTransB() ? b.getDimSize(1) : b.getDimSize(0);
  int64_t n = adaptor.getTransB() ? b.getDimSize(0) : b.getDimSize(1);
  if (k != kb)
    return fail(loc, "contraction dims differ: " + Twine(k) + " vs " + Twine(kb));
  if (a.getElementType() != b.getElementType() ||
      (adaptor.getC() && tensorOf(adaptor.getC()).getElementType() != a.getElementType()))
    return fail(loc, "operand element types differ");
  if (Value c = adaptor.getC()) {
    auto s = broadcastShapes(tensorOf(c).getShape(), {m, n});
    if (!s || (*s)[0] != m || (*s)[1] != n)
      return fail(loc, "C of shape " + shapeText(tensorOf(c).getShape()) +
                           " does not broadcast to [" + Twine(m) + "," + Twine(n) + "]");
  }
  results.push_back(RankedTensorType::get({m, n}, a.getElementType()));
  return success();
}

/// Output length of a sliding window (conv/pool) along one dim; 0 when the window does not
/// fit, -1 when the arithmetic overflows int64 (pads or dilations too large).
static int64_t windowOutput(int64_t in, int64_t k, int64_t s, int64_t padBegin, int64_t padEnd,
                            int64_t d, bool ceilMode) {
  // A dynamic image dim (dlc compile --dims) gives a dynamic output dim (its size, and
  // that the window fits, are checked when the model runs: SymbolicShapes).
  if (ShapedType::isDynamic(in))
    return ShapedType::kDynamic;
  I64c span = (I64c(k) - 1) * d + 1, padded = I64c(in) + padBegin + padEnd, room = padded - span;
  if (!room.ok())
    return -1;
  if (room.value() < 0)
    return 0;
  I64c out = (ceilMode ? (room + s - 1) / s : room / s) + 1;
  if (!out.ok())
    return -1;
  // A last window that starts inside the end padding is dropped.
  I64c lastStart = (out - 1) * s;
  if (ceilMode && lastStart.ok() && lastStart.value() >= in + padBegin)
    return out.value() - 1;
  return out.value();
}

/// The error for a windowOutput() result `o` < 1.
static LogicalResult windowError(std::optional<Location> loc, int64_t o, ArrayRef<int64_t> shape) {
  if (o < 0)
    return fail(loc, "output dim overflows int64 (pads, kernel or dilations too large for input " +
                         shapeText(shape) + ")");
  return fail(loc, "kernel larger than padded input " + shapeText(shape));
}

static LogicalResult checkWindowAttrs(std::optional<Location> loc, ArrayRef<int64_t> strides,
                                      ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations) {
  if (strides.size() != 2 || pads.size() != 4 || dilations.size() != 2)
    return fail(loc, "expected 2 strides, 4 pads and 2 dilations, got " +
                         Twine(strides.size()) + ", " + Twine(pads.size()) + " and " +
                         Twine(dilations.size()));
  for (int64_t v : llvm::concat<const int64_t>(strides, dilations))
    if (v < 1)
      return fail(loc, "strides and dilations must be >= 1");
  for (int64_t p : pads)
    if (p < 0)
      return fail(loc, "pads must be >= 0");
  return success();
}

/// Shared by conv (NCHW, FCHW) and conv_nhwc (NHWC, HWCF): `xc`/`xs` are the
/// input's channel and first spatial dim, `wf`/`wc`/`ws` the weight's output
/// channel, input channel and first kernel dim.
template <typename Adaptor>
static LogicalResult inferConv(std::optional<Location> loc, Adaptor adaptor, bool channelsLast,
                               SmallVectorImpl<Type> &results) {
  auto x = tensorOf(adaptor.getInput()), w = tensorOf(adaptor.getWeight());
  if (x.getRank() != 4 || w.getRank() != 4)
    return fail(loc, "expected rank-4 input and weight (2-D conv), got " + Twine(x.getRank()) +
                         " and " + Twine(w.getRank()));
  int xc = channelsLast ? 3 : 1, xs = channelsLast ? 1 : 2;
  int wf = channelsLast ? 3 : 0, wc = channelsLast ? 2 : 1, ws = channelsLast ? 0 : 2;
  auto strides = adaptor.getStrides(), pads = adaptor.getPads(), dil = adaptor.getDilations();
  if (failed(checkWindowAttrs(loc, strides, pads, dil)))
    return failure();
  int64_t group = adaptor.getGroup();
  int64_t c = x.getDimSize(xc), f = w.getDimSize(wf);
  if (group < 1 || c % group || f % group || w.getDimSize(wc) * group != c)
    return fail(loc, "input channels " + Twine(c) + ", weight " + shapeText(w.getShape()) +
                         " and group " + Twine(group) + " are inconsistent");
  if (Value b = adaptor.getBias())
    if (tensorOf(b).getRank() != 1 || tensorOf(b).getDimSize(0) != f)
      return fail(loc, "expected bias of shape [" + Twine(f) + "], got " +
                           shapeText(tensorOf(b).getShape()));
  SmallVector<int64_t> spatial;
  for (int i = 0; i < 2; ++i) {
    int64_t o = windowOutput(x.getDimSize(xs + i), w.getDimSize(ws + i), strides[i], pads[i],
                             pads[2 + i], dil[i], false);
    if (o < 1 && !ShapedType::isDynamic(o))
      return windowError(loc, o, x.getShape());
    spatial.push_back(o);
  }
  SmallVector<int64_t> shape =
      channelsLast ? SmallVector<int64_t>{x.getDimSize(0), spatial[0], spatial[1], f}
                   : SmallVector<int64_t>{x.getDimSize(0), f, spatial[0], spatial[1]};
  // 8-bit integers accumulate in i32 (no bias: the quantization passes add it after).
  Type elt = x.getElementType();
  if (elt.isInteger(8)) {
    bool depthwise = group == c && group == f;
    if (!w.getElementType().isInteger(8) || adaptor.getBias() || (group != 1 && !depthwise))
      return fail(loc, "8-bit convolutions take 8-bit weights, group 1 or depthwise and no bias");
    elt = IntegerType::get(elt.getContext(), 32);
  } else if (adaptor.getInputUnsigned() || adaptor.getWeightUnsigned() || adaptor.getPadValue()) {
    return fail(loc, "input_unsigned, weight_unsigned and pad_value are for 8-bit convolutions");
  }
  results.push_back(RankedTensorType::get(shape, elt));
  return success();
}

LogicalResult ConvOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                       Adaptor adaptor, SmallVectorImpl<Type> &results) {
  return inferConv(loc, adaptor, /*channelsLast=*/false, results);
}

LogicalResult ConvNhwcOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                           Adaptor adaptor, SmallVectorImpl<Type> &results) {
  return inferConv(loc, adaptor, /*channelsLast=*/true, results);
}

template <typename Adaptor>
static LogicalResult inferPool(std::optional<Location> loc, Adaptor adaptor,
                               SmallVectorImpl<Type> &results) {
  auto x = tensorOf(adaptor.getInput());
  if (x.getRank() != 4)
    return fail(loc, "expected a rank-4 NCHW input, got rank " + Twine(x.getRank()));
  auto k = adaptor.getKernel(), s = adaptor.getStrides(), p = adaptor.getPads(),
       d = adaptor.getDilations();
  // First spatial dim: 2 (NCHW), or 1 with channels_last (NHWC).
  int sp = adaptor.getChannelsLast() ? 1 : 2;
  if (k.size() != 2)
    return fail(loc, "expected 2 kernel dims, got " + Twine(k.size()));
  if (failed(checkWindowAttrs(loc, s, p, d)))
    return failure();
  SmallVector<int64_t> shape = {x.getDimSize(0)};
  if (sp == 2)
    shape.push_back(x.getDimSize(1));
  for (int i = 0; i < 2; ++i) {
    if (k[i] < 1 || p[i] >= k[i] || p[2 + i] >= k[i])
      return fail(loc, "kernel dims must be >= 1 and larger than the pads");
    int64_t o = windowOutput(x.getDimSize(sp + i), k[i], s[i], p[i], p[2 + i], d[i],
                             adaptor.getCeilMode());
    if (o < 1 && !ShapedType::isDynamic(o))
      return windowError(loc, o, x.getShape());
    shape.push_back(o);
  }
  if (sp == 1)
    shape.push_back(x.getDimSize(3));
  results.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                          Adaptor adaptor, SmallVectorImpl<Type> &results) {
  return inferPool(loc, adaptor, results);
}
LogicalResult AveragePoolOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                              Adaptor adaptor, SmallVectorImpl<Type> &results) {
  return inferPool(loc, adaptor, results);
}

LogicalResult GlobalAveragePoolOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                    Adaptor adaptor,
                                                    SmallVectorImpl<Type> &results) {
  auto x = tensorOf(adaptor.getInput());
  if (x.getRank() < 3)
    return fail(loc, "expected rank >= 3 (N, C, spatial...), got " + Twine(x.getRank()));
  SmallVector<int64_t> shape(x.getShape());
  std::fill(shape.begin() + 2, shape.end(), 1);
  results.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto x = tensorOf(adaptor.getInput());
  if (x.getRank() < 2)
    return fail(loc, "expected rank >= 2, got " + Twine(x.getRank()));
  for (Value v : {adaptor.getScale(), adaptor.getBias(), adaptor.getMean(), adaptor.getVariance()})
    if (tensorOf(v).getRank() != 1 || tensorOf(v).getDimSize(0) != x.getDimSize(1))
      return fail(loc, "expected per-channel parameters of shape [" + Twine(x.getDimSize(1)) +
                           "], got " + shapeText(tensorOf(v).getShape()));
  results.push_back(x);
  return success();
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto x = tensorOf(adaptor.getInput());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= x.getRank())
    return fail(loc, "axis " + Twine(axis) + " out of range for rank " + Twine(x.getRank()));
  auto normShape = x.getShape().drop_front(axis);
  for (Value v : {adaptor.getScale(), adaptor.getBias()}) {
    if (!v)
      continue;
    auto s = broadcastShapes(tensorOf(v).getShape(), normShape);
    if (!s || ArrayRef<int64_t>(*s) != normShape)
      return fail(loc, "scale/bias of shape " + shapeText(tensorOf(v).getShape()) +
                           " does not broadcast to " + shapeText(normShape));
  }
  results.push_back(x);
  return success();
}

template <typename Adaptor>
static LogicalResult inferReduce(std::optional<Location> loc, Adaptor adaptor,
                                 SmallVectorImpl<Type> &results) {
  auto x = tensorOf(adaptor.getInput());
  auto axes = adaptor.getAxes();
  SmallVector<int64_t> shape;
  int64_t prev = -1;
  for (int64_t a : axes) {
    if (a <= prev || a >= x.getRank())
      return fail(loc, "reduction axes must be sorted, unique and in [0, " + Twine(x.getRank()) +
                           "), got " + shapeText(axes));
    prev = a;
  }
  for (int64_t d = 0; d < x.getRank(); ++d) {
    if (!llvm::is_contained(axes, d))
      shape.push_back(x.getDimSize(d));
    else if (adaptor.getKeepdims())
      shape.push_back(1);
  }
  results.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

#define DLC_REDUCE_INFER(Op)                                                                   \
  LogicalResult Op::inferReturnTypes(MLIRContext *, std::optional<Location> loc,             \
                                     Adaptor adaptor, SmallVectorImpl<Type> &results) {      \
    return inferReduce(loc, adaptor, results);                                               \
  }
DLC_REDUCE_INFER(ReduceSumOp)
DLC_REDUCE_INFER(ReduceMeanOp)
DLC_REDUCE_INFER(ReduceMaxOp)
DLC_REDUCE_INFER(ReduceMinOp)
DLC_REDUCE_INFER(ReduceProdOp)
#undef DLC_REDUCE_INFER

template <typename Adaptor>
static LogicalResult inferArgReduce(std::optional<Location> loc, Adaptor adaptor,
                                    SmallVectorImpl<Type> &results) {
  auto x = tensorOf(adaptor.getInput());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= std::max<int64_t>(x.getRank(), 1) || x.getRank() == 0)
    return fail(loc, "axis " + Twine(axis) + " is out of range for rank " + Twine(x.getRank()));
  if (x.getDimSize(axis) == 0)
    return fail(loc, "cannot take the index of an extreme over an empty axis");
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < x.getRank(); ++d) {
    if (d != axis)
      shape.push_back(x.getDimSize(d));
    else if (adaptor.getKeepdims())
      shape.push_back(1);
  }
  results.push_back(RankedTensorType::get(shape, IntegerType::get(x.getContext(), 64)));
  return success();
}
LogicalResult ArgMaxOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &results) {
  return inferArgReduce(loc, adaptor, results);
}
LogicalResult ArgMinOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &results) {
  return inferArgReduce(loc, adaptor, results);
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto x = tensorOf(adaptor.getInput());
  auto perm = adaptor.getPerm();
  if ((int64_t)perm.size() != x.getRank())
    return fail(loc, "perm " + shapeText(perm) + " does not match rank " + Twine(x.getRank()));
  SmallVector<bool> seen(perm.size(), false);
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= x.getRank() || seen[p])
      return fail(loc, "perm " + shapeText(perm) + " is not a permutation");
    seen[p] = true;
    shape.push_back(x.getDimSize(p));
  }
  results.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto inputs = adaptor.getInputs();
  if (inputs.empty())
    return fail(loc, "expected at least one input");
  auto first = tensorOf(inputs[0]);
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= first.getRank())
    return fail(loc, "axis " + Twine(axis) + " out of range for rank " + Twine(first.getRank()));
  SmallVector<int64_t> shape(first.getShape());
  shape[axis] = 0;
  for (Value v : inputs) {
    auto t = tensorOf(v);
    if (t.getRank() != first.getRank() || t.getElementType() != first.getElementType())
      return fail(loc, "inputs differ in rank or element type");
    // A dynamic dim (dlc compile --dims) meets any size (equal when the model runs).
    for (int64_t d = 0; d < t.getRank(); ++d) {
      if (d == axis || ShapedType::isDynamic(t.getDimSize(d)))
        continue;
      if (ShapedType::isDynamic(shape[d]))
        shape[d] = t.getDimSize(d);
      else if (t.getDimSize(d) != shape[d])
        return fail(loc, "input shapes " + shapeText(first.getShape()) + " and " +
                             shapeText(t.getShape()) + " differ outside axis " + Twine(axis));
    }
    if (ShapedType::isDynamic(shape[axis]) || t.isDynamicDim(axis)) {
      shape[axis] = ShapedType::kDynamic;
      continue;
    }
    if (__builtin_add_overflow(shape[axis], t.getDimSize(axis), &shape[axis]))
      return fail(loc, "concatenated dim " + Twine(axis) + " overflows int64");
  }
  results.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

LogicalResult SplitOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto x = tensorOf(adaptor.getInput());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= x.getRank())
    return fail(loc, "axis " + Twine(axis) + " out of range for rank " + Twine(x.getRank()));
  int64_t total = 0;
  for (int64_t s : adaptor.getSizes()) {
    // A dynamic piece of a dynamic axis (its size in `dims`).
    if (ShapedType::isDynamic(s) && x.isDynamicDim(axis)) {
      SmallVector<int64_t> shape(x.getShape());
      results.push_back(RankedTensorType::get(shape, x.getElementType()));
      continue;
    }
    if (s < 0)
      return fail(loc, "split sizes must be >= 0");
    if (__builtin_add_overflow(total, s, &total))
      return fail(loc, "split sizes " + shapeText(adaptor.getSizes()) + " overflow int64");
    SmallVector<int64_t> shape(x.getShape());
    shape[axis] = s;
    results.push_back(RankedTensorType::get(shape, x.getElementType()));
  }
  if (!x.isDynamicDim(axis) && total != x.getDimSize(axis))
    return fail(loc, "split sizes " + shapeText(adaptor.getSizes()) + " do not sum to dim " +
                         Twine(x.getDimSize(axis)));
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto x = tensorOf(adaptor.getInput());
  auto starts = adaptor.getStarts(), sizes = adaptor.getSizes(), steps = adaptor.getSteps();
  if ((int64_t)starts.size() != x.getRank() || sizes.size() != starts.size() ||
      steps.size() != starts.size())
    return fail(loc, "expected one start, size and step per dim");
  for (int64_t d = 0; d < x.getRank(); ++d) {
    int64_t n = x.getDimSize(d);
    // A dynamic size (`dims` gives it) or a slice of a dynamic dim: the importer checks
    // that it stays within the dim.
    if (ShapedType::isDynamic(sizes[d]) || ShapedType::isDynamic(n)) {
      if (steps[d] == 0 || (!ShapedType::isDynamic(sizes[d]) && sizes[d] < 0))
        return fail(loc, "a slice of dynamic dim " + Twine(d) +
                             " needs a non-zero step and a size >= 0");
      continue;
    }
    if (steps[d] == 0 || sizes[d] < 0)
      return fail(loc, "steps must be non-zero and sizes >= 0");
    if (sizes[d] == 0)
      continue;
    I64c last = I64c(starts[d]) + (I64c(sizes[d]) - 1) * steps[d];
    if (starts[d] < 0 || starts[d] >= n || !last.ok() || last.value() < 0 || last.value() >= n)
      return fail(loc, "slice of dim " + Twine(d) + " reads outside [0, " + Twine(n) + ")");
  }
  results.push_back(RankedTensorType::get(sizes, x.getElementType()));
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData()), idx = tensorOf(adaptor.getIndices());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= data.getRank())
    return fail(loc, "axis " + Twine(axis) + " out of range for rank " + Twine(data.getRank()));
  SmallVector<int64_t> shape(data.getShape().take_front(axis));
  llvm::append_range(shape, idx.getShape());
  llvm::append_range(shape, data.getShape().drop_front(axis + 1));
  results.push_back(RankedTensorType::get(shape, data.getElementType()));
  return success();
}

LogicalResult GatherElementsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                 Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData()), idx = tensorOf(adaptor.getIndices());
  int64_t axis = adaptor.getAxis();
  if (data.getRank() != idx.getRank())
    return fail(loc, "indices have rank " + Twine(idx.getRank()) + ", data rank " +
                         Twine(data.getRank()));
  if (axis < 0 || axis >= data.getRank())
    return fail(loc, "axis " + Twine(axis) + " out of range for rank " + Twine(data.getRank()));
  if (data.getDimSize(axis) == 0 && idx.getNumElements() > 0)
    return fail(loc, "cannot gather from an empty axis");
  results.push_back(RankedTensorType::get(idx.getShape(), data.getElementType()));
  return success();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto x = tensorOf(adaptor.getInput());
  auto pads = adaptor.getPads();
  StringRef mode = adaptor.getMode();
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    return fail(loc, "unsupported pad mode '" + mode + "'");
  if ((int64_t)pads.size() != 2 * x.getRank())
    return fail(loc, "expected " + Twine(2 * x.getRank()) + " pads, got " + Twine(pads.size()));
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < x.getRank(); ++d) {
    // A dynamic dim (dlc compile --dims) stays dynamic (its size is read when it runs).
    if (x.isDynamicDim(d)) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    I64c padded = I64c(x.getDimSize(d)) + pads[d] + pads[d + x.getRank()];
    if (!padded.ok())
      return fail(loc, "pads " + shapeText(pads) + " make dim " + Twine(d) + " overflow int64");
    int64_t n = padded.value();
    if (n < 0)
      return fail(loc, "pads " + shapeText(pads) + " crop dim " + Twine(d) + " below zero");
    if (mode == "reflect" && (pads[d] >= x.getDimSize(d) || pads[d + x.getRank()] >= x.getDimSize(d)))
      return fail(loc, "reflect pads must be smaller than the dim");
    if (mode != "constant" && x.getDimSize(d) == 0 && n > 0)
      return fail(loc, "cannot " + mode + "-pad an empty dim");
    shape.push_back(n);
  }
  results.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult ShapeOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location>,
                                        Adaptor adaptor, SmallVectorImpl<Type> &results) {
  results.push_back(RankedTensorType::get({tensorOf(adaptor.getInput()).getRank()},
                                          IntegerType::get(ctx, 64)));
  return success();
}

//===----------------------------------------------------------------------===//
// Verifiers of ops whose result type is given, not inferred
//===----------------------------------------------------------------------===//

LogicalResult GeluOp::verify() {
  if (getApproximate() != "none" && getApproximate() != "tanh")
    return emitOpError("approximate must be 'none' or 'tanh', got '") << getApproximate() << "'";
  return success();
}

template <typename Op>
static LogicalResult verifySoftmaxAxis(Op op) {
  int64_t rank = op.getInput().getType().getRank();
  if (op.getAxis() < 0 || (int64_t)op.getAxis() >= rank)
    return op.emitOpError("axis ") << op.getAxis() << " out of range for rank " << rank;
  return success();
}
LogicalResult SoftmaxOp::verify() { return verifySoftmaxAxis(*this); }
LogicalResult LogSoftmaxOp::verify() { return verifySoftmaxAxis(*this); }

/// A reshape's, expand's or slice's `dims`: one size per result dim, given for exactly its dynamic
/// dims (dlc compile --dims).
static LogicalResult verifyDynamicSizes(Operation *op, std::optional<ArrayAttr> dims,
                                        RankedTensorType out) {
  if (!dims)
    return success();
  if (dims->size() != size_t(out.getRank()))
    return op->emitOpError("expected ") << out.getRank() << " dims sizes, got " << dims->size();
  for (auto [i, s] : llvm::enumerate(dims->getAsValueRange<StringAttr>()))
    if (s.empty() != !out.isDynamicDim(i))
      return op->emitOpError("dims: a size is given for exactly the dynamic dims (dim ") << i << ")";
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto in = getInput().getType(), out = getOutput().getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("element types differ");
  // Dynamic dims: the sizes are checked where they are known (convert-graph-to-linalg).
  if (in.hasStaticShape() && out.hasStaticShape() && in.getNumElements() != out.getNumElements())
    return emitOpError("cannot reshape ") << shapeText(in.getShape()) << " ("
                                          << in.getNumElements() << " elements) to "
                                          << shapeText(out.getShape()) << " ("
                                          << out.getNumElements() << " elements)";
  return verifyDynamicSizes(getOperation(), getDims(), out);
}

LogicalResult ExpandOp::verify() {
  auto in = getInput().getType(), out = getOutput().getType();
  auto s = broadcastShapes(in.getShape(), out.getShape());
  if (in.getElementType() != out.getElementType() || !s ||
      ArrayRef<int64_t>(*s) != out.getShape())
    return emitOpError("cannot broadcast ") << shapeText(in.getShape()) << " to "
                                            << shapeText(out.getShape());
  return verifyDynamicSizes(getOperation(), getDims(), out);
}

LogicalResult SliceOp::verify() {
  if (auto starts = getStartDims(); starts && starts->size() != getStarts().size())
    return emitOpError("expected ") << getStarts().size() << " start_dims, got " << starts->size();
  return verifyDynamicSizes(getOperation(), getDims(), getOutput().getType());
}

LogicalResult BitcastOp::verify() {
  Type a = getInput().getType().getElementType(), b = getType().getElementType();
  if (a.getIntOrFloatBitWidth() != b.getIntOrFloatBitWidth() || a.isInteger(1) || b.isInteger(1))
    return emitOpError("bitcast needs element types of the same width (not i1), got ")
           << a << " and " << b;
  return success();
}

static LogicalResult verifyScatter(Operation *op, Value data, Value indices, Value updates,
                                   StringRef reduction) {
  if (op->getResult(0).getType() != data.getType())
    return op->emitOpError("result type must equal the data type");
  if (cast<RankedTensorType>(updates.getType()).getElementType() !=
      cast<RankedTensorType>(data.getType()).getElementType())
    return op->emitOpError("updates and data element types differ");
  if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" &&
      reduction != "min")
    return op->emitOpError("reduction must be none, add, mul, max or min, got '") << reduction << "'";
  (void)indices;
  return success();
}

LogicalResult ScatterElementsOp::verify() {
  auto d = getData().getType(), i = getIndices().getType(), u = getUpdates().getType();
  // (Dynamic dims, dlc compile --dims, are compared when the model runs.)
  if (d.getRank() != i.getRank() || i.getRank() != u.getRank() ||
      llvm::any_of(llvm::zip(i.getShape(), u.getShape()), [](auto p) {
        auto [a, b] = p;
        return a != b && !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b);
      }))
    return emitOpError("indices and updates must have the data's rank and one shape");
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0 || axis >= std::max<int64_t>(d.getRank(), 1))
    return emitOpError("axis ") << axis << " is out of range";
  return verifyScatter(*this, getData(), getIndices(), getUpdates(), getReduction());
}

LogicalResult ScatterNDOp::verify() {
  auto d = getData().getType(), i = getIndices().getType(), u = getUpdates().getType();
  if (i.getRank() < 1)
    return emitOpError("indices need at least one dim");
  int64_t k = i.getDimSize(i.getRank() - 1);
  if (ShapedType::isDynamic(k))
    return emitOpError("the index tuples' length (the indices' last dim) must be static");
  if (k > d.getRank() || u.getRank() != i.getRank() - 1 + d.getRank() - k)
    return emitOpError("updates must have shape indices[:-1] + data[k:]");
  return verifyScatter(*this, getData(), getIndices(), getUpdates(), getReduction());
}

LogicalResult RuntimeCheckOp::verify() {
  if (getFlag().getType().getRank() != 0)
    return emitOpError("flag must be a 0-d tensor");
  return success();
}
