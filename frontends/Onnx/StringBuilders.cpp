// ONNX ops on string tensors (held as i128: pointer and size, dialects/Graph/IR/DataType.h):
// string constants, the string ops (StringConcat, RegexFullMatch, StringNormalizer), Equal
// on strings, and
// which other ops may move strings.
#include "frontends/Onnx/Expr.h"

#include "dialects/Graph/IR/DataType.h"
#include "dialects/Graph/IR/Names.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <re2/re2.h>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

using Results = SmallVectorImpl<Value>;

/// The inputs broadcast (NumPy rules) to one shape (dynamic dims by their symbols).
FailureOr<SmallVector<Value>> broadcastAll(NodeImporter &n, ArrayRef<Value> values) {
  SmallVector<SymbolicSize> shape;
  auto one = SymbolicSize::constant(1);
  for (Value v : values) {
    auto sizes = n.sizesOf(v);
    if (!sizes)
      return n.error("the sizes of the string inputs' dynamic dims are not known");
    SmallVector<SymbolicSize> s = *sizes;
    if (s.size() > shape.size())
      shape.insert(shape.begin(), s.size() - shape.size(), one);
    for (size_t i = 0; i < s.size(); ++i) {
      SymbolicSize &d = shape[shape.size() - s.size() + i];
      if (d == one)
        d = s[i];
      else if (s[i] != one && s[i] != d)
        return n.error("cannot broadcast the string inputs' shapes together (" + d.str() +
                       " against " + s[i].str() + ")");
    }
  }
  SmallVector<Value> out;
  for (Value v : values) {
    auto e = n.expandTo(v, shape);
    DLC_TRY(e);
    out.push_back(*e);
  }
  return out;
}

/// An elementwise call of runtime function `callee` over the string inputs (broadcast),
/// with `literal` appended; its results strings or, with `boolResult`, bools.
LogicalResult stringCall(NodeImporter &n, StringRef callee, unsigned numInputs, bool boolResult,
                         Results &out, std::optional<std::string> literal = std::nullopt) {
  SmallVector<Value> ins;
  for (unsigned i = 0; i < numInputs; ++i) {
    auto v = n.requiredInput(i);
    DLC_TRY(v);
    if (!isStringElement(tensorType(*v).getElementType()))
      return n.error("input " + Twine(i) + " must be a string tensor");
    ins.push_back(*v);
  }
  auto b = broadcastAll(n, ins);
  DLC_TRY(b);
  auto shape = tensorType((*b)[0]).getShape();
  auto type = RankedTensorType::get(shape, boolResult ? n.b.getI1Type() : n.b.getIntegerType(128));
  SmallVector<NamedAttribute> attrs = {n.named("callee", n.b.getStringAttr(callee))};
  if (literal)
    attrs.push_back(n.named("literal", n.b.getStringAttr(*literal)));
  auto r = n.create<StringCallOp>(*b, attrs, {type});
  DLC_TRY(r);
  out.push_back(*r);
  return success();
}

LogicalResult stringConcat(NodeImporter &n, Results &out) {
  return stringCall(n, "dlc_rt_string_concat", 2, false, out);
}

LogicalResult stringEqual(NodeImporter &n, Results &out) {
  return stringCall(n, "dlc_rt_string_equal", 2, true, out);
}

/// RegexFullMatch: the pattern is checked when compiling (RE2 syntax, as ONNX specifies).
LogicalResult regexFullMatch(NodeImporter &n, Results &out) {
  auto pattern = n.stringAttr("pattern", "");
  DLC_TRY(pattern);
  re2::RE2::Options options;
  options.set_log_errors(false);
  re2::RE2 re(*pattern, options);
  if (!re.ok())
    return n.error("invalid pattern '" + *pattern + "': " + re.error());
  return stringCall(n, "dlc_rt_regex_full_match", 1, true, out, *pattern);
}

