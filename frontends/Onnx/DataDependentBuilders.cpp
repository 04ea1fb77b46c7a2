// ONNX ops whose output sizes depend on input values (NonZero, Compress with a run-time
// condition, Unique, NonMaxSuppression): their dims are symbols the model computes when it
// runs (dlc.computed_dims).
#include "frontends/Onnx/NodeImporter.h"
#include "frontends/Onnx/RuntimeChecks.h"
#include "dialects/Graph/IR/Names.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {

using Results = SmallVectorImpl<Value>;

FailureOr<std::string> computedDim(NodeImporter &n, StringRef what, int64_t max,
                                   StringRef suffix) {
  auto func = dyn_cast_or_null<func::FuncOp>(n.b.getBlock()->getParentOp());
  if (!func)
    return n.error(what + " inside a subgraph (an If, Loop or Scan body) is not supported: its "
                          "output size depends on values");
  std::string base;
  for (char c : n.node.output(0))
    base += llvm::isAlnum(c) || c == '_' || c == '.' ? c : '_';
  return declareComputedDim(func, (base.empty() ? what.lower() : base) + "." + suffix.str(), max);
}

namespace {

/// The greatest element count of `v` (its dynamic dims at their range's max).
FailureOr<int64_t> maxElements(NodeImporter &n, Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.hasStaticShape())
    return t.getNumElements();
  auto dims = n.symbolicDims(v);
  auto bounds = dims ? sizeBounds(n.dynamicFunc, sizeProduct(*dims)) : std::nullopt;
  if (!bounds)
    return n.error("the greatest size of the input's dynamic dims is not known");
  return bounds->second;
}

/// [rank, count] coordinates of the non-zero elements of `x` (NaN counts).
FailureOr<Value> nonZeroOf(NodeImporter &n, Value x) {
  auto max = maxElements(n, x);
  DLC_TRY(max);
  auto sym = computedDim(n, "NonZero", *max);
  DLC_TRY(sym);
  int64_t rows = std::max<int64_t>(tensorType(x).getRank(), 1);
  auto type = RankedTensorType::get({rows, ShapedType::kDynamic}, n.b.getI64Type());
  return n.create<NonZeroOp>({x}, {n.named("count", n.b.getStringAttr(*sym))}, {type});
}

LogicalResult nonZero(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  auto nz = nonZeroOf(n, *x);
  DLC_TRY(nz);
  out.push_back(*nz);
  return success();
}

