// The losses a training step can minimize (see Losses.h).
#include "passes/Autodiff/Losses.h"
#include "passes/Autodiff/GradientBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::autodiff {

RankedTensorType labelsType(LossKind kind, RankedTensorType output) {
  if (kind == LossKind::MeanSquaredError)
    return output;
  return RankedTensorType::get({output.getDimSize(0)},
                               IntegerType::get(output.getContext(), 64));
}

bool checkLossOutput(LossKind kind, RankedTensorType output, StringRef name, std::string &error) {
  if (kind == LossKind::SoftmaxCrossEntropy && output.getRank() != 2) {
    error = "a cross-entropy loss expects [batch, classes] logits; output '" + name.str() +
            "' has rank " + std::to_string(output.getRank());
    return false;
  }
  return true;
}

/// The mean of (output - labels)^2 over all elements.
static Value meanSquaredError(OpBuilder &b, Location loc, Value out, Value labels) {
  RankedTensorType t = tensorTypeOf(out);
  SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, t.getRank()));
  Value d = SubOp::create(b, loc, out, labels);
  return ReduceMeanOp::create(b, loc, MulOp::create(b, loc, d, d), all, false);
}

/// -1/N times the sum over the batch of log softmax(out)[n, labels[n]], the log-softmax
/// shifted by the row maximum.
static Value softmaxCrossEntropy(OpBuilder &b, Location loc, Value out, Value labels) {
  RankedTensorType t = tensorTypeOf(out);
  int64_t n = t.getDimSize(0), classes = t.getDimSize(1);
  SmallVector<int64_t> axis = {1}, all = {0, 1};
  Value shifted = SubOp::create(b, loc, out, ReduceMaxOp::create(b, loc, out, axis, true));
  Value lse = LogOp::create(
      b, loc, ReduceSumOp::create(b, loc, ExpOp::create(b, loc, shifted), axis, true));
  Value logProb = SubOp::create(b, loc, shifted, lse);
  SmallVector<int64_t> iota = llvm::to_vector(llvm::seq<int64_t>(0, classes));
  auto iotaType = RankedTensorType::get({classes}, b.getI64Type());
  Value classIds =
      arith::ConstantOp::create(b, loc, DenseElementsAttr::get(iotaType, ArrayRef<int64_t>(iota)));
  Value column = ReshapeOp::create(b, loc, RankedTensorType::get({n, 1}, b.getI64Type()), labels);
  Value hit = EqualOp::create(b, loc, column, classIds);
  Value picked = selectOrZero(b, loc, hit, logProb);
  Value total = ReduceSumOp::create(b, loc, picked, all, false);
  if (ShapedType::isDynamic(n)) {
    // A dynamic batch (dlc compile --dims): counted when the model runs.
    Value ones = broadcastTo(b, loc, scalar(b, loc, t.getElementType(), 1.0), labels);
    Value count = ReduceSumOp::create(b, loc, ones, SmallVector<int64_t>{0}, false);
    return DivOp::create(b, loc, MulOp::create(b, loc, total, scalar(b, loc, t.getElementType(), -1.0)),
                         count);
  }
  return MulOp::create(b, loc, total, scalar(b, loc, t.getElementType(), -1.0 / double(n)));
}

Value buildLoss(OpBuilder &b, Location loc, LossKind kind, Value output, Value labels) {
  switch (kind) {
  case LossKind::MeanSquaredError:
    return meanSquaredError(b, loc, output, labels);
  case LossKind::SoftmaxCrossEntropy:
    return softmaxCrossEntropy(b, loc, output, labels);
  }
  llvm_unreachable("unknown loss kind");
}

} // namespace dlc::autodiff
