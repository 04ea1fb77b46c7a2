// Classic-ML ops (domain ai.onnx.ml) -> dlc_graph: Binarizer, ArrayFeatureExtractor.
#include "frontends/Onnx/Expr.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

using Results = SmallVectorImpl<Value>;

/// Y = X > threshold ? 1 : 0, in X's element type.
LogicalResult binarizer(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  TRY(x);
  auto threshold = n.floatAttr("threshold", 0);
  TRY(threshold);
  Type elt = tensorType(*x).getElementType();
  if (!isa<FloatType>(elt) && !isa<IntegerType>(elt))
    return n.error("expects a numeric input");
  Expr e{n, elt};
  // Integers compare in double so a fractional threshold keeps its meaning.
  Value xs = isa<IntegerType>(elt) ? e.cast(*x, n.b.getF64Type(), n.isUnsigned(0)) : *x;
  Value gt = e.op<GreaterOp>({xs, e.c(tensorType(xs).getElementType(), *threshold)});
  Value r = e.where(gt, e.c(1), e.c(0));
  if (e.failed)
    return failure();
  out.push_back(r);
  return success();
}

/// Z = X[..., indices] with the indices flattened; a 1-D X gives [1, count].
LogicalResult arrayFeatureExtractor(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto idx = n.requiredInput(1);
  TRY(x);
  TRY(idx);
  auto xt = tensorType(*x), it = tensorType(*idx);
  if (xt.getRank() < 1)
    return n.error("expects an input of rank >= 1");
  if (!isa<IntegerType>(it.getElementType()))
    return n.error("expects integer indices");
  int64_t count = it.getNumElements(), last = xt.getDimSize(xt.getRank() - 1);
  if (auto known = n.knownInput(1))
    for (const APInt &v : known.getValues<APInt>())
      if (v.getSExtValue() < 0 || v.getSExtValue() >= last)
        return n.error("index " + Twine(v.getSExtValue()) + " is out of range for the last " +
                       "dimension of size " + Twine(last));
  Expr e{n, xt.getElementType()};
  Value flat = e.reshape(*idx, {count});
  Value g = e.op<GatherOp>({*x, flat}, {n.named("axis", n.b.getI64IntegerAttr(xt.getRank() - 1))});
  SmallVector<int64_t> shape(xt.getShape().drop_back());
  if (shape.empty())
    shape.push_back(1);
  shape.push_back(count);
  Value r = e.reshape(g, shape);
  if (e.failed)
    return failure();
  out.push_back(r);
  return success();
}

constexpr const char *kMLDomain = "ai.onnx.ml";

const OpBuilderEntry kML[] = {
    {"Binarizer", 1, binarizer, kMLDomain},
    {"ArrayFeatureExtractor", 1, arrayFeatureExtractor, kMLDomain},
};

} // namespace

ArrayRef<OpBuilderEntry> mlBuilders() { return kML; }

} // namespace dlc::onnx_frontend