/// Compress with a condition known only when the model runs: a Gather of the indices of
/// its true entries (those past the axis's length are dropped, as ONNX says).
LogicalResult runtimeCompress(NodeImporter &n, Value data, Value cond, int64_t axis,
                              Results &out) {
  auto ct = tensorType(cond);
  if (ct.getRank() != 1)
    return n.error("condition must be a 1-D tensor, got rank " + Twine(ct.getRank()));
  auto dataSizes = n.sizesOf(data), condSizes = n.sizesOf(cond);
  if (!dataSizes || !condSizes)
    return n.error("the sizes of the inputs' dynamic dims are not known");
  if (axis < 0) { // no axis: the flattened data
    SymbolicSize total = sizeProduct(*dataSizes);
    auto flat = RankedTensorType::get(
        {total.isStatic() ? total.coef : ShapedType::kDynamic}, tensorType(data).getElementType());
    auto reshaped = n.create<ReshapeOp>(
        {data}, {n.named("dims", n.b.getStrArrayAttr({total.isStatic() ? "" : total.str()}))},
        {flat});
    DLC_TRY(reshaped);
    data = *reshaped;
    dataSizes = SmallVector<SymbolicSize>{total};
    axis = 0;
  }
  SymbolicSize len = (*dataSizes)[axis], clen = (*condSizes)[0];
  if (!(clen == len) && !(len.isStatic() && clen.isStatic())) {
    // Lengths known only when the model runs: a condition longer than the axis fails it.
    auto lengthOf = [&](Value v, int64_t dim) -> FailureOr<Value> {
      auto shape = n.create<ShapeOp>({v});
      DLC_TRY(shape);
      return n.create<SliceOp>({*shape}, {n.named("starts", n.b.getDenseI64ArrayAttr({dim})),
                                          n.named("sizes", n.b.getDenseI64ArrayAttr({1})),
                                          n.named("steps", n.b.getDenseI64ArrayAttr({1}))});
    };
    auto cl = lengthOf(cond, 0), dl = lengthOf(data, axis);
    DLC_TRY(cl);
    DLC_TRY(dl);
    auto longer = n.create<GreaterOp>({*cl, *dl});
    DLC_TRY(longer);
    if (failed(checkAtRunTime(n, *longer, "the condition (input 1) is longer than the "
                                          "compressed axis")))
      return failure();
  }
  if (len.isStatic() && clen.coef > len.coef) {
    auto sliced = n.create<SliceOp>({cond}, {n.named("starts", n.b.getDenseI64ArrayAttr({0})),
                                             n.named("sizes", n.b.getDenseI64ArrayAttr({len.coef})),
                                             n.named("steps", n.b.getDenseI64ArrayAttr({1}))});
    DLC_TRY(sliced);
    cond = *sliced;
  }
  auto nz = nonZeroOf(n, cond);
  DLC_TRY(nz);
  // [1, count] -> [count]: a grouping of dims, so no `dims` (symbolic sizes are read
  // from the model's inputs; the count is computed).
  auto idxType = RankedTensorType::get({ShapedType::kDynamic}, n.b.getI64Type());
  auto idx = n.create<ReshapeOp>({*nz}, {}, {idxType});
  DLC_TRY(idx);
  auto y = n.create<GatherOp>({data, *idx}, {n.named("axis", n.b.getI64IntegerAttr(axis))});
  DLC_TRY(y);
  out.push_back(*y);
  return success();
}

/// Unique: the distinct slices along `axis` (of the flattened input without one).
LogicalResult unique(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  auto sortedAttr = n.intAttr("sorted", 1);
  DLC_TRY(sortedAttr);
  auto t = tensorType(*x);
  Value data = *x;
  int64_t axis = 0;
  if (n.hasAttr("axis")) {
    auto a = n.intAttr("axis", 0);
    DLC_TRY(a);
    auto na = n.dimAxis(*a, t.getRank());
    DLC_TRY(na);
    axis = *na;
  } else if (t.getRank() != 1) {
    auto dims = t.hasStaticShape() ? std::optional<SmallVector<SymbolicSize>>() : n.symbolicDims(*x);
    if (!t.hasStaticShape() && !dims)
      return n.error("the sizes of the input's dynamic dims are not known");
    SymbolicSize total = t.hasStaticShape() ? SymbolicSize::constant(t.getNumElements())
                                            : sizeProduct(*dims);
    auto flat = RankedTensorType::get({total.isStatic() ? total.coef : ShapedType::kDynamic},
                                      t.getElementType());
    SmallVector<NamedAttribute> attrs;
    if (!total.isStatic())
      attrs.push_back(n.named("dims", n.b.getStrArrayAttr({total.str()})));
    auto reshaped = n.create<ReshapeOp>({*x}, attrs, {flat});
    DLC_TRY(reshaped);
    data = *reshaped;
  }
  auto dt = tensorType(data);
  int64_t maxSlices = dt.getDimSize(axis);
  if (ShapedType::isDynamic(maxSlices)) {
    auto dims = n.symbolicDims(data);
    auto bounds = dims ? sizeBounds(n.dynamicFunc, (*dims)[axis]) : std::nullopt;
    if (!bounds)
      return n.error("the greatest size of the input's dynamic axis is not known");
    maxSlices = bounds->second;
  }
  auto sym = computedDim(n, "Unique", maxSlices);
  DLC_TRY(sym);
  SmallVector<int64_t> shape(dt.getShape());
  shape[axis] = ShapedType::kDynamic;
  auto i64 = n.b.getI64Type();
  auto counted = RankedTensorType::get({ShapedType::kDynamic}, i64);
  auto r = n.createMulti(UniqueOp::getOperationName(), {data},
                         {n.named("axis", n.b.getI64IntegerAttr(axis)),
                          n.named("sorted", n.b.getBoolAttr(*sortedAttr != 0)),
                          n.named("count", n.b.getStringAttr(*sym))},
                         {RankedTensorType::get(shape, dt.getElementType()), counted,
                          RankedTensorType::get({dt.getDimSize(axis)}, i64), counted});
  DLC_TRY(r);
  out.append(r->begin(), r->end());
  return success();
}

