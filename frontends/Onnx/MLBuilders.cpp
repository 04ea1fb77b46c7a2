// Classic-ML ops -> dlc_graph: Binarizer, ArrayFeatureExtractor (domain ai.onnx.ml) and
// TfIdfVectorizer (default domain) over integer tokens.
#include "frontends/Onnx/Expr.h"

#include <map>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {

LogicalResult treeEnsemble(NodeImporter &n, SmallVectorImpl<Value> &out); // TreeEnsembleBuilder.cpp

namespace {

using Results = SmallVectorImpl<Value>;

/// Y = X > threshold ? 1 : 0, in X's element type.
LogicalResult binarizer(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  auto threshold = n.floatAttr("threshold", 0);
  DLC_TRY(threshold);
  Type elt = tensorType(*x).getElementType();
  if (!isa<FloatType>(elt) && !isa<IntegerType>(elt))
    return n.error("expects a numeric input");
  Expr e{n, elt};
  // Integers compare in double so a fractional threshold keeps its meaning.
  Value xs = isa<IntegerType>(elt) ? e.cast(*x, n.b.getF64Type(), n.isUnsigned(0)) : *x;
  if (e.failed) // xs is null
    return failure();
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
  DLC_TRY(x);
  DLC_TRY(idx);
  auto xt = tensorType(*x), it = tensorType(*idx);
  if (xt.getRank() < 1)
    return n.error("expects an input of rank >= 1");
  if (!isa<IntegerType>(it.getElementType()))
    return n.error("expects integer indices");
  if (!xt.hasStaticShape() || !it.hasStaticShape()) {
    // Dynamic dims (dlc compile --dims): the same gather and reshapes over symbolic sizes.
    auto xs = n.sizesOf(*x), is = n.sizesOf(*idx);
    if (!xs || !is)
      return n.error("the sizes of the inputs' dynamic dims are not known");
    SymbolicSize k = sizeProduct(*is);
    auto flat = n.reshapeTo(*idx, {k});
    DLC_TRY(flat);
    auto g = n.create<GatherOp>({*x, *flat},
                                {n.named("axis", n.b.getI64IntegerAttr(xt.getRank() - 1))});
    DLC_TRY(g);
    SmallVector<SymbolicSize> shape(xs->begin(), xs->end() - 1);
    if (shape.empty())
      shape.push_back(SymbolicSize::constant(1));
    shape.push_back(k);
    auto r = n.reshapeTo(*g, shape);
    DLC_TRY(r);
    out.push_back(*r);
    return success();
  }
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

/// Over dynamic dims: the windows of `size` tokens `skip` apart starting at each of the
/// C positions of rows [B, C], matched against the pool's n-grams [1, 1, G, size]:
/// [B, C, G], 1 where a window lies within its row and matches.
FailureOr<Value> maskedWindows(NodeImporter &n, Expr &e, Value rows, const SymbolicSize &B,
                               const SymbolicSize &C, int64_t size, int64_t skip,
                               Value poolGrams) {
  using Size = SymbolicSize;
  Type i64 = n.b.getI64Type(), f32 = n.b.getF32Type();
  Size one = Size::constant(1), len = Size::constant(size);
  auto pos = n.iota(C), count = n.sizeValue(C);
  auto column = succeeded(pos) ? n.reshapeTo(*pos, {C, one}) : pos;
  DLC_TRY(column);
  DLC_TRY(count);
  SmallVector<int64_t> steps;
  for (int64_t j = 0; j < size; ++j)
    steps.push_back(j * skip);
  Value at = e.op<AddOp>({*column, e.ints({1, size}, steps)}); // [C, size]
  Value last = e.op<SubOp>({*count, e.c(i64, 1)});
  auto idx = n.reshapeTo(e.op<MinOp>({at, last}), {C * len});
  DLC_TRY(idx);
  auto w = n.reshapeTo(e.op<GatherOp>({rows, *idx}, {n.named("axis", n.b.getI64IntegerAttr(1))}),
                       {B, C, one, len});
  DLC_TRY(w);
  Value eq = e.cast(e.op<EqualOp>({*w, poolGrams}), f32);     // [B, C, G, size]
  Value hit = e.reduce<ReduceMinOp>(eq, {3}, false);           // [B, C, G]
  Value end = e.op<AddOp>({*column, e.c(i64, double((size - 1) * skip))});
  auto inside = n.reshapeTo(e.cast(e.op<LessOp>({end, *count}), f32), {one, C, one});
  DLC_TRY(inside);
  Value r = e.op<MulOp>({hit, *inside});
  if (e.failed)
    return failure();
  return r;
}

/// TfIdfVectorizer over integer tokens: counts of the pool's n-grams (sizes
/// min_gram_length..max_gram_length; for n >= 2 also with gaps of up to
/// max_skip_count between items) per row, weighted by `mode`. Per (n, skip): a
/// gather of all windows [B, S, n] compared with the pool's n-grams [G, n],
/// matched windows summed over S, then scattered to the output columns by a
/// constant [G, out] one-hot matmul.
LogicalResult tfIdfVectorizer(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  auto minN = n.intAttr("min_gram_length", 1), maxN = n.intAttr("max_gram_length", 1),
       maxSkip = n.intAttr("max_skip_count", 0);
  auto mode = n.stringAttr("mode", "TF");
  auto counts = n.intsAttr("ngram_counts"), indexes = n.intsAttr("ngram_indexes"),
       pool = n.intsAttr("pool_int64s");
  DLC_TRY(minN);
  DLC_TRY(maxN);
  DLC_TRY(maxSkip);
  DLC_TRY(mode);
  DLC_TRY(counts);
  DLC_TRY(indexes);
  DLC_TRY(pool);
  if (n.hasAttr("pool_strings"))
    return n.error("string pools (pool_strings) are not supported");
  auto xt = tensorType(*x);
  Type elt = xt.getElementType();
  if (!isa<IntegerType>(elt) || xt.getRank() < 1 || xt.getRank() > 2)
    return n.error("expects integer tokens of shape [C] or [B, C]");
  if (*mode != "TF" && *mode != "IDF" && *mode != "TFIDF")
    return n.error("mode must be TF, IDF or TFIDF, got '" + *mode + "'");
  if (*minN < 1 || *maxN < *minN || *maxSkip < 0)
    return n.error("needs 1 <= min_gram_length <= max_gram_length and max_skip_count >= 0");
  SmallVector<float> weights;
  if (const auto *w = n.findAttr("weights"))
    weights.assign(w->floats().begin(), w->floats().end());
  if (indexes->empty())
    return n.error("ngram_indexes is empty");
  if (*std::min_element(indexes->begin(), indexes->end()) < 0 ||
      *std::max_element(indexes->begin(), indexes->end()) == INT64_MAX)
    return n.error("ngram_indexes must be non-negative and below 2^63 - 1");
  int64_t outSize = *std::max_element(indexes->begin(), indexes->end()) + 1;
  if (!weights.empty() && (int64_t)weights.size() < outSize)
    return n.error("weights has " + Twine(weights.size()) + " values, expected " +
                   Twine(outSize));
  // The pool's n-grams by size (the last of duplicates wins, as in ONNX's reference).
  std::map<int64_t, std::map<SmallVector<int64_t>, int64_t>> grams; // size -> gram -> column
  int64_t id = 0, total = pool->size();
  for (size_t i = 0; i < counts->size(); ++i) {
    int64_t size = i + 1, begin = (*counts)[i];
    int64_t end = i + 1 < counts->size() ? (*counts)[i + 1] : total;
    if (begin < 0 || end < begin || end > total || (end - begin) % size)
      return n.error("ngram_counts does not split pool_int64s into whole n-grams");
    for (int64_t at = begin; at < end; at += size, ++id) {
      if (id >= (int64_t)indexes->size())
        return n.error("ngram_indexes has fewer entries than the pool has n-grams");
      if (size >= *minN && size <= *maxN)
        grams[size][SmallVector<int64_t>(pool->begin() + at, pool->begin() + at + size)] =
            (*indexes)[id];
    }
  }
  int64_t B = xt.getRank() == 2 ? xt.getDimSize(0) : 1, C = xt.getDimSize(xt.getRank() - 1);
  Type f32 = n.b.getF32Type(), i64 = n.b.getI64Type();
  // Over dynamic dims (--dims): every position starts a window, its indices clamped to
  // the row and the windows that run past it masked out.
  bool dynamic = !xt.hasStaticShape();
  auto xs = n.sizesOf(*x);
  if (!xs)
    return n.error("the sizes of the input's dynamic dims are not known");
  SymbolicSize Bs = xt.getRank() == 2 ? (*xs)[0] : SymbolicSize::constant(1), Cs = xs->back();
  if (dynamic) {
    auto most = unrollSteps(n, Cs, int64_t(1) << 20, "the row length");
    DLC_TRY(most);
    C = *most;
  } else if (failed(n.checkShape({B, outSize}, f32))) {
    return failure();
  }
  Expr e{n, f32};
  auto shaped = n.reshapeTo(*x, {Bs, Cs});
  DLC_TRY(shaped);
  Value rows = *shaped;
  auto zeros = n.expandTo(e.c(0.0), {Bs, SymbolicSize::constant(outSize)});
  DLC_TRY(zeros);
  Value freq = *zeros;
  for (auto &[size, table] : grams) {
    int64_t G = table.size();
    if (failed(n.checkShape({G, outSize}, f32, "the n-gram to column map")))
      return failure();
    SmallVector<int64_t> gramValues;
    SmallVector<float> onehot(G * outSize, 0.0f);
    int64_t g = 0;
    for (auto &[gram, column] : table) {
      llvm::append_range(gramValues, gram);
      onehot[g++ * outSize + column] = 1.0f;
    }
    auto intAttr = [&](ArrayRef<int64_t> shape, ArrayRef<int64_t> v) {
      Value c = n.constant(DenseElementsAttr::get(RankedTensorType::get(shape, i64), v));
      return e.cast(c, elt);
    };
    Value poolGrams = intAttr({1, 1, G, size}, gramValues);
    Value toColumns = n.constant(DenseElementsAttr::get(
        RankedTensorType::get({G, outSize}, f32), ArrayRef<float>(onehot)));
    // Unigrams are counted once; longer n-grams once per gap 1..max_skip_count+1.
    // Gaps past C leave no window: skip stays below C + 2 (no overflow).
    int64_t maxGap = size == 1 ? 1 : std::min(*maxSkip, C) + 1;
    for (int64_t skip = 1; skip <= maxGap; ++skip) {
      int64_t S = C - (size - 1) * skip;
      if (S <= 0)
        break;
      if (dynamic) {
        auto hit = maskedWindows(n, e, rows, Bs, Cs, size, skip, poolGrams);
        DLC_TRY(hit);
        Value count = e.reduce<ReduceSumOp>(*hit, {1}, false);           // [B, G]
        freq = e.op<AddOp>({freq, e.op<MatMulOp>({count, toColumns})}); // [B, out]
        continue;
      }
      if (failed(n.checkShape({S, size}, i64, "the n-gram windows")))
        return failure();
      SmallVector<int64_t> windows;
      for (int64_t s = 0; s < S; ++s)
        for (int64_t j = 0; j < size; ++j)
          windows.push_back(s + j * skip);
      Value idx = e.ints({S * size}, windows);
      Value w = e.reshape(e.op<GatherOp>({rows, idx}, {n.named("axis", n.b.getI64IntegerAttr(1))}),
                          {B, S, 1, size});
      Value eq = e.cast(e.op<EqualOp>({w, poolGrams}), f32);          // [B, S, G, size]
      Value hit = e.reduce<ReduceMinOp>(eq, {3}, false);               // [B, S, G]
      Value count = e.reduce<ReduceSumOp>(hit, {1}, false);            // [B, G]
      freq = e.op<AddOp>({freq, e.op<MatMulOp>({count, toColumns})}); // [B, out]
    }
  }
  Value y = freq;
  if (!weights.empty() && *mode != "TF") {
    weights.resize(outSize);
    Value wv = n.constant(DenseElementsAttr::get(RankedTensorType::get({1, outSize}, f32),
                                                 ArrayRef<float>(weights)));
    y = *mode == "IDF" ? e.where(e.op<GreaterOp>({freq, e.c(0)}), e.op<MulOp>({wv, e.c(1)}), e.c(0))
                       : e.op<MulOp>({wv, freq});
  } else if (*mode == "IDF") {
    y = e.where(e.op<GreaterOp>({freq, e.c(0)}), e.c(1), e.c(0));
  }
  if (xt.getRank() == 1) {
    auto flat = n.reshapeTo(y, {SymbolicSize::constant(outSize)});
    DLC_TRY(flat);
    y = *flat;
  }
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

constexpr const char *kMLDomain = "ai.onnx.ml";

const OpBuilderEntry kML[] = {
    {"Binarizer", 1, binarizer, kMLDomain},
    {"ArrayFeatureExtractor", 1, arrayFeatureExtractor, kMLDomain},
    {"TreeEnsemble", 5, treeEnsemble, kMLDomain},
    {"TfIdfVectorizer", 9, tfIdfVectorizer},
};

} // namespace

ArrayRef<OpBuilderEntry> mlBuilders() { return kML; }

} // namespace dlc::onnx_frontend
