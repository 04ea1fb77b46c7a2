// Constant folders of dlc_graph ops: enough to fold the shape subgraphs exporters emit.
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <cstring>

using namespace mlir;
using namespace dlc::graph;

namespace {

/// A small dense constant, or null when `a` is not one (too large, not dense).
DenseElementsAttr smallDense(Attribute a) {
  auto d = dyn_cast_or_null<DenseElementsAttr>(a);
  if (!d || (!d.isSplat() && d.getNumElements() > kMaxFoldElements))
    return {};
  return d;
}

SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> s(shape.size(), 1);
  for (int64_t i = (int64_t)shape.size() - 2; i >= 0; --i)
    s[i] = s[i + 1] * shape[i + 1];
  return s;
}

bool isUnsigned(Type t) { return t.isUnsignedInteger() || t.isInteger(1); }

SmallVector<int64_t> toInts(DenseElementsAttr d) {
  SmallVector<int64_t> v;
  bool u = isUnsigned(d.getElementType());
  for (const APInt &x : d.getValues<APInt>())
    v.push_back(u ? (int64_t)x.getZExtValue() : x.getSExtValue());
  return v;
}

DenseElementsAttr fromInts(ShapedType type, ArrayRef<int64_t> v) {
  unsigned w = type.getElementType().getIntOrFloatBitWidth();
  SmallVector<APInt> a;
  for (int64_t x : v)
    a.push_back(APInt(w, (uint64_t)x, /*isSigned=*/!isUnsigned(type.getElementType()), true));
  return DenseElementsAttr::get(type, a);
}

/// Index into a tensor of `shape` that an element of the broadcast `outShape` reads.
int64_t broadcastIndex(int64_t flat, ArrayRef<int64_t> outShape, ArrayRef<int64_t> shape) {
  int64_t idx = 0, stride = 1;
  for (int64_t d = (int64_t)outShape.size() - 1, s = (int64_t)shape.size() - 1; s >= 0; --d, --s) {
    int64_t coord = flat % outShape[d];
    flat /= outShape[d];
    if (shape[s] != 1)
      idx += coord * stride;
    stride *= shape[s];
  }
  return idx;
}

/// Rebuilds a constant by picking, for each output element, an input element.
DenseElementsAttr gatherElements(DenseElementsAttr in, ShapedType outType,
                                 llvm::function_ref<int64_t(int64_t)> sourceOf) {
  if (in.isSplat())
    return DenseElementsAttr::get(outType, in.getSplatValue<Attribute>());
  auto values = llvm::to_vector(in.getValues<Attribute>());
  SmallVector<Attribute> out;
  for (int64_t i = 0, n = outType.getNumElements(); i < n; ++i)
    out.push_back(values[sourceOf(i)]);
  return DenseElementsAttr::get(outType, out);
}

} // namespace

namespace {

/// The IEEE results the math folders decline to compute: log of zero (-inf) and of a
/// negative number or NaN (NaN), sqrt of a negative number (NaN) and of -0 (-0). libm and dlc's
/// compiled code give these, so the folder does too; null for everything else.
Attribute ieeeSpecialCase(Operation &op, ArrayRef<Attribute> operands) {
  if (!isa<math::LogOp, math::SqrtOp>(op) || operands.size() != 1)
    return {};
  auto x = dyn_cast<FloatAttr>(operands[0]);
  if (!x)
    return {};
  const APFloat &v = x.getValue();
  const llvm::fltSemantics &sem = v.getSemantics();
  if (isa<math::LogOp>(op) && v.isZero())
    return FloatAttr::get(x.getType(), APFloat::getInf(sem, /*Negative=*/true));
  if (isa<math::SqrtOp>(op) && v.isZero())
    return x; // sqrt(-0) = -0
  if (v.isNaN() || (v.isNegative() && !v.isZero()))
    return FloatAttr::get(x.getType(), APFloat::getNaN(sem));
  return {};
}

/// Evaluates an op's scalar body (ScalarComputation) on constant elements: the body
/// is built once in a scratch block over block arguments, then each op of it is
/// folded in order with the element's attributes. Fails where a body op does not
/// fold (integer division by zero, log of a negative number, ...): such values are
/// left to run time rather than guessed.
class ScalarEvaluator {
public:
  /// The body lives in a detached module (never verified), its block arguments
  /// standing for one element of each operand.
  ScalarEvaluator(ScalarComputationOpInterface op, TypeRange argTypes)
      : scratch(ModuleOp::create(op->getLoc())), block(*scratch->getBody()) {
    SmallVector<Location> locs(argTypes.size(), op->getLoc());
    block.addArguments(argTypes, locs);
    OpBuilder b = OpBuilder::atBlockEnd(&block);
    result = op.buildScalar(b, op->getLoc(), block.getArguments());
  }

