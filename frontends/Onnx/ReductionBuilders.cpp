// ONNX reductions -> dlc_graph: ReduceSum/Mean/Max/Min/Prod directly, the norm-style ones
// (L1, L2, SumSquare, LogSum, LogSumExp) as their ONNX function bodies, and ArgMax/ArgMin.
#include "frontends/Onnx/NodeImporter.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {

LogicalResult reduceOver(NodeImporter &n, StringRef opName, Value x, ArrayRef<int64_t> axes,
                         bool keepdims, SmallVectorImpl<Value> &out) {
  auto r = n.createMulti(opName, {x},
                         {n.named("axes", n.b.getDenseI64ArrayAttr(axes)),
                          n.named("keepdims", n.b.getBoolAttr(keepdims))});
  DLC_TRY(r);
  out.push_back((*r)[0]);
  return success();
}

namespace {

using Results = SmallVectorImpl<Value>;

/// What the ONNX node asks to reduce: normalized sorted axes (from the attribute
/// in older opsets or input 1), keepdims, and whether it is a no-op.
struct Reduction {
  Value x;
  SmallVector<int64_t> axes;
  bool keepdims;
};

FailureOr<Reduction> parseReduction(NodeImporter &n) {
  auto x = n.requiredInput(0);
  auto keep = n.intAttr("keepdims", 1);
  auto noop = n.intAttr("noop_with_empty_axes", 0);
  DLC_TRY(x);
  DLC_TRY(keep);
  DLC_TRY(noop);
  int64_t rank = tensorType(*x).getRank();
  Reduction r{*x, {}, *keep != 0};
  if (n.hasAttr("axes")) {
    auto a = n.intsAttr("axes");
    DLC_TRY(a);
    r.axes = *a;
  } else if (n.input(1)) {
    auto a = n.constantInts(1);
    DLC_TRY(a);
    r.axes = *a;
  }
  if (r.axes.empty() && !*noop)
    for (int64_t d = 0; d < rank; ++d)
      r.axes.push_back(d);
  for (int64_t &a : r.axes) {
    auto na = n.normalizeAxis(a, rank);
    DLC_TRY(na);
    a = *na;
  }
  llvm::sort(r.axes);
  r.axes.erase(std::unique(r.axes.begin(), r.axes.end()), r.axes.end());
  return r;
}

template <typename ReduceOpTy> LogicalResult reduce(NodeImporter &n, Results &out) {
  auto r = parseReduction(n);
  DLC_TRY(r);
  return reduceOver(n, ReduceOpTy::getOperationName(), r->x, r->axes, r->keepdims, out);
}

/// reduce_sum(pre(x)) then post(): the Reduce{L1,L2,SumSquare,LogSum} function bodies.
template <typename Pre, typename Post>
LogicalResult sumOf(NodeImporter &n, Results &out, Pre pre, Post post) {
  auto r = parseReduction(n);
  DLC_TRY(r);
  auto v = pre(r->x);
  DLC_TRY(v);
  SmallVector<Value> sum;
  DLC_TRY(reduceOver(n, ReduceSumOp::getOperationName(), *v, r->axes, r->keepdims, sum));
  auto y = post(sum[0]);
  DLC_TRY(y);
  out.push_back(*y);
  return success();
}

FailureOr<Value> same(Value v) { return v; }

LogicalResult reduceL1(NodeImporter &n, Results &out) {
  return sumOf(n, out, [&](Value x) { return n.create<AbsOp>({x}); }, same);
}
LogicalResult reduceSumSquare(NodeImporter &n, Results &out) {
  return sumOf(n, out, [&](Value x) { return n.create<MulOp>({x, x}); }, same);
}
LogicalResult reduceL2(NodeImporter &n, Results &out) {
  return sumOf(
      n, out, [&](Value x) { return n.create<MulOp>({x, x}); },
      [&](Value s) -> FailureOr<Value> {
        if (isa<FloatType>(tensorType(s).getElementType()))
          return n.create<SqrtOp>({s});
        // Integer L2 (ONNX casts through float): sqrt in f64, truncated back.
        auto t = tensorType(s);
        auto f = n.create<CastOp>({s}, {}, {RankedTensorType::get(t.getShape(), n.b.getF64Type())});
        DLC_TRY(f);
        auto r = n.create<SqrtOp>({*f});
        DLC_TRY(r);
        return n.create<CastOp>({*r}, {}, {t});
      });
}
LogicalResult reduceLogSum(NodeImporter &n, Results &out) {
  return sumOf(n, out, same, [&](Value s) { return n.create<LogOp>({s}); });
}

/// log(sum(exp(x))) computed as m + log(sum(exp(x - m))) with m the max, so large
/// inputs do not overflow.
LogicalResult reduceLogSumExp(NodeImporter &n, Results &out) {
  auto r = parseReduction(n);
  DLC_TRY(r);
  if (!isa<FloatType>(tensorType(r->x).getElementType()))
    return n.error("expects a floating-point input");
  SmallVector<Value> m, s;
  DLC_TRY(reduceOver(n, ReduceMaxOp::getOperationName(), r->x, r->axes, /*keepdims=*/true, m));
  // An all -inf slice would give (-inf) - (-inf) = NaN: shift by 0 there instead.
  Value zero = n.scalarConstant(tensorType(r->x).getElementType(), 0);
  auto isInf = n.create<IsInfOp>({m[0]},
                                 {n.named("detect_positive", n.b.getBoolAttr(true)),
                                  n.named("detect_negative", n.b.getBoolAttr(true))},
                                 {RankedTensorType::get(tensorType(m[0]).getShape(), n.b.getI1Type())});
  DLC_TRY(isInf);
  auto shift = n.create<WhereOp>({*isInf, zero, m[0]});
  DLC_TRY(shift);
  auto d = n.create<SubOp>({r->x, *shift});
  DLC_TRY(d);
  auto e = n.create<ExpOp>({*d});
  DLC_TRY(e);
  DLC_TRY(reduceOver(n, ReduceSumOp::getOperationName(), *e, r->axes, r->keepdims, s));
  auto l = n.create<LogOp>({s[0]});
  DLC_TRY(l);
  Value sh = *shift;
  if (!r->keepdims) {
    auto rs = n.reshape(sh, tensorType(*l).getShape());
    DLC_TRY(rs);
    sh = *rs;
  }
  auto y = n.create<AddOp>({*l, sh});
  DLC_TRY(y);
  out.push_back(*y);
  return success();
}

template <typename ArgOpTy> LogicalResult argReduce(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto axis = n.intAttr("axis", 0), keep = n.intAttr("keepdims", 1);
  auto last = n.intAttr("select_last_index", 0);
  DLC_TRY(x);
  DLC_TRY(axis);
  DLC_TRY(keep);
  DLC_TRY(last);
  auto a = n.normalizeAxis(*axis, tensorType(*x).getRank());
  DLC_TRY(a);
  auto r = n.create<ArgOpTy>({*x}, {n.named("axis", n.b.getI64IntegerAttr(*a)),
                                    n.named("keepdims", n.b.getBoolAttr(*keep != 0)),
                                    n.named("select_last_index", n.b.getBoolAttr(*last != 0))});
  DLC_TRY(r);
  out.push_back(*r);
  return success();
}

const OpBuilderEntry kReductions[] = {
    {"ReduceSum", 1, reduce<ReduceSumOp>},
    {"ReduceMean", 1, reduce<ReduceMeanOp>},
    {"ReduceMax", 1, reduce<ReduceMaxOp>},
    {"ReduceMin", 1, reduce<ReduceMinOp>},
    {"ReduceProd", 1, reduce<ReduceProdOp>},
    {"ReduceL1", 1, reduceL1},
    {"ReduceL2", 1, reduceL2},
    {"ReduceSumSquare", 1, reduceSumSquare},
    {"ReduceLogSum", 1, reduceLogSum},
    {"ReduceLogSumExp", 1, reduceLogSumExp},
    {"ArgMax", 1, argReduce<ArgMaxOp>},
    {"ArgMin", 1, argReduce<ArgMinOp>},
};

} // namespace

ArrayRef<OpBuilderEntry> reductionBuilders() { return kReductions; }

} // namespace dlc::onnx_frontend