/// A one-input call of `callee` on string tensor `x` (same shape), with `literal` last.
FailureOr<Value> mapStrings(NodeImporter &n, Value x, StringRef callee, StringRef literal) {
  return n.create<StringCallOp>({x}, {n.named("callee", n.b.getStringAttr(callee)),
                                      n.named("literal", n.b.getStringAttr(literal))},
                                {tensorType(x)});
}

/// StringNormalizer: stopwords removed (compared after lowering both when case-insensitive),
/// then the case changed; an input left empty gives one empty string. The kept count is
/// computed when the model runs.
LogicalResult stringNormalizer(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  auto action = n.stringAttr("case_change_action", "NONE");
  auto sensitive = n.intAttr("is_case_sensitive", 0);
  auto locale = n.stringAttr("locale", "");
  DLC_TRY(action);
  DLC_TRY(sensitive);
  DLC_TRY(locale);
  if (*action != "NONE" && *action != "LOWER" && *action != "UPPER")
    return n.error("case_change_action must be NONE, LOWER or UPPER, got '" + *action + "'");
  // Unicode's simple case mapping is every locale's but those with rules of their own.
  StringRef lang = StringRef(*locale).take_until([](char c) { return c == '_' || c == '-'; });
  if (lang == "tr" || lang == "az" || lang == "lt")
    return n.error("locale '" + *locale + "' has case rules of its own, which are not supported");
  auto t = tensorType(*x);
  if (!isStringElement(t.getElementType()) ||
      !(t.getRank() == 1 || (t.getRank() == 2 && t.getDimSize(0) == 1)))
    return n.error("input must be a string tensor of shape [C] or [1, C]");
  auto sizes = n.sizesOf(*x); // C by its symbol where dynamic (dlc compile --dims)
  if (!sizes)
    return n.error("the sizes of the input's dynamic dims are not known");
  Value cased = *x;
  if (*action != "NONE") {
    auto c = mapStrings(n, *x, *action == "LOWER" ? "dlc_rt_string_lower" : "dlc_rt_string_upper",
                        *locale);
    DLC_TRY(c);
    cased = *c;
  }
  std::vector<std::string> stopwords;
  if (const auto *a = n.findAttr("stopwords"))
    stopwords.assign(a->strings().begin(), a->strings().end());
  if (stopwords.empty()) {
    out.push_back(cased);
    return success();
  }
  int64_t c = t.getDimSize(t.getRank() - 1), s = stopwords.size();
  Expr e{n, n.b.getI32Type()};
  // x [C, 1] == stopwords [S] (both lowered when case-insensitive): [C, S].
  graph::SymbolicSize C = sizes->back();
  auto column = n.reshapeTo(*x, {C, graph::SymbolicSize::constant(1)});
  DLC_TRY(column);
  Value words = *column;
  Value stops = stringConstant(n.b, n.loc, RankedTensorType::get({s}, t.getElementType()), stopwords);
  if (e.failed)
    return failure();
  if (!*sensitive) {
    auto w = mapStrings(n, words, "dlc_rt_string_lower", *locale);
    auto st = mapStrings(n, stops, "dlc_rt_string_lower", *locale);
    DLC_TRY(w);
    DLC_TRY(st);
    words = *w;
    stops = *st;
  }
  SmallVector<graph::SymbolicSize> grid = {C, graph::SymbolicSize::constant(s)};
  auto a = n.expandTo(words, grid), b = n.expandTo(stops, grid);
  DLC_TRY(a);
  DLC_TRY(b);
  auto eq = n.create<StringCallOp>({*a, *b}, {n.named("callee", n.b.getStringAttr("dlc_rt_string_equal"))},
                                   {RankedTensorType::get({c, s}, n.b.getI1Type())});
  DLC_TRY(eq);
  Value stop = e.op<GreaterOp>({e.reduce<ReduceMaxOp>(e.cast(*eq, n.b.getI32Type()), {1}, false),
                                e.c(0)});
  Value keep = e.op<NotOp>({stop});
  // One more entry, "", kept only when no word is: the empty result's one empty string.
  Value none = e.op<NotOp>({e.op<GreaterOp>({e.reduce<ReduceMaxOp>(e.cast(keep, n.b.getI32Type()), {0},
                                                                   false),
                                             e.c(0)})});
  Value keepAll = e.op<ConcatOp>({keep, e.reshape(none, {1})}, {n.named("axis", n.b.getI64IntegerAttr(0))});
  SmallVector<int64_t> oneShape(t.getShape());
  oneShape.back() = 1;
  Value empty = stringConstant(n.b, n.loc, RankedTensorType::get(oneShape, t.getElementType()), {""});
  Value padded = e.op<ConcatOp>({cased, empty}, {n.named("axis", n.b.getI64IntegerAttr(t.getRank() - 1))});
  if (e.failed)
    return failure();
  return compressWithRuntimeCondition(n, padded, keepAll, t.getRank() - 1, out);
}