  /// The body's value for one element of each operand, or null.
  Attribute evaluate(ArrayRef<Attribute> args) {
    DenseMap<Value, Attribute> known;
    for (auto [arg, value] : llvm::zip(block.getArguments(), args))
      known[arg] = value;
    SmallVector<Attribute> operands;
    SmallVector<OpFoldResult> folded;
    for (Operation &bodyOp : block) {
      operands.clear();
      for (Value v : bodyOp.getOperands()) {
        Attribute a = known.lookup(v);
        if (!a)
          return {};
        operands.push_back(a);
      }
      if (auto cst = dyn_cast<arith::ConstantOp>(bodyOp)) {
        known[cst.getResult()] = cst.getValue();
        continue;
      }
      if (Attribute special = ieeeSpecialCase(bodyOp, operands)) {
        known[bodyOp.getResult(0)] = special;
        continue;
      }
      folded.clear();
      if (failed(bodyOp.fold(operands, folded)) || folded.size() != bodyOp.getNumResults())
        return {};
      for (auto [r, f] : llvm::zip(bodyOp.getResults(), folded)) {
        Attribute a = isa<Attribute>(f) ? cast<Attribute>(f) : known.lookup(cast<Value>(f));
        // An in-place fold (the op's own result) is not a value.
        if (!a || !isa<IntegerAttr, FloatAttr>(a))
          return {};
        known[r] = a;
      }
    }
    return known.lookup(result);
  }

private:
  OwningOpRef<ModuleOp> scratch;
  Block &block;
  Value result;
};

} // namespace

OpFoldResult dlc::graph::foldElementwise(Operation *op, ArrayRef<Attribute> operands) {
  auto iface = dyn_cast<ScalarComputationOpInterface>(op);
  auto outType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!iface || op->getNumResults() != 1 || !outType || !outType.hasStaticShape() ||
      outType.getNumElements() > kMaxFoldElements)
    return {};
  SmallVector<DenseElementsAttr> inputs;
  SmallVector<Type> argTypes;
  for (Attribute a : operands) {
    auto d = smallDense(a);
    if (!d || !d.getElementType().isIntOrFloat())
      return {};
    inputs.push_back(d);
    argTypes.push_back(d.getElementType());
  }
  Type outElt = outType.getElementType();
  if (!outElt.isIntOrFloat())
    return {};
  // Every operand a splat: one evaluation.
  bool allSplat = llvm::all_of(inputs, [](DenseElementsAttr d) { return d.isSplat(); });
  int64_t n = allSplat ? 1 : outType.getNumElements();
  SmallVector<SmallVector<Attribute>> values;
  for (DenseElementsAttr d : inputs)
    values.push_back(d.isSplat() ? SmallVector<Attribute>{d.getSplatValue<Attribute>()}
                                 : llvm::to_vector(d.getValues<Attribute>()));
  ScalarEvaluator eval(iface, argTypes);
  SmallVector<Attribute> out;
  SmallVector<Attribute> args(inputs.size());
  auto os = outType.getShape();
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < inputs.size(); ++k)
      args[k] = values[k][inputs[k].isSplat() ? 0
                                              : broadcastIndex(i, os, inputs[k].getType().getShape())];
    Attribute r = eval.evaluate(args);
    if (!r || cast<TypedAttr>(r).getType() != outElt)
      return {};
    out.push_back(r);
  }
  if (allSplat)
    return DenseElementsAttr::get(outType, out.front());
  return DenseElementsAttr::get(outType, out);
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return foldElementwise(*this, adaptor.getOperands());
}