/// NonMaxSuppression: its count bounds (batches x classes x min(boxes, max_output)) from
/// the shapes and, when known, max_output; the thresholds are read when the model runs.
LogicalResult nonMaxSuppression(NodeImporter &n, Results &out) {
  auto boxes = n.requiredInput(0);
  auto scores = n.requiredInput(1);
  DLC_TRY(boxes);
  DLC_TRY(scores);
  auto center = n.intAttr("center_point_box", 0);
  DLC_TRY(center);
  if (*center != 0 && *center != 1)
    return n.error("center_point_box must be 0 or 1, got " + Twine(*center));
  auto bt = tensorType(*boxes), st = tensorType(*scores);
  if (!isa<FloatType>(bt.getElementType()) || bt.getElementType() != st.getElementType())
    return n.error("boxes and scores must be float tensors of one type");
  if (bt.getRank() != 3 || (bt.getDimSize(2) != 4 && !bt.isDynamicDim(2)))
    return n.error("boxes must have shape [batches, boxes, 4], got rank " + Twine(bt.getRank()) +
                   (bt.getRank() == 3 ? " with last dim " + Twine(bt.getDimSize(2)) : Twine()));
  if (st.getRank() != 3)
    return n.error("scores must have shape [batches, classes, boxes], got rank " +
                   Twine(st.getRank()));
  auto bs = n.sizesOf(*boxes), ss = n.sizesOf(*scores);
  if (!bs || !ss)
    return n.error("the sizes of the inputs' dynamic dims are not known");
  if ((*bs)[0] != (*ss)[0] || (*bs)[1] != (*ss)[2])
    return n.error("boxes " + (*bs)[0].str() + "x" + (*bs)[1].str() + "x4 and scores " +
                   (*ss)[0].str() + "x" + (*ss)[1].str() + "x" + (*ss)[2].str() +
                   " disagree on the batches or the boxes");
  // A dynamic last dim of the boxes (dlc compile --dims) must be 4 when the model runs.
  if (bt.isDynamicDim(2)) {
    auto shape = n.create<ShapeOp>({*boxes});
    DLC_TRY(shape);
    auto last = n.create<SliceOp>({*shape}, {n.named("starts", n.b.getDenseI64ArrayAttr({2})),
                                             n.named("sizes", n.b.getDenseI64ArrayAttr({1})),
                                             n.named("steps", n.b.getDenseI64ArrayAttr({1}))});
    DLC_TRY(last);
    auto four = n.create<EqualOp>({*last, n.intConstant(n.b.getI64Type(), 4)});
    DLC_TRY(four);
    auto wrong = n.create<NotOp>({*four});
    DLC_TRY(wrong);
    if (failed(checkAtRunTime(n, *wrong, "the boxes' last dim (input 0) must be 4")))
      return failure();
  }
  // The scalars, as 0-d tensors (absent: 0 boxes, IoU threshold 0, no score threshold).
  auto scalarInput = [&](unsigned i, Type elt, double dflt) -> FailureOr<Value> {
    Value v = n.input(i);
    if (!v)
      return isa<FloatType>(elt) ? n.scalarConstant(elt, dflt) : n.intConstant(elt, int64_t(dflt));
    auto t = tensorType(v);
    if (!t.hasStaticShape() || t.getNumElements() != 1 || t.getElementType() != elt)
      return n.error("input " + Twine(i) + " must hold one " +
                     (isa<FloatType>(elt) ? "float" : "int64") + " value");
    return n.reshape(v, {});
  };
  auto f32 = n.b.getF32Type();
  auto maxOut = scalarInput(2, n.b.getI64Type(), 0);
  DLC_TRY(maxOut);
  auto iou = n.input(3) ? scalarInput(3, tensorType(n.input(3)).getElementType(), 0)
                        : scalarInput(3, f32, 0);
  DLC_TRY(iou);
  auto score = n.input(4) ? scalarInput(4, tensorType(n.input(4)).getElementType(), 0)
                          : scalarInput(4, f32, 0);
  DLC_TRY(score);
  for (Value v : {*iou, *score})
    if (!isa<FloatType>(tensorType(v).getElementType()))
      return n.error("the IoU and score thresholds must be floats");
  // The greatest count: every box of every class, or max_output of them when known.
  SymbolicSize total = (*bs)[0] * (*ss)[1];
  auto boxBound = sizeBounds(n.dynamicFunc, (*bs)[1]);
  auto pairBound = sizeBounds(n.dynamicFunc, total);
  if (!boxBound || !pairBound)
    return n.error("the greatest size of the inputs' dynamic dims is not known");
  int64_t perClass = boxBound->second;
  if (DenseElementsAttr known = n.knownInput(2))
    perClass = std::clamp<int64_t>((*known.getValues<APInt>().begin()).getSExtValue(), 0, perClass);
  else if (!n.input(2))
    perClass = 0;
  int64_t bound;
  if (__builtin_mul_overflow(pairBound->second, perClass, &bound))
    return n.error("the greatest number of selected boxes overflows int64");
  auto sym = computedDim(n, "NonMaxSuppression", bound);
  DLC_TRY(sym);
  auto type = RankedTensorType::get({ShapedType::kDynamic, 3}, n.b.getI64Type());
  auto r = n.create<NonMaxSuppressionOp>(
      {*boxes, *scores, *maxOut, *iou, *score},
      {n.named("center_point_box", n.b.getBoolAttr(*center == 1)),
       n.named("has_score_threshold", n.b.getBoolAttr(n.input(4) != Value())),
       n.named("count", n.b.getStringAttr(*sym))},
      {type});
  DLC_TRY(r);
  out.push_back(*r);
  return success();
}

