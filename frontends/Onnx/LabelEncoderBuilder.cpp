// ai.onnx.ml LabelEncoder: each input element's value in a key -> value table (strings,
// integers or floats on either side), or the default; by equality against every key.
#include "frontends/Onnx/Expr.h"

#include "dialects/Graph/IR/DataType.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

using Results = SmallVectorImpl<Value>;

/// A table side or the default: from `<prefix>_tensor`, `_strings`, `_int64s` or `_floats`
/// (`single`: the default's `default_string`, `default_int64`, `default_float`).
FailureOr<Value> tableAttr(NodeImporter &n, StringRef prefix, bool single) {
  auto attrName = [&](StringRef kind) { return (prefix + "_" + kind).str(); };
  if (const auto *a = n.findAttr(attrName("tensor"))) {
    if (a->t().data_type() == onnx::TensorProto::STRING) {
      auto s = tensorToStrings(a->t(), n.loc);
      DLC_TRY(s);
      return stringConstant(n.b, n.loc, s->first, s->second);
    }
    auto v = n.tensorAttr(a->t());
    DLC_TRY(v);
    return n.constant(*v);
  }
  auto flat = [&](Type elt, int64_t count) {
    return RankedTensorType::get(single ? ArrayRef<int64_t>{} : ArrayRef<int64_t>{count}, elt);
  };
  if (const auto *a = n.findAttr(attrName(single ? "string" : "strings"))) {
    std::vector<std::string> values =
        single ? std::vector<std::string>{a->s()}
               : std::vector<std::string>(a->strings().begin(), a->strings().end());
    return stringConstant(n.b, n.loc, flat(n.b.getIntegerType(128), values.size()), values);
  }
  if (const auto *a = n.findAttr(attrName(single ? "int64" : "int64s"))) {
    SmallVector<int64_t> v = single ? SmallVector<int64_t>{a->i()}
                                    : SmallVector<int64_t>(a->ints().begin(), a->ints().end());
    return n.constant(DenseElementsAttr::get(flat(n.b.getI64Type(), v.size()), ArrayRef<int64_t>(v)));
  }
  if (const auto *a = n.findAttr(attrName(single ? "float" : "floats"))) {
    SmallVector<float> v = single ? SmallVector<float>{a->f()}
                                  : SmallVector<float>(a->floats().begin(), a->floats().end());
    return n.constant(DenseElementsAttr::get(flat(n.b.getF32Type(), v.size()), ArrayRef<float>(v)));
  }
  return Value();
}

LogicalResult labelEncoder(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  auto keys = tableAttr(n, "keys", false), values = tableAttr(n, "values", false);
  DLC_TRY(keys);
  DLC_TRY(values);
  if (!*keys || !*values)
    return n.error("needs keys and values (keys_*/values_* attributes)");
  auto kt = tensorType(*keys), vt = tensorType(*values), xt = tensorType(*x);
  if (kt.getRank() != 1 || vt.getRank() != 1 || kt.getDimSize(0) != vt.getDimSize(0) ||
      kt.getDimSize(0) == 0)
    return n.error("keys and values must be 1-D, of one non-zero length");
  if (kt.getElementType() != xt.getElementType())
    return n.error("the input's element type differs from the keys'");
  Type valueElt = vt.getElementType();
  auto dflt = tableAttr(n, "default", true);
  DLC_TRY(dflt);
  Value fallback = *dflt;
  if (!fallback) { // ONNX's defaults: "_Unused", -1, -0.0
    if (isStringElement(valueElt))
      fallback = stringConstant(n.b, n.loc, RankedTensorType::get({}, valueElt), {"_Unused"});
    else if (isa<FloatType>(valueElt))
      fallback = n.scalarConstant(valueElt, -0.0);
    else
      fallback = n.intConstant(valueElt, -1);
  }
  if (tensorType(fallback).getElementType() != valueElt)
    return n.error("the default's element type differs from the values'");
  // x[..., 1] == keys[K]: [..., K].
  int64_t k = kt.getDimSize(0);
  SmallVector<int64_t> col(xt.getShape()), wide(xt.getShape());
  col.push_back(1);
  wide.push_back(k);
  // The input's sizes (dynamic dims by their symbols, dlc compile --dims).
  auto sizes = n.sizesOf(*x);
  if (!sizes)
    return n.error("the sizes of the input's dynamic dims are not known");
  SmallVector<graph::SymbolicSize> colSizes(*sizes), target(*sizes);
  colSizes.push_back(graph::SymbolicSize::constant(1));
  target.push_back(graph::SymbolicSize::constant(k));
  Expr e{n, n.b.getI32Type()};
  auto xc0 = n.reshapeTo(*x, colSizes);
  DLC_TRY(xc0);
  Value xc = *xc0;
  Value eq;
  if (isStringElement(xt.getElementType())) {
    auto a = n.expandTo(xc, target), b = n.expandTo(*keys, target);
    DLC_TRY(a);
    DLC_TRY(b);
    auto r = n.create<StringCallOp>({*a, *b}, {n.named("callee", n.b.getStringAttr("dlc_rt_string_equal"))},
                                    {RankedTensorType::get(wide, n.b.getI1Type())});
    DLC_TRY(r);
    eq = *r;
  } else {
    eq = e.op<EqualOp>({xc, *keys});
  }
  Value hits = e.cast(eq, n.b.getI32Type());
  int64_t last = xt.getRank();
  auto first = n.create<ArgMaxOp>({hits}, {n.named("axis", n.b.getI64IntegerAttr(last)),
                                           n.named("keepdims", n.b.getBoolAttr(false)),
                                           n.named("select_last_index", n.b.getBoolAttr(false))});
  DLC_TRY(first);
  Value found = e.op<GreaterOp>({e.reduce<ReduceMaxOp>(hits, {last}, false), e.c(0)});
  auto picked = n.create<GatherOp>({*values, *first}, {n.named("axis", n.b.getI64IntegerAttr(0))});
  DLC_TRY(picked);
  Value y = e.where(found, *picked, fallback);
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

const OpBuilderEntry kLabelEncoder[] = {
    {"LabelEncoder", 1, labelEncoder, "ai.onnx.ml"},
};

} // namespace

ArrayRef<OpBuilderEntry> labelEncoderBuilders() { return kLabelEncoder; }

} // namespace dlc::onnx_frontend