/// A small constant input splits into constant pieces.
LogicalResult SplitOp::fold(FoldAdaptor adaptor, SmallVectorImpl<OpFoldResult> &results) {
  auto in = smallDense(adaptor.getInput());
  if (!in)
    return failure();
  auto shape = in.getType().getShape();
  int64_t axis = getAxis(), offset = 0;
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < (int64_t)shape.size(); ++d)
    inner *= shape[d];
  for (Value r : getOutputs()) {
    auto type = cast<ShapedType>(r.getType());
    int64_t len = type.getDimSize(axis);
    int64_t start = offset;
    results.push_back(gatherElements(in, type, [&](int64_t i) {
      int64_t outer = i / (len * inner), rest = i % (len * inner);
      return outer * shape[axis] * inner + start * inner + rest;
    }));
    offset += len;
  }
  return success();
}

/// Constant condition: picks between the (broadcast) constant branches.
OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  auto c = smallDense(adaptor.getCondition());
  auto x = smallDense(adaptor.getLhs()), y = smallDense(adaptor.getRhs());
  auto outType = cast<ShapedType>(getType());
  if (!c || outType.getNumElements() > kMaxFoldElements)
    return {};
  // All-true / all-false conditions select a branch even when it is not constant.
  if (c.isSplat() && getLhs().getType() == outType && c.getSplatValue<bool>())
    return getLhs();
  if (c.isSplat() && getRhs().getType() == outType && !c.getSplatValue<bool>())
    return getRhs();
  if (!x || !y)
    return {};
  auto os = outType.getShape();
  auto cs = c.getType().getShape(), xs = x.getType().getShape(), ys = y.getType().getShape();
  auto cv = llvm::to_vector(c.getValues<bool>());
  auto xv = llvm::to_vector(x.getValues<Attribute>()), yv = llvm::to_vector(y.getValues<Attribute>());
  SmallVector<Attribute> out;
  for (int64_t i = 0, n = outType.getNumElements(); i < n; ++i) {
    bool pick = cv[c.isSplat() ? 0 : broadcastIndex(i, os, cs)];
    out.push_back(pick ? xv[x.isSplat() ? 0 : broadcastIndex(i, os, xs)]
                       : yv[y.isSplat() ? 0 : broadcastIndex(i, os, ys)]);
  }
  return DenseElementsAttr::get(outType, out);
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  // The same type is the same shape unless two dims are dynamic ([a*b, c] -> [a, b*c]).
  if (getInput().getType() == getType() && getType().getNumDynamicDims() <= 1)
    return getInput();
  if (auto d = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    return d.reshape(getType());
  if (auto prev = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(prev.getInput());
    return getResult();
  }
  return {};
}

OpFoldResult IdentityOp::fold(FoldAdaptor) { return getInput(); }

OpFoldResult ShapeOp::fold(FoldAdaptor) {
  // A dynamic dim (dlc compile --dims) is known when the model runs.
  if (!getInput().getType().hasStaticShape())
    return {};
  auto shape = getInput().getType().getShape();
  return fromInts(getType(), shape);
}