/// ImageDecoder: the height and width are computed when the model runs, without a bound.
LogicalResult imageDecoder(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  auto format = n.stringAttr("pixel_format", "RGB");
  DLC_TRY(format);
  int64_t code = *format == "RGB" ? 0 : *format == "BGR" ? 1 : *format == "Grayscale" ? 2 : -1;
  if (code < 0)
    return n.error("pixel_format must be RGB, BGR or Grayscale, got '" + *format + "'");
  auto t = tensorType(*x);
  if (t.getRank() != 1 || !t.getElementType().isInteger(8))
    return n.error("the encoded image must be 1-D uint8 bytes");
  auto h = computedDim(n, "ImageDecoder", kUnboundedDim, "height");
  DLC_TRY(h);
  auto w = computedDim(n, "ImageDecoder", kUnboundedDim, "width");
  DLC_TRY(w);
  auto type = RankedTensorType::get({ShapedType::kDynamic, ShapedType::kDynamic, code == 2 ? 1 : 3},
                                    n.b.getI8Type());
  auto r = n.create<ImageDecodeOp>({*x}, {n.named("pixel_format", n.b.getI64IntegerAttr(code)),
                                          n.named("height", n.b.getStringAttr(*h)),
                                          n.named("width", n.b.getStringAttr(*w)),
                                          n.named("node", n.b.getStringAttr(n.node.name()))},
                                   {type});
  DLC_TRY(r);
  n.markUnsigned(*r);
  out.push_back(*r);
  return success();
}

const OpBuilderEntry kDataDependent[] = {
    {"ImageDecoder", 20, imageDecoder},
    {"NonMaxSuppression", 10, nonMaxSuppression},
    {"NonZero", 9, nonZero},
    {"Unique", 11, unique},
};

} // namespace

LogicalResult compressWithRuntimeCondition(NodeImporter &n, Value data, Value cond, int64_t axis,
                                           SmallVectorImpl<Value> &out) {
  return runtimeCompress(n, data, cond, axis, out);
}

ArrayRef<OpBuilderEntry> dataDependentBuilders() { return kDataDependent; }

} // namespace dlc::onnx_frontend
