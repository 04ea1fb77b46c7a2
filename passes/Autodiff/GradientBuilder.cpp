// Helpers the gradient rules share.
#include "dialects/Graph/IR/SymbolicShapes.h"
#include "passes/Autodiff/GradientBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::autodiff {

Value scalar(OpBuilder &b, Location loc, Type elt, double v) {
  return splat(b, loc, RankedTensorType::get({}, elt), v);
}

Value splat(OpBuilder &b, Location loc, RankedTensorType type, double v) {
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, b.getFloatAttr(type.getElementType(), v)));
}

Value unbroadcast(OpBuilder &b, Location loc, Value grad, RankedTensorType type) {
  RankedTensorType gt = tensorTypeOf(grad);
  if (gt.getShape() == type.getShape())
    return grad;
  int64_t lead = gt.getRank() - type.getRank();
  SmallVector<int64_t> axes;
  for (int64_t d = 0; d < gt.getRank(); ++d)
    if (d < lead || (type.getDimSize(d - lead) == 1 && gt.getDimSize(d) != 1))
      axes.push_back(d);
  Value sum = axes.empty() ? grad : Value(ReduceSumOp::create(b, loc, grad, axes, true));
  if (tensorTypeOf(sum).getShape() == type.getShape())
    return sum;
  return ReshapeOp::create(b, loc, type, sum);
}

Value broadcastTo(OpBuilder &b, Location loc, Value v, Value like) {
  RankedTensorType type = tensorTypeOf(like);
  auto t = RankedTensorType::get(type.getShape(), tensorTypeOf(v).getElementType());
  if (tensorTypeOf(v).getShape() == type.getShape())
    return v;
  auto expand = ExpandOp::create(b, loc, t, v);
  // Dynamic dims (dlc compile --dims): the expand gives `like`'s sizes.
  if (!type.hasStaticShape())
    if (auto func = like.getParentRegion()->getParentOfType<func::FuncOp>()) {
      graph::SymbolicShapes shapes(func);
      if (FailureOr<graph::SymbolicDims> dims = shapes.dims(like); succeeded(dims)) {
        SmallVector<std::string> names;
        for (const graph::SymbolicSize &d : *dims)
          names.push_back(d.isStatic() ? "" : d.str());
        expand.setDimsAttr(b.getStrArrayAttr(SmallVector<StringRef>(names.begin(), names.end())));
      }
    }
  return expand;
}

Value selectOrZero(OpBuilder &b, Location loc, Value cond, Value v) {
  Value zero = scalar(b, loc, tensorTypeOf(v).getElementType(), 0.0);
  return WhereOp::create(b, loc, cond, v, zero);
}

} // namespace dlc::autodiff