/// Transposes the raw bytes of a dense constant (any size): weights such as
/// Gemm's transB operand are transposed once at compile time, not every run.
static DenseElementsAttr transposeRaw(DenseElementsAttr in, ArrayRef<int64_t> perm,
                                      ShapedType outType) {
  Type elt = in.getElementType();
  if (in.isSplat() || elt.isInteger(1) || !elt.isIntOrFloat())
    return {};
  size_t bytes = elt.getIntOrFloatBitWidth() / 8;
  ArrayRef<char> raw = in.getRawData();
  auto inStrides = stridesOf(in.getType().getShape());
  auto outShape = outType.getShape();
  int64_t n = outType.getNumElements(), rank = outShape.size();
  std::vector<char> out(raw.size());
  SmallVector<int64_t> idx(rank, 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t src = 0;
    for (int64_t d = 0; d < rank; ++d)
      src += idx[d] * inStrides[perm[d]];
    std::memcpy(out.data() + flat * bytes, raw.data() + src * bytes, bytes);
    for (int64_t d = rank - 1; d >= 0 && ++idx[d] == outShape[d]; --d)
      idx[d] = 0;
  }
  return DenseElementsAttr::getFromRawBuffer(outType, out);
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  auto perm = getPerm();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return getInput();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    if (auto t = transposeRaw(dense, perm, getType()))
      return t;
  auto in = smallDense(adaptor.getInput());
  if (!in)
    return {};
  auto inStrides = stridesOf(getInput().getType().getShape());
  auto outShape = getType().getShape();
  return gatherElements(in, getType(), [&](int64_t flat) {
    int64_t src = 0;
    for (int64_t d = (int64_t)outShape.size() - 1; d >= 0; --d) {
      src += (flat % outShape[d]) * inStrides[perm[d]];
      flat /= outShape[d];
    }
    return src;
  });
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1)
    return getInputs()[0];
  SmallVector<DenseElementsAttr> parts;
  for (Attribute a : adaptor.getInputs()) {
    auto d = smallDense(a);
    if (!d)
      return {};
    parts.push_back(d);
  }
  if (getType().getNumElements() > kMaxFoldElements)
    return {};
  int64_t axis = getAxis();
  auto outShape = getType().getShape();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= outShape[d];
  for (int64_t d = axis + 1; d < (int64_t)outShape.size(); ++d)
    inner *= outShape[d];
  SmallVector<Attribute> out;
  for (int64_t o = 0; o < outer; ++o)
    for (DenseElementsAttr p : parts) {
      auto vals = llvm::to_vector(p.getValues<Attribute>());
      int64_t chunk = p.getType().getShape()[axis] * inner;
      for (int64_t i = 0; i < chunk; ++i)
        out.push_back(vals[p.isSplat() ? 0 : o * chunk + i]);
    }
  return DenseElementsAttr::get(getType(), out);
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (!getType().hasStaticShape() || getStartDims()) // dynamic sizes may differ from the input's
    return {};
  if (getInput().getType() == getType() &&
      llvm::all_of(getStarts(), [](int64_t s) { return s == 0; }) &&
      llvm::all_of(getSteps(), [](int64_t s) { return s == 1; }))
    return getInput();
  auto in = smallDense(adaptor.getInput());
  if (!in)
    return {};
  auto inStrides = stridesOf(getInput().getType().getShape());
  auto outShape = getType().getShape();
  auto starts = getStarts(), steps = getSteps();
  return gatherElements(in, getType(), [&](int64_t flat) {
    int64_t src = 0;
    for (int64_t d = (int64_t)outShape.size() - 1; d >= 0; --d) {
      src += (starts[d] + (flat % outShape[d]) * steps[d]) * inStrides[d];
      flat /= outShape[d];
    }
    return src;
  });
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  auto data = smallDense(adaptor.getData());
  auto idxAttr = smallDense(adaptor.getIndices());
  if (!data || !idxAttr || getType().getNumElements() > kMaxFoldElements)
    return {};
  auto idx = toInts(idxAttr);
  auto dataShape = getData().getType().getShape();
  int64_t axis = getAxis(), n = dataShape[axis];
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < (int64_t)dataShape.size(); ++d)
    inner *= dataShape[d];
  int64_t numIdx = std::max<int64_t>(1, getIndices().getType().getNumElements());
  if (getIndices().getType().getNumElements() == 0)
    return {};
  return gatherElements(data, getType(), [&](int64_t flat) {
    int64_t in = flat % inner, rest = flat / inner;
    int64_t k = rest % numIdx, outer = rest / numIdx;
    int64_t i = idx[idxAttr.isSplat() ? 0 : k];
    i = std::clamp<int64_t>(i < 0 ? i + n : i, 0, n - 1);
    return (outer * n + i) * inner + in;
  });
}

/// A check whose flag is known to be zero can never fail.
LogicalResult RuntimeCheckOp::canonicalize(RuntimeCheckOp op, PatternRewriter &rewriter) {
  DenseIntElementsAttr flag;
  if (!matchPattern(op.getFlag(), m_Constant(&flag)) ||
      llvm::any_of(flag.getValues<APInt>(), [](const APInt &v) { return !v.isZero(); }))
    return failure();
  rewriter.eraseOp(op);
  return success();
}
