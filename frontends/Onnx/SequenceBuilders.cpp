// ONNX sequence and optional ops with static structure. A sequence is a list of tensors
// known while importing (see makeSequence): the ops rearrange that list, so positions,
// lengths and split sizes must be compile-time constants; SequenceMap imports its body
// once per element. An optional is its value, or a none value when empty.
#include "frontends/Onnx/Expr.h"
#include "frontends/Onnx/RuntimeChecks.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

using Results = SmallVectorImpl<Value>;

FailureOr<SmallVector<Value>> sequenceInput(NodeImporter &n, unsigned i) {
  Value v = n.input(i);
  if (!v)
    return n.error("input " + Twine(i) + " is required");
  auto elements = sequenceElements(v);
  if (!elements)
    return n.error("input " + Twine(i) + " must be a sequence");
  return *elements;
}

/// The constant position of input `i` (`dflt` when absent), normalized against
/// `length`; valid in [-length, length) or, for insertion, [-length, length].
FailureOr<int64_t> positionInput(NodeImporter &n, unsigned i, int64_t length, bool insertion,
                                 int64_t dflt) {
  int64_t p = dflt;
  if (n.input(i) && !isa<RankedTensorType>(n.input(i).getType()))
    return n.error("position must be a tensor");
  if (n.input(i)) {
    auto v = n.constantInts(i);
    DLC_TRY(v);
    if (v->size() != 1)
      return n.error("position must be a scalar");
    p = (*v)[0];
  }
  int64_t hi = insertion ? length : length - 1;
  if (p < -length || p > hi)
    return n.error("position " + Twine(p) + " is out of range for a sequence of length " +
                   Twine(length));
  return p < 0 ? p + length : p;
}

LogicalResult push(NodeImporter &n, Results &out, ValueRange elements) {
  out.push_back(makeSequence(n.b, n.loc, elements));
  return success();
}

LogicalResult sequenceEmpty(NodeImporter &n, Results &out) {
  auto dtype = n.intAttr("dtype", onnx::TensorProto::FLOAT);
  DLC_TRY(dtype);
  if (!elementTypeFor(n.b.getContext(), *dtype))
    return n.error("unsupported dtype " + Twine(*dtype));
  return push(n, out, {});
}

LogicalResult sequenceConstruct(NodeImporter &n, Results &out) {
  SmallVector<Value> elements;
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    auto v = n.requiredInput(i);
    DLC_TRY(v);
    if (tensorType(*v).getElementType() != tensorType(n.input(0)).getElementType())
      return n.error("all elements of a sequence must have the same element type");
    elements.push_back(*v);
  }
  return push(n, out, elements);
}

LogicalResult sequenceInsert(NodeImporter &n, Results &out) {
  auto seq = sequenceInput(n, 0);
  auto x = n.requiredInput(1);
  DLC_TRY(seq);
  DLC_TRY(x);
  if (!isa<RankedTensorType>(x->getType()))
    return n.error("sequences of sequences are not supported");
  if (!seq->empty() &&
      tensorType(*x).getElementType() != tensorType(seq->front()).getElementType())
    return n.error("the inserted tensor's element type differs from the sequence's");
  auto p = positionInput(n, 2, seq->size(), /*insertion=*/true, seq->size());
  DLC_TRY(p);
  seq->insert(seq->begin() + *p, *x);
  return push(n, out, *seq);
}

LogicalResult sequenceAt(NodeImporter &n, Results &out) {
  auto seq = sequenceInput(n, 0);
  DLC_TRY(seq);
  if (!n.input(1))
    return n.error("input 1 (position) is required");
  auto p = positionInput(n, 1, seq->size(), /*insertion=*/false, 0);
  DLC_TRY(p);
  out.push_back((*seq)[*p]);
  return success();
}

LogicalResult sequenceErase(NodeImporter &n, Results &out) {
  auto seq = sequenceInput(n, 0);
  DLC_TRY(seq);
  auto p = positionInput(n, 1, seq->size(), /*insertion=*/false, -1);
  DLC_TRY(p);
  seq->erase(seq->begin() + *p);
  return push(n, out, *seq);
}

LogicalResult sequenceLength(NodeImporter &n, Results &out) {
  auto seq = sequenceInput(n, 0);
  DLC_TRY(seq);
  out.push_back(n.constant(DenseElementsAttr::get(RankedTensorType::get({}, n.b.getI64Type()),
                                                  (int64_t)seq->size())));
  return success();
}

