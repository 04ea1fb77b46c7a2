// Verifiers of the dlc_graph ops whose result sizes depend on values (NonZero, Unique,
// NonMaxSuppression, StringSplit, ImageDecoder) and of the string ops.
#include "dialects/Graph/IR/GraphOps.h"

using namespace mlir;
using namespace dlc::graph;

LogicalResult NonZeroOp::verify() {
  auto out = getOutput().getType();
  int64_t rows = std::max<int64_t>(getInput().getType().getRank(), 1);
  if (out.getRank() != 2 || out.getDimSize(0) != rows || !out.isDynamicDim(1) ||
      !out.getElementType().isInteger(64))
    return emitOpError("result must be tensor<") << rows << "x?xi64>, got " << out;
  if (getCount().empty())
    return emitOpError("needs the name of its count's symbolic dim");
  return success();
}

LogicalResult UniqueOp::verify() {
  auto in = getInput().getType();
  int64_t axis = getAxis();
  if (in.getRank() < 1 || axis < 0 || axis >= in.getRank())
    return emitOpError("axis ") << axis << " is out of range for rank " << in.getRank();
  SmallVector<int64_t> shape(in.getShape());
  shape[axis] = ShapedType::kDynamic;
  auto i64 = IntegerType::get(getContext(), 64);
  if (getOutput().getType() != RankedTensorType::get(shape, in.getElementType()) ||
      getIndices().getType() != RankedTensorType::get({ShapedType::kDynamic}, i64) ||
      getCounts().getType() != getIndices().getType() ||
      getInverse().getType() != RankedTensorType::get({in.getDimSize(axis)}, i64))
    return emitOpError("expected results ")
           << RankedTensorType::get(shape, in.getElementType()) << ", tensor<?xi64>, "
           << RankedTensorType::get({in.getDimSize(axis)}, i64) << ", tensor<?xi64>";
  if (getCount().empty())
    return emitOpError("needs the name of its count's symbolic dim");
  return success();
}

LogicalResult NonMaxSuppressionOp::verify() {
  auto boxes = getBoxes().getType(), scores = getScores().getType();
  if (boxes.getRank() != 3 || (boxes.getDimSize(2) != 4 && !boxes.isDynamicDim(2)) ||
      scores.getRank() != 3)
    return emitOpError("expected boxes [B, N, 4] and scores [B, C, N], got ")
           << boxes << " and " << scores;
  for (Value v : {getMaxOutput(), getIouThreshold(), getScoreThreshold()})
    if (cast<RankedTensorType>(v.getType()).getRank() != 0)
      return emitOpError("max_output and the thresholds must be 0-d tensors");
  auto out = getSelected().getType();
  if (out.getRank() != 2 || !out.isDynamicDim(0) || out.getDimSize(1) != 3 ||
      !out.getElementType().isInteger(64))
    return emitOpError("result must be tensor<?x3xi64>, got ") << out;
  if (getCount().empty())
    return emitOpError("needs the name of its count's symbolic dim");
  return success();
}

LogicalResult StringConstantOp::verify() {
  auto t = getOutput().getType();
  if (!t.getElementType().isInteger(128) || !t.hasStaticShape() ||
      t.getNumElements() != int64_t(getValues().size()))
    return emitOpError("expected a static i128 tensor of ") << getValues().size()
                                                          << " elements, got " << t;
  return success();
}

LogicalResult StringCallOp::verify() {
  auto out = getOutput().getType();
  if (!out.getElementType().isInteger(128) && !out.getElementType().isInteger(1))
    return emitOpError("result elements must be strings (i128) or i1");
  for (Value v : getOperands())
    if (cast<RankedTensorType>(v.getType()).getShape() != out.getShape())
      return emitOpError("operands must have the result's shape");
  return success();
}

LogicalResult StringSplitOp::verify() {
  auto in = getInput().getType();
  SmallVector<int64_t> shape(in.getShape());
  shape.push_back(ShapedType::kDynamic);
  if (!in.getElementType().isInteger(128) ||
      getParts().getType() != RankedTensorType::get(shape, in.getElementType()) ||
      getCounts().getType() != RankedTensorType::get(in.getShape(), IntegerType::get(getContext(), 64)))
    return emitOpError("expected string parts [input dims..., ?] and i64 counts of the input's "
                       "shape");
  return success();
}

LogicalResult ImageDecodeOp::verify() {
  auto in = getInput().getType(), out = getOutput().getType();
  int64_t channels = getPixelFormat() == 2 ? 1 : 3;
  if (in.getRank() != 1 || !in.getElementType().isInteger(8))
    return emitOpError("input must be 1-D bytes, got ") << in;
  if (getPixelFormat() < 0 || getPixelFormat() > 2)
    return emitOpError("pixel_format must be 0 (RGB), 1 (BGR) or 2 (grayscale)");
  if (out.getRank() != 3 || !out.isDynamicDim(0) || !out.isDynamicDim(1) ||
      out.getDimSize(2) != channels || !out.getElementType().isInteger(8))
    return emitOpError("result must be tensor<?x?x") << channels << "xi8>, got " << out;
  return success();
}