/// StringSplit: the parts' last dim is computed when the model runs (at most maxsplit + 1,
/// else without a bound: the runtime grows the output).
LogicalResult stringSplit(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  auto delimiter = n.stringAttr("delimiter", "");
  DLC_TRY(delimiter);
  auto t = tensorType(*x);
  if (!isStringElement(t.getElementType()))
    return n.error("input must be a string tensor");
  int64_t maxsplit = -1;
  if (n.hasAttr("maxsplit")) {
    auto m = n.intAttr("maxsplit", -1);
    DLC_TRY(m);
    if (*m < 0)
      return n.error("maxsplit must be >= 0, got " + Twine(*m));
    maxsplit = *m;
  }
  auto sym = computedDim(n, "StringSplit", maxsplit >= 0 ? maxsplit + 1 : kUnboundedDim);
  DLC_TRY(sym);
  SmallVector<int64_t> shape(t.getShape());
  shape.push_back(ShapedType::kDynamic);
  auto r = n.createMulti(StringSplitOp::getOperationName(), {*x},
                         {n.named("delimiter", n.b.getStringAttr(*delimiter)),
                          n.named("maxsplit", n.b.getI64IntegerAttr(maxsplit)),
                          n.named("count", n.b.getStringAttr(*sym))},
                         {RankedTensorType::get(shape, t.getElementType()),
                          RankedTensorType::get(t.getShape(), n.b.getI64Type())});
  DLC_TRY(r);
  out.append(r->begin(), r->end());
  return success();
}

const OpBuilderEntry kStrings[] = {
    {"StringSplit", 20, stringSplit},
    {"StringNormalizer", 10, stringNormalizer},
    {"StringConcat", 20, stringConcat},
    {"RegexFullMatch", 20, regexFullMatch},
};

const OpBuilderEntry kStringEqual = {"Equal", 11, stringEqual};

} // namespace

Value stringConstant(OpBuilder &b, Location loc, RankedTensorType shape,
                     ArrayRef<std::string> values) {
  SmallVector<StringRef> refs(values.begin(), values.end());
  auto type = RankedTensorType::get(shape.getShape(), b.getIntegerType(128));
  return StringConstantOp::create(b, loc, type, b.getStrArrayAttr(refs));
}

const OpBuilderEntry *stringBuilderFor(StringRef opType) {
  // Ops that only move elements take strings as they are.
  static const char *kMoves[] = {
      "Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Concat",
      "Split", "Slice", "Gather", "GatherElements", "GatherND", "Expand", "Tile", "Shape",
      "Size", "Where", "Compress", "ScatterND", "ScatterElements", "Constant", "LabelEncoder"};
  static const OpBuilderEntry kMove = {"", 0, nullptr};
  if (opType == "Equal")
    return &kStringEqual;
  for (const OpBuilderEntry &e : kStrings)
    if (opType == e.opType)
      return &e;
  return llvm::is_contained(kMoves, opType) ? &kMove : nullptr;
}

ArrayRef<OpBuilderEntry> stringBuilders() { return kStrings; }

} // namespace dlc::onnx_frontend