LogicalResult concatFromSequence(NodeImporter &n, Results &out) {
  auto seq = sequenceInput(n, 0);
  auto axisAttr = n.intAttr("axis", 0), newAxis = n.intAttr("new_axis", 0);
  DLC_TRY(seq);
  DLC_TRY(axisAttr);
  DLC_TRY(newAxis);
  if (seq->empty())
    return n.error("cannot concatenate an empty sequence");
  int64_t rank = tensorType(seq->front()).getRank();
  auto axis = n.normalizeAxis(*axisAttr, *newAxis ? rank + 1 : rank);
  DLC_TRY(axis);
  SmallVector<Value> parts;
  Expr e{n, Type()};
  for (Value v : *seq) {
    if (*newAxis) {
      SmallVector<int64_t> shape(tensorType(v).getShape());
      shape.insert(shape.begin() + *axis, 1);
      v = e.reshape(v, shape);
    }
    parts.push_back(v);
  }
  if (e.failed)
    return failure();
  if (parts.size() == 1) {
    out.push_back(parts[0]);
    return success();
  }
  auto r = n.create<ConcatOp>(parts, {n.named("axis", n.b.getI64IntegerAttr(*axis))});
  DLC_TRY(r);
  out.push_back(*r);
  return success();
}

LogicalResult splitToSequence(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto axisAttr = n.intAttr("axis", 0), keepdims = n.intAttr("keepdims", 1);
  DLC_TRY(x);
  DLC_TRY(axisAttr);
  DLC_TRY(keepdims);
  auto xt = tensorType(*x);
  auto axis = n.dimAxis(*axisAttr, xt.getRank());
  DLC_TRY(axis);
  int64_t dim = xt.getDimSize(*axis);
  // Sequences are lists of values while importing (graph inputs hold at most 65536).
  constexpr int64_t kMaxPieces = 65536;
  SmallVector<int64_t> sizes;
  bool squeeze = false;
  // Dynamic dims (dlc compile --dims): the pieces are slices of the symbols' sizes.
  std::optional<SymbolicDims> dims;
  if (!xt.hasStaticShape() && !(dims = n.sizesOf(*x)))
    return n.error("the sizes of input 0's dynamic dims are not known");
  if (ShapedType::isDynamic(dim) && (!n.input(1) || tensorType(n.input(1)).getRank() == 0)) {
    // Pieces of one index or of a chunk size: their count, the sequence's length, is fixed
    // when compiling. The dim is compiled for its greatest size (--dims); a run with
    // another fails.
    auto most = unrollSteps(n, (*dims)[*axis], kMaxPieces,
                            "the split dim (its size sets the sequence's length)");
    DLC_TRY(most);
    (*dims)[*axis] = SymbolicSize::constant(*most);
    auto fixed = n.expandTo(*x, *dims);
    DLC_TRY(fixed);
    x = fixed;
    xt = tensorType(*x);
    dim = *most;
  }
  if (ShapedType::isDynamic(dim)) {
    auto split = n.constantInts(1);
    DLC_TRY(split);
    int64_t total = 0;
    for (int64_t s : *split)
      if (s < 0 || __builtin_add_overflow(total, s, &total))
        return n.error("split sizes must be non-negative and sum within int64");
    if ((int64_t)split->size() > kMaxPieces)
      return n.error("splitting into more than 65536 pieces is not supported");
    sizes = *split;
    auto size = n.dimSize(*x, *axis);
    DLC_TRY(size);
    auto same = n.create<EqualOp>({*size, n.intConstant(n.b.getI64Type(), total)});
    DLC_TRY(same);
    auto bad = n.create<NotOp>({*same});
    DLC_TRY(bad);
    if (failed(checkAtRunTime(n, *bad, "split sizes sum to " + Twine(total) + ", not to dim " +
                                           Twine(*axis) + " (" + (*dims)[*axis].str() + ")")))
      return failure();
  } else if (!n.input(1)) {
    if (dim > kMaxPieces)
      return n.error("splitting into " + Twine(dim) + " pieces (more than 65536) is not supported");
    sizes.assign(dim, 1); // one piece per index; keepdims=0 drops the axis
    squeeze = !*keepdims;
  } else {
    auto split = n.constantInts(1);
    DLC_TRY(split);
    if (tensorType(n.input(1)).getRank() == 0) {
      int64_t chunk = (*split)[0];
      if (chunk < 1)
        return n.error("split must be positive, got " + Twine(chunk));
      if (dim / chunk > kMaxPieces)
        return n.error("splitting into more than 65536 pieces is not supported");
      for (int64_t at = 0; at < dim; at += chunk)
        sizes.push_back(std::min(chunk, dim - at));
    } else {
      sizes = *split;
      if ((int64_t)sizes.size() > kMaxPieces)
        return n.error("splitting into more than 65536 pieces is not supported");
      int64_t total = 0;
      for (int64_t s : sizes) {
        if (s < 0)
          return n.error("split sizes must be non-negative");
        if (__builtin_add_overflow(total, s, &total))
          return n.error("split sizes overflow int64");
      }
      if (total != dim)
        return n.error("split sizes sum to " + Twine(total) + ", expected " + Twine(dim));
    }
  }
  Expr e{n, Type()};
  SmallVector<Value> pieces;
  int64_t at = 0;
  for (int64_t size : sizes) {
    if (dims) {
      SmallVector<SymbolicSize> from(xt.getRank(), SymbolicSize::constant(0)), to(*dims);
      from[*axis] = SymbolicSize::constant(at);
      to[*axis] = SymbolicSize::constant(size);
      auto piece = sliceTo(n, *x, from, to);
      DLC_TRY(piece);
      if (squeeze) {
        to.erase(to.begin() + *axis);
        piece = n.reshapeTo(*piece, to);
        DLC_TRY(piece);
      }
      pieces.push_back(*piece);
      at += size;
      continue;
    }
    SmallVector<int64_t> starts(xt.getRank(), 0), shape(xt.getShape()), steps(xt.getRank(), 1);
    starts[*axis] = at;
    shape[*axis] = size;
    Value piece = e.slice(*x, starts, shape, steps);
    if (squeeze) {
      shape.erase(shape.begin() + *axis);
      piece = e.reshape(piece, shape);
    }
    pieces.push_back(piece);
    at += size;
  }
  if (e.failed)
    return failure();
  return push(n, out, pieces);
}

