// ONNX normalizations written as their function bodies: LayerNormalization with its Mean and
// InvStdDev outputs, RMSNormalization, InstanceNormalization, GroupNormalization,
// LpNormalization, MeanVarianceNormalization, and Hardmax.
#include "frontends/Onnx/Expr.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

using Results = SmallVectorImpl<Value>;

SmallVector<int64_t> range(int64_t from, int64_t to) {
  SmallVector<int64_t> r;
  for (int64_t i = from; i < to; ++i)
    r.push_back(i);
  return r;
}

/// The float type to compute in: stash_type (ONNX data type, default float) for
/// 16-bit inputs, else the input's own type.
FailureOr<Type> stashType(NodeImporter &n, Type elt) {
  auto stash = n.intAttr("stash_type", 1);
  DLC_TRY(stash);
  Type s = elementTypeFor(n.b.getContext(), *stash);
  if (!s || !isa<FloatType>(s))
    return n.error("unsupported stash_type " + Twine(*stash));
  return elt.getIntOrFloatBitWidth() < s.getIntOrFloatBitWidth() ? s : elt;
}

/// (x - mean) * invstd over `axes` (keepdims); returns {normalized, mean, invstd}.
std::array<Value, 3> standardize(Expr &e, Value x, ArrayRef<int64_t> axes, double eps) {
  Value mean = e.reduce<ReduceMeanOp>(x, axes, true);
  Value d = e.op<SubOp>({x, mean});
  Value var = e.reduce<ReduceMeanOp>(e.op<MulOp>({d, d}), axes, true);
  Value inv = e.op<ReciprocalOp>({e.op<SqrtOp>({e.op<AddOp>({var, e.c(eps)})})});
  return {e.op<MulOp>({d, inv}), mean, inv};
}

/// LayerNormalization / RMSNormalization operands: X, scale, the first normalized
/// axis, epsilon and the type to compute in.
struct NormArgs {
  Value x, scale;
  int64_t axis;
  double eps;
  Type stash;
};

FailureOr<NormArgs> normArgs(NodeImporter &n) {
  auto x = n.requiredInput(0), scale = n.requiredInput(1);
  auto axis = n.intAttr("axis", -1);
  auto eps = n.floatAttr("epsilon", 1e-5f);
  DLC_TRY(x);
  DLC_TRY(scale);
  DLC_TRY(axis);
  DLC_TRY(eps);
  auto t = tensorType(*x);
  auto a = n.dimAxis(*axis, t.getRank()); // normalized dims start at `axis`: a scalar has none
  DLC_TRY(a);
  if (!isa<FloatType>(t.getElementType()))
    return n.error("expects a floating-point input");
  auto st = stashType(n, t.getElementType());
  DLC_TRY(st);
  return NormArgs{*x, *scale, *a, *eps, *st};
}

LogicalResult layerNorm(NodeImporter &n, Results &out) {
  auto args = normArgs(n);
  DLC_TRY(args);
  Value x = args->x, scale = args->scale;
  auto t = tensorType(x);
  int64_t a = args->axis;
  double eps = args->eps;
  Type st = args->stash;
  if (n.numUsedOutputs() <= 1 && st == t.getElementType()) {
    // The fused op (decomposed later, where fusion sees the whole pattern).
    SmallVector<Value> ops = {x, scale};
    if (Value bias = n.input(2))
      ops.push_back(bias);
    auto r = n.create<LayerNormOp>(ops, {n.named("axis", n.b.getI64IntegerAttr(a)),
                                         n.named("epsilon", n.b.getF32FloatAttr(eps))});
    DLC_TRY(r);
    out.push_back(*r);
    return success();
  }
  Expr e{n, st};
  auto [norm, mean, inv] = standardize(e, e.cast(x, st), range(a, t.getRank()), eps);
  Value y = e.cast(e.op<MulOp>({norm, e.cast(scale, st)}), t.getElementType());
  if (Value bias = n.input(2))
    y = e.op<AddOp>({y, bias});
  if (e.failed)
    return failure();
  out.append({y, mean, inv});
  return success();
}

