// Conv and pool rules of SymbolicShapes: the number of windows along each dynamic image dim.
#include "dialects/Graph/IR/SymbolicRules.h"
#include "dialects/Graph/IR/GraphOps.h"

using namespace mlir;

namespace dlc::graph {

using Dims = SymbolicDims;
using Size = SymbolicSize;

FailureOr<SymbolicDims> windowDims(Operation *op, RankedTensorType result,
                                   function_ref<FailureOr<SymbolicDims>(Value)> dimsOf,
                                   func::FuncOp func,
                                   SmallVectorImpl<SymbolicShapes::Assumption> &assumed,
                                   std::string &why) {
  auto fail = [&](const Twine &msg) -> FailureOr<Dims> {
    why = msg.str();
    return failure();
  };
  Value in = op->getOperand(0);
  auto it = cast<RankedTensorType>(in.getType());
  if (isa<ConvOp, ConvNhwcOp>(op) && !isa<FloatType>(it.getElementType()))
    return fail("an integer convolution over dynamic dims is not supported yet");
  for (Value v : op->getOperands().drop_front())
    if (!cast<RankedTensorType>(v.getType()).hasStaticShape())
      return fail("dynamic weights are not supported");
  FailureOr<Dims> d = dimsOf(in);
  if (failed(d))
    return failure();
  bool nhwc = isa<ConvNhwcOp>(op) || op->hasAttr("channels_last");
  int64_t sp = nhwc ? 1 : 2, ch = nhwc ? 3 : 1;
  Dims out;
  for (int64_t s : result.getShape())
    out.push_back(Size::constant(s));
  out[0] = (*d)[0];
  if (isa<MaxPoolOp, AveragePoolOp>(op))
    out[ch] = (*d)[ch];
  else if (it.isDynamicDim(ch))
    return fail("the input channels of a convolution must be static");
  auto ints = [&](StringRef name) {
    return op->getAttrOfType<DenseI64ArrayAttr>(name).asArrayRef();
  };
  ArrayRef<int64_t> strides = ints("strides"), pads = ints("pads"), dil = ints("dilations");
  auto wt = isa<ConvOp, ConvNhwcOp>(op) ? cast<RankedTensorType>(op->getOperand(1).getType())
                                        : RankedTensorType();
  auto ceil = op->getAttrOfType<BoolAttr>("ceil_mode");
  for (int64_t i = 0; i < 2; ++i) {
    if (!it.isDynamicDim(sp + i))
      continue;
    int64_t k = wt ? wt.getDimSize(nhwc ? i : 2 + i) : ints("kernel")[i];
    std::optional<Size> o = windowOutputSize((*d)[sp + i], k, strides[i], pads[i],
                                             pads[2 + i], dil[i], ceil && ceil.getValue());
    if (!o)
      return fail("the number of windows overflows int64");
    out[sp + i] = *o;
    // The window fits the padded input (checked when the model runs unless the ranges
    // decide it).
    int64_t span = (k - 1) * dil[i] + 1, least = span - pads[i] - pads[2 + i];
    auto bounds = sizeBounds(func, (*d)[sp + i]);
    if (least > 1 && (!bounds || bounds->first < least))
      assumed.push_back({op, in, sp + i, Value(), 0, (*d)[sp + i],
                         sizeMax((*d)[sp + i], Size::constant(least)),
                         "image dim " + (*d)[sp + i].str() +
                             " of input 0 is smaller than the window: it must be at least " +
                             std::to_string(least) + " (span " + std::to_string(span) +
                             ", pads " + std::to_string(pads[i]) + " and " +
                             std::to_string(pads[2 + i]) + ")"});
  }
  return out;
}

} // namespace dlc::graph