/// SequenceMap: the body once per position of the first sequence, with the other
/// sequence inputs taken at that position and tensor inputs as they are.
LogicalResult sequenceMap(NodeImporter &n, Results &out) {
  const onnx::GraphProto *body = n.graphAttr("body");
  if (!body)
    return n.error("needs a body graph");
  auto first = sequenceInput(n, 0);
  DLC_TRY(first);
  int64_t length = first->size();
  SmallVector<std::optional<SmallVector<Value>>> seqs = {*first};
  SmallVector<Value> tensors = {Value()};
  for (unsigned i = 1; i < n.numInputs(); ++i) {
    auto v = n.requiredInput(i);
    DLC_TRY(v);
    seqs.push_back(sequenceElements(*v));
    tensors.push_back(*v);
    if (seqs.back() && (int64_t)seqs.back()->size() != length)
      return n.error("input " + Twine(i) + " has " + Twine(seqs.back()->size()) +
                     " elements, the first sequence " + Twine(length));
  }
  int K = body->output_size();
  SmallVector<SmallVector<Value>> results(K);
  for (int64_t p = 0; p < length; ++p) {
    SmallVector<Value> args;
    for (unsigned i = 0; i < seqs.size(); ++i)
      args.push_back(seqs[i] ? (*seqs[i])[p] : tensors[i]);
    auto r = n.subgraph(*body, args);
    DLC_TRY(r);
    for (int k = 0; k < K; ++k) {
      if (!isa<RankedTensorType>((*r)[k].getType()))
        return n.error("the body must return tensors");
      results[k].push_back((*r)[k]);
    }
  }
  for (int k = 0; k < K; ++k)
    out.push_back(makeSequence(n.b, n.loc, results[k]));
  return success();
}

LogicalResult optional(NodeImporter &n, Results &out) {
  if (Value v = n.input(0)) {
    out.push_back(v);
    return success();
  }
  if (!n.findAttr("type"))
    return n.error("an empty Optional needs the 'type' attribute");
  out.push_back(makeNone(n.b, n.loc));
  return success();
}

LogicalResult optionalHasElement(NodeImporter &n, Results &out) {
  Value v = n.input(0);
  bool has = v && !isNone(v);
  out.push_back(n.constant(
      DenseElementsAttr::get(RankedTensorType::get({}, n.b.getI1Type()), has)));
  return success();
}

LogicalResult optionalGetElement(NodeImporter &n, Results &out) {
  auto v = n.requiredInput(0);
  DLC_TRY(v);
  if (isNone(*v))
    return n.error("the optional input has no value");
  out.push_back(*v);
  return success();
}

const OpBuilderEntry kSequence[] = {
    {"SequenceEmpty", 11, sequenceEmpty},
    {"SequenceConstruct", 11, sequenceConstruct},
    {"SequenceInsert", 11, sequenceInsert},
    {"SequenceAt", 11, sequenceAt},
    {"SequenceErase", 11, sequenceErase},
    {"SequenceLength", 11, sequenceLength},
    {"ConcatFromSequence", 11, concatFromSequence},
    {"SplitToSequence", 11, splitToSequence},
    {"SequenceMap", 17, sequenceMap},
    {"Optional", 15, optional},
    {"OptionalHasElement", 15, optionalHasElement},
    {"OptionalGetElement", 15, optionalGetElement},
};

} // namespace

ArrayRef<OpBuilderEntry> sequenceBuilders() { return kSequence; }

} // namespace dlc::onnx_frontend