LogicalResult rmsNorm(NodeImporter &n, Results &out) {
  auto args = normArgs(n);
  DLC_TRY(args);
  Value x = args->x, scale = args->scale;
  auto t = tensorType(x);
  int64_t a = args->axis;
  double eps = args->eps;
  Type st = args->stash;
  Expr e{n, st};
  Value xs = e.cast(x, st);
  Value ms = e.reduce<ReduceMeanOp>(e.op<MulOp>({xs, xs}), range(a, t.getRank()), true);
  Value inv = e.op<ReciprocalOp>({e.op<SqrtOp>({e.op<AddOp>({ms, e.c(eps)})})});
  Value y = e.cast(e.op<MulOp>({xs, inv}), t.getElementType());
  y = e.op<MulOp>({y, scale});
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

/// Per-channel [C] parameter as [C, 1, ...] against an [N, C, ...] input of `rank`.
Value perChannel(Expr &e, Value p, int64_t rank) {
  if (e.failed || !p) // an earlier builder failed
    return Value();
  if (!tensorType(p).hasStaticShape()) { // dynamic dims (dlc compile --dims)
    auto sizes = e.n.sizesOf(p);
    if (!sizes)
      return e.fail();
    SmallVector<SymbolicSize> shape(rank - 1, SymbolicSize::constant(1));
    shape[0] = sizeProduct(*sizes);
    auto r = e.n.reshapeTo(p, shape);
    return failed(r) ? e.fail() : *r;
  }
  SmallVector<int64_t> shape(rank - 1, 1);
  shape[0] = tensorType(p).getNumElements();
  return e.reshape(p, shape);
}

LogicalResult instanceNorm(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0), scale = n.requiredInput(1), bias = n.requiredInput(2);
  auto eps = n.floatAttr("epsilon", 1e-5f);
  DLC_TRY(x);
  DLC_TRY(scale);
  DLC_TRY(bias);
  DLC_TRY(eps);
  auto t = tensorType(*x);
  if (t.getRank() < 3 || !isa<FloatType>(t.getElementType()))
    return n.error("expects a floating-point input [N, C, d1, ...]");
  Expr e{n, t.getElementType()};
  Value norm = standardize(e, *x, range(2, t.getRank()), *eps)[0];
  Value y = e.op<AddOp>({e.op<MulOp>({norm, perChannel(e, *scale, t.getRank())}),
                         perChannel(e, *bias, t.getRank())});
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

LogicalResult groupNorm(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0), scale = n.requiredInput(1), bias = n.requiredInput(2);
  auto eps = n.floatAttr("epsilon", 1e-5f);
  auto groups = n.intAttr("num_groups", 0);
  DLC_TRY(x);
  DLC_TRY(scale);
  DLC_TRY(bias);
  DLC_TRY(eps);
  DLC_TRY(groups);
  auto t = tensorType(*x);
  int64_t c = t.getRank() >= 2 ? t.getDimSize(1) : 0, g = *groups;
  if (t.getRank() < 3 || !isa<FloatType>(t.getElementType()))
    return n.error("expects a floating-point input [N, C, d1, ...]");
  if (g <= 0 || (!ShapedType::isDynamic(c) && c % g))
    return n.error("num_groups " + Twine(g) + " must divide the " + Twine(c) + " channels");
  auto st = stashType(n, t.getElementType());
  DLC_TRY(st);
  Expr e{n, *st};
  if (!t.hasStaticShape()) {
    // Dynamic dims (dlc compile --dims): [N, g, C/g, d1, ...] (the reshape checks that g
    // divides C when the model runs), standardized over all but the first two dims.
    auto sizes = n.sizesOf(*x);
    if (!sizes)
      return n.error("the sizes of the input's dynamic dims are not known");
    SmallVector<SymbolicSize> grouped = {(*sizes)[0], SymbolicSize::constant(g),
                                         sizeFloorDiv((*sizes)[1], g)};
    grouped.append(sizes->begin() + 2, sizes->end());
    auto xg = n.reshapeTo(e.cast(*x, *st), grouped);
    DLC_TRY(xg);
    SmallVector<int64_t> axes;
    for (int64_t a = 2; a <= t.getRank(); ++a)
      axes.push_back(a);
    auto back = n.reshapeTo(standardize(e, *xg, axes, *eps)[0], *sizes);
    DLC_TRY(back);
    Value norm = e.cast(*back, t.getElementType());
    // Opset 18 had per-group scale/bias ([g], spread over the group's channels); 21 [C].
    auto param = [&](Value p) -> Value {
      if (n.opset >= 21)
        return perChannel(e, p, t.getRank());
      SmallVector<SymbolicSize> spread(t.getRank() - 1, SymbolicSize::constant(1));
      spread[0] = SymbolicSize::constant(g);
      auto r = n.reshapeTo(p, {SymbolicSize::constant(g), SymbolicSize::constant(1)});
      auto x2 = succeeded(r) ? n.expandTo(*r, {SymbolicSize::constant(g), grouped[2]}) : r;
      SmallVector<SymbolicSize> flat = {(*sizes)[1]};
      flat.append(t.getRank() - 2, SymbolicSize::constant(1));
      auto r2 = succeeded(x2) ? n.reshapeTo(*x2, flat) : x2;
      return failed(r2) ? e.fail() : *r2;
    };
    Value y = e.op<AddOp>({e.op<MulOp>({norm, param(*scale)}), param(*bias)});
    if (e.failed)
      return failure();
    out.push_back(y);
    return success();
  }
  // Elements per (sample, group); N * g <= N * C fits when there are elements at all.
  int64_t N = t.getDimSize(0), total = t.getNumElements();
  SmallVector<int64_t> grouped = {N, g, total ? total / (N * g) : 0};
  Value xg = e.reshape(e.cast(*x, *st), grouped);
  Value norm = e.cast(e.reshape(standardize(e, xg, {2}, *eps)[0], t.getShape()), t.getElementType());
  // Opset 18 had per-group scale/bias; 21 per channel.
  auto param = [&](Value p) {
    int64_t k = tensorType(p).getNumElements();
    if (k == c)
      return perChannel(e, p, t.getRank());
    SmallVector<int64_t> s = {g, c / g};
    Value b = e.op<ExpandOp>({e.reshape(p, {g, 1})}, {},
                             {RankedTensorType::get(s, tensorType(p).getElementType())});
    return perChannel(e, e.reshape(b, {c}), t.getRank());
  };
  Value y = e.op<AddOp>({e.op<MulOp>({norm, param(*scale)}), param(*bias)});
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

LogicalResult meanVarianceNorm(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto axes = n.intsAttr("axes", {0, 2, 3});
  DLC_TRY(x);
  DLC_TRY(axes);
  auto t = tensorType(*x);
  SmallVector<int64_t> ax;
  for (int64_t a : *axes) {
    auto na = n.normalizeAxis(a, t.getRank());
    DLC_TRY(na);
    ax.push_back(*na);
  }
  llvm::sort(ax);
  Expr e{n, t.getElementType()};
  // (X - E[X]) / sqrt(E[X^2] - E[X]^2), as the ONNX function body computes it (+1e-9).
  Value mean = e.reduce<ReduceMeanOp>(*x, ax, true);
  Value meanSq = e.reduce<ReduceMeanOp>(e.op<MulOp>({*x, *x}), ax, true);
  Value var = e.op<SubOp>({meanSq, e.op<MulOp>({mean, mean})});
  Value y = e.op<DivOp>({e.op<SubOp>({*x, mean}), e.op<AddOp>({e.op<SqrtOp>({var}), e.c(1e-9)})});
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

LogicalResult lpNorm(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto axis = n.intAttr("axis", -1), p = n.intAttr("p", 2);
  DLC_TRY(x);
  DLC_TRY(axis);
  DLC_TRY(p);
  auto t = tensorType(*x);
  auto a = n.dimAxis(*axis, t.getRank());
  DLC_TRY(a);
  if (*p != 1 && *p != 2)
    return n.error("p must be 1 or 2, got " + Twine(*p));
  Expr e{n, t.getElementType()};
  Value norm = *p == 1 ? e.reduce<ReduceSumOp>(e.op<AbsOp>({*x}), {*a}, true)
                       : e.op<SqrtOp>({e.reduce<ReduceSumOp>(e.op<MulOp>({*x, *x}), {*a}, true)});
  Value zero = e.c(0);
  Value isZero = e.op<EqualOp>({norm, zero});
  Value y = e.where(isZero, zero, e.op<DivOp>({*x, e.where(isZero, e.c(1), norm)}));
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

/// Hardmax: 1 at the first maximum along `axis`, 0 elsewhere (opset < 13: over the
/// 2-D [prod(:axis), prod(axis:)] view).
LogicalResult hardmax(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto axis = n.intAttr("axis", n.opset >= 13 ? -1 : 1);
  DLC_TRY(x);
  DLC_TRY(axis);
  auto t = tensorType(*x);
  // Opset 13+ reads dim `axis` (iota below): a scalar has none.
  auto a = n.opset < 13 ? n.normalizeAxis(*axis, t.getRank()) : n.dimAxis(*axis, t.getRank());
  DLC_TRY(a);
  Expr e{n, t.getElementType()};
  Value in = *x;
  int64_t ax = *a;
  auto sizes = n.sizesOf(*x); // symbolic for dynamic dims (dlc compile --dims)
  if (!sizes)
    return n.error("the sizes of the input's dynamic dims are not known here");
  if (n.opset < 13) {
    if (t.hasStaticShape()) { // the flattened dims must fit int64
      auto outer = n.product(t.getShape().take_front(*a), "the outer (flattened) dim");
      auto inner = n.product(t.getShape().drop_front(*a), "the inner (flattened) dim");
      DLC_TRY(outer);
      DLC_TRY(inner);
    }
    auto flat = n.reshapeTo(in, {sizeProduct(ArrayRef(*sizes).take_front(*a)),
                                 sizeProduct(ArrayRef(*sizes).drop_front(*a))});
    DLC_TRY(flat);
    in = *flat;
    ax = 1;
  }
  auto it = tensorType(in);
  Value arg = e.op<ArgMaxOp>({in}, {n.named("axis", n.b.getI64IntegerAttr(ax)),
                                    n.named("keepdims", n.b.getBoolAttr(true)),
                                    n.named("select_last_index", n.b.getBoolAttr(false))});
  auto inSizes = n.sizesOf(in);
  if (!inSizes)
    return n.error("the sizes of the input's dynamic dims are not known here");
  SmallVector<SymbolicSize> iotaShape(it.getRank(), SymbolicSize::constant(1));
  iotaShape[ax] = (*inSizes)[ax];
  auto positions = n.iota((*inSizes)[ax]);
  DLC_TRY(positions);
  auto iota = n.reshapeTo(*positions, iotaShape);
  DLC_TRY(iota);
  Value hot = e.cast(e.op<EqualOp>({*iota, arg}), t.getElementType());
  if (e.failed)
    return failure();
  auto y = n.reshapeTo(hot, *sizes);
  DLC_TRY(y);
  out.push_back(*y);
  return success();
}

/// BatchNormalization: inference (the fused op, folded into convs later) or training
/// mode (batch statistics; running mean/var = input * momentum + batch * (1 - momentum)).
LogicalResult batchNorm(NodeImporter &n, Results &out) {
  auto eps = n.floatAttr("epsilon", 1e-5f), momentum = n.floatAttr("momentum", 0.9f);
  auto training = n.intAttr("training_mode", 0);
  DLC_TRY(eps);
  DLC_TRY(momentum);
  DLC_TRY(training);
  SmallVector<Value> ops;
  for (unsigned i = 0; i < 5; ++i) {
    auto v = n.requiredInput(i);
    DLC_TRY(v);
    ops.push_back(*v);
  }
  if (!*training) {
    if (n.numUsedOutputs() > 1)
      return n.error("running statistics outputs need training_mode = 1");
    auto r = n.create<BatchNormOp>(ops, {n.named("epsilon", n.b.getF32FloatAttr(*eps))});
    DLC_TRY(r);
    out.push_back(*r);
    return success();
  }
  auto t = tensorType(ops[0]);
  if (t.getRank() < 2)
    return n.error("expects an input [N, C, ...]");
  SmallVector<int64_t> axes = {0};
  llvm::append_range(axes, range(2, t.getRank()));
  Expr e{n, t.getElementType()};
  Value mean = e.reduce<ReduceMeanOp>(ops[0], axes, true);
  Value d = e.op<SubOp>({ops[0], mean});
  Value var = e.reduce<ReduceMeanOp>(e.op<MulOp>({d, d}), axes, true);
  Value inv = e.op<ReciprocalOp>({e.op<SqrtOp>({e.op<AddOp>({var, e.c(*eps)})})});
  Value y = e.op<AddOp>({e.op<MulOp>({e.op<MulOp>({d, inv}), perChannel(e, ops[1], t.getRank())}),
                         perChannel(e, ops[2], t.getRank())});
  int64_t C = t.getDimSize(1);
  Value m1 = e.reshape(mean, {C}), v1 = e.reshape(var, {C});
  Value runMean = e.op<AddOp>({e.op<MulOp>({ops[3], e.c(*momentum)}), e.op<MulOp>({m1, e.c(1 - *momentum)})});
  Value runVar = e.op<AddOp>({e.op<MulOp>({ops[4], e.c(*momentum)}), e.op<MulOp>({v1, e.c(1 - *momentum)})});
  if (e.failed)
    return failure();
  out.append({y, runMean, runVar});
  return success();
}

const OpBuilderEntry kNormalizations[] = {
    {"BatchNormalization", 7, batchNorm},
    {"LayerNormalization", 17, layerNorm},
    {"RMSNormalization", 23, rmsNorm},
    {"InstanceNormalization", 6, instanceNorm},
    {"GroupNormalization", 18, groupNorm},
    {"MeanVarianceNormalization", 9, meanVarianceNorm},
    {"LpNormalization", 1, lpNorm},
    {"Hardmax", 1, hardmax},
};

} // namespace

ArrayRef<OpBuilderEntry> normalizationBuilders() { return kNormalizations; }

} // namespace dlc::onnx_frontend
