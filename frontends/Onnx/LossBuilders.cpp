// ONNX losses -> dlc_graph: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss as their
// ONNX function bodies (GatherElements of the target class, weights, ignore_index, reduction).
#include "frontends/Onnx/NodeImporter.h"
#include "frontends/Onnx/RuntimeChecks.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

using Results = SmallVectorImpl<Value>;

/// loss[n, d...] = -weight[t] * logProb[n, t, d...] with t = target[n, d...],
/// zero where t == ignore_index; then reduced ("none", "sum" or "mean": divided
/// by the summed weights where there are any, else by the element count).
/// `isSCE`: whether ignore_index alone (no weight input) makes the mean a
/// weighted one (SoftmaxCrossEntropyLoss always; NLL unless ignore_index is -1,
/// as ONNX's reference computes it).
LogicalResult nllOf(NodeImporter &n, Value logProb, Value target, Value weight, bool isSCE,
                    Results &out) {
  auto reduction = n.stringAttr("reduction", "mean");
  DLC_TRY(reduction);
  if (*reduction != "mean" && *reduction != "sum" && *reduction != "none")
    return n.error("reduction must be none, sum or mean, got '" + *reduction + "'");
  auto xt = tensorType(logProb), tt = tensorType(target);
  if (xt.getRank() < 2 || tt.getRank() != xt.getRank() - 1 ||
      !isa<IntegerType>(tt.getElementType()))
    return n.error("expects scores [N, C, d...] and integer targets [N, d...]");
  auto xs = n.sizesOf(logProb), ts = n.sizesOf(target);
  if (!xs || !ts)
    return n.error("the sizes of the inputs' dynamic dims are not known");
  for (int64_t d = 0; d < tt.getRank(); ++d)
    if ((*ts)[d] != (*xs)[d == 0 ? 0 : d + 1])
      return n.error("target shape does not match the scores' [N, d...]");
  Type elt = xt.getElementType();
  Type idxElt = tt.getElementType();
  std::optional<int64_t> ignore;
  if (n.hasAttr("ignore_index")) {
    auto ii = n.intAttr("ignore_index", 0);
    DLC_TRY(ii);
    ignore = *ii;
  }
  // valid: target != ignore_index; safe target: 0 where ignored.
  Value valid, safe = target;
  if (ignore) {
    auto ne = n.create<EqualOp>({target, n.intConstant(idxElt, *ignore)});
    DLC_TRY(ne);
    auto v = n.create<NotOp>({*ne});
    DLC_TRY(v);
    valid = *v;
    auto s = n.create<WhereOp>({valid, target, n.scalarConstant(idxElt, 0)});
    DLC_TRY(s);
    safe = *s;
  }
  // ONNX makes a target outside [0, C) that is not ignore_index an error; the gather below
  // clamps, so the run stays in bounds but fails.
  if (failed(checkRangeAtRunTime(n, target, valid, 0, logProb, 1, "a target")))
    return failure();
  SmallVector<SymbolicSize> idxShape(*ts);
  idxShape.insert(idxShape.begin() + 1, SymbolicSize::constant(1));
  auto idx = n.reshapeTo(safe, idxShape);
  DLC_TRY(idx);
  auto picked = n.create<GatherElementsOp>({logProb, *idx}, {n.named("axis", n.b.getI64IntegerAttr(1))});
  DLC_TRY(picked);
  auto flat = n.reshapeTo(*picked, *ts);
  DLC_TRY(flat);
  auto loss = n.create<NegOp>({*flat});
  DLC_TRY(loss);
  Value zero = n.scalarConstant(elt, 0);
  Value l = *loss, w;
  if (weight) {
    auto g = n.create<GatherOp>({weight, safe}, {n.named("axis", n.b.getI64IntegerAttr(0))});
    DLC_TRY(g);
    w = *g;
  } else if (ignore && (isSCE || *ignore != -1)) {
    auto ones = n.expandTo(n.scalarConstant(elt, 1.0), *ts);
    DLC_TRY(ones);
    w = *ones;
  }
  if (valid) {
    auto masked = n.create<WhereOp>({valid, l, zero});
    DLC_TRY(masked);
    l = *masked;
    if (w) {
      auto mw = n.create<WhereOp>({valid, w, zero});
      DLC_TRY(mw);
      w = *mw;
    }
  }
  if (w) {
    auto lw = n.create<MulOp>({l, w});
    DLC_TRY(lw);
    l = *lw;
  }
  if (*reduction == "none") {
    out.push_back(l);
    return success();
  }
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < tt.getRank(); ++d)
    all.push_back(d);
  SmallVector<Value> sum;
  DLC_TRY(reduceOver(n, ReduceSumOp::getOperationName(), l, all, false, sum));
  if (*reduction == "sum") {
    out.push_back(sum[0]);
    return success();
  }
  Value denom;
  if (w) {
    SmallVector<Value> wsum;
    DLC_TRY(reduceOver(n, ReduceSumOp::getOperationName(), w, all, false, wsum));
    denom = wsum[0];
  } else {
    auto count = n.elementCount(target, elt);
    DLC_TRY(count);
    denom = *count;
  }
  auto mean = n.create<DivOp>({sum[0], denom});
  DLC_TRY(mean);
  out.push_back(*mean);
  return success();
}

LogicalResult nllLoss(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0), t = n.requiredInput(1);
  DLC_TRY(x);
  DLC_TRY(t);
  return nllOf(n, *x, *t, n.input(2), /*isSCE=*/false, out);
}

LogicalResult softmaxCrossEntropy(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0), t = n.requiredInput(1);
  DLC_TRY(x);
  DLC_TRY(t);
  if (tensorType(*x).getRank() < 2)
    return n.error("expects scores [N, C, d...]");
  auto logProb = n.create<LogSoftmaxOp>({*x}, {n.named("axis", n.b.getI64IntegerAttr(1))});
  DLC_TRY(logProb);
  DLC_TRY(nllOf(n, *logProb, *t, n.input(2), /*isSCE=*/true, out));
  if (n.numUsedOutputs() > 1)
    out.push_back(*logProb);
  return success();
}

const OpBuilderEntry kLosses[] = {
    {"NegativeLogLikelihoodLoss", 12, nllLoss},
    {"SoftmaxCrossEntropyLoss", 12, softmaxCrossEntropy},
};

} // namespace

ArrayRef<OpBuilderEntry> lossBuilders() { return kLosses; }

} // namespace dlc::onnx_frontend
