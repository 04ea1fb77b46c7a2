// ONNX ops on string tensors (held as i128: pointer and size, dialects/Graph/IR/DataType.h):
// string constants, the string ops (StringConcat, RegexFullMatch), Equal on strings, and
// which other ops may move strings.
#include "frontends/Onnx/NodeImporter.h"

#include "dialects/Graph/IR/DataType.h"

#include <re2/re2.h>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

using Results = SmallVectorImpl<Value>;

/// The inputs broadcast (NumPy rules) to one static shape.
FailureOr<SmallVector<Value>> broadcastAll(NodeImporter &n, ArrayRef<Value> values) {
  SmallVector<int64_t> shape;
  for (Value v : values) {
    auto t = tensorType(v);
    if (!t.hasStaticShape())
      return n.error("string tensors with dynamic dims are not supported");
    ArrayRef<int64_t> s = t.getShape();
    if (s.size() > shape.size())
      shape.insert(shape.begin(), s.size() - shape.size(), 1);
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t &d = shape[shape.size() - s.size() + i];
      if (d == 1)
        d = s[i];
      else if (s[i] != 1 && s[i] != d)
        return n.error("cannot broadcast the string inputs' shapes together");
    }
  }
  SmallVector<SymbolicSize> target;
  for (int64_t d : shape)
    target.push_back(SymbolicSize::constant(d));
  SmallVector<Value> out;
  for (Value v : values) {
    auto e = n.expandTo(v, target);
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

const OpBuilderEntry kStrings[] = {
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
