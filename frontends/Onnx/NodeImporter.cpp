// NodeImporter: attribute access, constant inputs, tensor protos and checked op creation.
#include "frontends/Onnx/NodeImporter.h"
#include "dialects/Graph/IR/Names.h"
#include "dialects/Graph/IR/NodeName.h"
#include "frontends/Onnx/RuntimeChecks.h"
#include "dialects/Graph/IR/DataType.h"

#include <cmath>
#include "frontends/Onnx/FileIO.h"
#include "dialects/Graph/IR/CheckedBuild.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/ADT/ScopeExit.h"

#include <cstdio>
#include <unistd.h>

using namespace mlir;

namespace dlc::onnx_frontend {

RankedTensorType tensorType(Value v) { return cast<RankedTensorType>(v.getType()); }

Value makeSequence(OpBuilder &b, Location loc, ValueRange elements) {
  auto type = TupleType::get(b.getContext(), elements.getTypes());
  return UnrealizedConversionCastOp::create(b, loc, TypeRange{type}, elements).getResult(0);
}

std::optional<SmallVector<Value>> sequenceElements(Value v) {
  if (!isSequence(v))
    return std::nullopt;
  auto cast = v.getDefiningOp<UnrealizedConversionCastOp>();
  if (!cast)
    return std::nullopt;
  return SmallVector<Value>(cast.getInputs());
}

Value makeNone(OpBuilder &b, Location loc) {
  return UnrealizedConversionCastOp::create(b, loc, TypeRange{b.getNoneType()}, ValueRange{})
      .getResult(0);
}

Type elementTypeFor(MLIRContext *ctx, int t) {
  Builder b(ctx);
  switch (t) {
  case onnx::TensorProto::FLOAT: return b.getF32Type();
  case onnx::TensorProto::DOUBLE: return b.getF64Type();
  case onnx::TensorProto::FLOAT16: return b.getF16Type();
  case onnx::TensorProto::BFLOAT16: return b.getBF16Type();
  case onnx::TensorProto::INT8: case onnx::TensorProto::UINT8: return b.getIntegerType(8);
  case onnx::TensorProto::INT16: case onnx::TensorProto::UINT16: return b.getIntegerType(16);
  case onnx::TensorProto::INT32: case onnx::TensorProto::UINT32: return b.getIntegerType(32);
  case onnx::TensorProto::INT64: case onnx::TensorProto::UINT64: return b.getIntegerType(64);
  case onnx::TensorProto::BOOL: return b.getI1Type();
  // Strings: a pointer and a size (dialects/Graph/IR/DataType.h).
  case onnx::TensorProto::STRING: return b.getIntegerType(128);
  // Low-precision types are held one i8 per element (frontends/Onnx/LowPrecision.h).
  case kFloat8E4M3FN: case kFloat8E4M3FNUZ:
  case kFloat8E5M2: case kFloat8E5M2FNUZ:
  case kFloat4E2M1: case kFloat8E8M0: case kInt4:
  case kUInt4: case kInt2: case kUInt2:
    return b.getIntegerType(8);
  default: return {};
  }
}

int onnxTypeFor(Type elt) { return int(graph::onnxDtypeOf(elt)); }

/// Reads external data (readExternalData), errors at `loc`.
static FailureOr<std::string> readExternal(const onnx::TensorProto &t, const std::string &baseDir,
                                           Location loc, uint64_t expectedBytes) {
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto &kv : t.external_data())
    entries.emplace_back(kv.key(), kv.value());
  std::string bytes, error;
  if (!readExternalData(t.name(), entries, baseDir, expectedBytes, bytes, error))
    return emitError(loc) << error;
  return bytes;
}

FailureOr<std::pair<RankedTensorType, std::vector<std::string>>>
tensorToStrings(const onnx::TensorProto &t, Location loc) {
  SmallVector<int64_t> shape;
  int64_t n = 1;
  for (int64_t d : t.dims()) {
    if (d < 0 || (d > 0 && n > (int64_t(1) << 40) / d))
      return emitError(loc) << "string tensor '" << t.name() << "' has invalid dims";
    n *= d;
    shape.push_back(d);
  }
  if (t.string_data_size() != n)
    return emitError(loc) << "string tensor '" << t.name() << "' has " << t.string_data_size()
                          << " strings for " << n << " elements";
  return std::make_pair(RankedTensorType::get(shape, IntegerType::get(loc.getContext(), 128)),
                        std::vector<std::string>(t.string_data().begin(), t.string_data().end()));
}

FailureOr<DenseElementsAttr> tensorToAttr(const onnx::TensorProto &t, const std::string &baseDir,
                                          Location loc, uint64_t maxTensorBytes) {
  MLIRContext *ctx = loc.getContext();
  Type elt = elementTypeFor(ctx, t.data_type());
  if (!elt)
    return emitError(loc) << "tensor '" << t.name() << "' has unsupported data type "
                          << t.data_type();
  SmallVector<int64_t> shape;
  int64_t n = 1;
  const int64_t limit = int64_t(1) << 40;
  for (int64_t d : t.dims()) {
    if (d < 0 || d > limit)
      return emitError(loc) << "tensor '" << t.name() << "' has invalid dim " << d;
    shape.push_back(d);
    if (d && n > limit / d) // checked before multiplying: no overflow
      return emitError(loc) << "tensor '" << t.name() << "' is too large";
    n *= d;
  }
  auto type = RankedTensorType::get(shape, elt);
  size_t eltBytes = elt.isInteger(1) ? 1 : elt.getIntOrFloatBitWidth() / 8;
  std::string raw;
  bool hasRaw = false;
  int subBits = (t.data_type() == kInt4 || t.data_type() == kUInt4 ||
                 t.data_type() == kFloat4E2M1)
                    ? 4
                : (t.data_type() == kInt2 || t.data_type() == kUInt2)
                    ? 2
                    : 0;
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    // Before reading: the tensor must fit the budget (n <= 2^40 elements: no overflow below).
    if (failed(graph::checkTensorBytes(loc, shape, elt, maxTensorBytes,
                                       ("initializer '" + t.name() + "'").c_str())))
      return failure();
    uint64_t expected = subBits ? (uint64_t(n) + 8 / subBits - 1) / (8 / subBits)
                                : uint64_t(n) * eltBytes;
    auto ext = readExternal(t, baseDir, loc, expected);
    if (failed(ext))
      return failure();
    raw = std::move(*ext);
    hasRaw = true;
  } else if (t.has_raw_data()) {
    raw = t.raw_data();
    hasRaw = true;
  }
  if (hasRaw && subBits) {
    // Packed, lowest bits first; held one (sign-extended) element per byte.
    int per = 8 / subBits, mask = (1 << subBits) - 1;
    if (raw.size() != (size_t)(n + per - 1) / per)
      return emitError(loc) << "tensor '" << t.name() << "' holds " << raw.size()
                            << " bytes, expected " << (n + per - 1) / per;
    bool isSigned = t.data_type() == kInt4 || t.data_type() == kInt2;
    SmallVector<APInt> vals;
    for (int64_t i = 0; i < n; ++i) {
      int v = ((uint8_t)raw[i / per] >> ((i % per) * subBits)) & mask;
      if (isSigned && (v & (1 << (subBits - 1))))
        v -= 1 << subBits;
      vals.push_back(APInt(8, (uint64_t)(int64_t)v, true, true));
    }
    return DenseElementsAttr::get(type, vals);
  }
  if (hasRaw) {
    if (raw.size() != (size_t)n * eltBytes)
      return emitError(loc) << "tensor '" << t.name() << "' holds " << raw.size()
                            << " bytes, expected " << (size_t)n * eltBytes << " for shape "
                            << "[" << llvm::make_range(shape.begin(), shape.end()) << "]";
    if (elt.isInteger(1)) {
      SmallVector<bool> v;
      for (char c : raw)
        v.push_back(c != 0);
      return DenseElementsAttr::get(type, ArrayRef<bool>(v));
    }
    return DenseElementsAttr::getFromRawBuffer(type, ArrayRef<char>(raw.data(), raw.size()));
  }
  // Typed fields.
  auto sizeCheck = [&](int64_t got) -> LogicalResult {
    if (got != n)
      return emitError(loc) << "tensor '" << t.name() << "' holds " << got
                            << " values, expected " << n;
    return success();
  };
  if (elt.isF32()) {
    if (failed(sizeCheck(t.float_data_size())))
      return failure();
    return DenseElementsAttr::get(type, ArrayRef<float>(t.float_data().data(), n));
  }
  if (elt.isF64()) {
    if (failed(sizeCheck(t.double_data_size())))
      return failure();
    return DenseElementsAttr::get(type, ArrayRef<double>(t.double_data().data(), n));
  }
  if (elt.isInteger(64) && t.data_type() == onnx::TensorProto::INT64) {
    if (failed(sizeCheck(t.int64_data_size())))
      return failure();
    return DenseElementsAttr::get(type, ArrayRef<int64_t>(t.int64_data().data(), n));
  }
  unsigned w = elt.getIntOrFloatBitWidth();
  SmallVector<APInt> vals;
  if (t.data_type() == onnx::TensorProto::UINT32 || t.data_type() == onnx::TensorProto::UINT64) {
    if (failed(sizeCheck(t.uint64_data_size())))
      return failure();
    for (uint64_t v : t.uint64_data())
      vals.push_back(APInt(w, v, false, true));
  } else {
    if (failed(sizeCheck(t.int32_data_size())))
      return failure();
    for (int32_t v : t.int32_data())
      vals.push_back(APInt(w, (uint64_t)(int64_t)v, true, true));
  }
  if (isa<FloatType>(elt)) {
    SmallVector<APFloat> f;
    for (const APInt &v : vals)
      f.push_back(APFloat(cast<FloatType>(elt).getFloatSemantics(), v));
    return DenseElementsAttr::get(type, f);
  }
  return DenseElementsAttr::get(type, vals);
}

LogicalResult NodeImporter::error(const Twine &msg) const { return emitError(loc) << msg; }

FailureOr<Value> NodeImporter::requiredInput(unsigned i) {
  if (Value v = input(i))
    return v;
  return error("missing required input " + Twine(i));
}

FailureOr<RankedTensorType> NodeImporter::requireRank(unsigned i, int64_t minRank,
                                                      StringRef what) {
  Value v = input(i);
  if (!v)
    return error(what + " (input " + Twine(i) + ") is required");
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t)
    return error(what + " must be a tensor");
  if (t.getRank() < minRank)
    return error(what + " must have rank >= " + Twine(minRank) + ", got rank " +
                 Twine(t.getRank()));
  return t;
}

FailureOr<int64_t> NodeImporter::product(ArrayRef<int64_t> dims, StringRef what) {
  // A dynamic dim (dlc compile --dims) makes the product dynamic.
  if (llvm::any_of(dims, ShapedType::isDynamic))
    return ShapedType::kDynamic;
  graph::I64c p = graph::productOf(dims);
  if (p.ok())
    return p.value();
  std::string s;
  for (int64_t d : dims)
    s += (s.empty() ? "" : ",") + std::to_string(d);
  return error(what + " of dims [" + s + "] overflows int64");
}

unsigned NodeImporter::numUsedOutputs() const {
  unsigned n = node.output_size();
  while (n > 0 && node.output(n - 1).empty())
    --n;
  return n;
}

const onnx::AttributeProto *NodeImporter::findAttr(StringRef name) const {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}
bool NodeImporter::hasAttr(StringRef name) const { return findAttr(name) != nullptr; }

static const char *attrTypeName(int t) {
  return onnx::AttributeProto::AttributeType_IsValid(t)
             ? onnx::AttributeProto::AttributeType_Name((onnx::AttributeProto::AttributeType)t).c_str()
             : "UNKNOWN";
}

#define DLC_CHECK_ATTR(KIND)                                                                   \
  const onnx::AttributeProto *a = findAttr(name);                                            \
  if (a && a->type() != onnx::AttributeProto::KIND)                                          \
    return emitError(loc) << "attribute '" << name << "' must be " #KIND ", got "            \
                          << attrTypeName(a->type());

FailureOr<int64_t> NodeImporter::intAttr(StringRef name, int64_t dflt) {
  DLC_CHECK_ATTR(INT)
  return a ? a->i() : dflt;
}
FailureOr<float> NodeImporter::floatAttr(StringRef name, float dflt) {
  DLC_CHECK_ATTR(FLOAT)
  return a ? a->f() : dflt;
}
FailureOr<std::string> NodeImporter::stringAttr(StringRef name, StringRef dflt) {
  DLC_CHECK_ATTR(STRING)
  return a ? a->s() : dflt.str();
}
FailureOr<SmallVector<int64_t>> NodeImporter::intsAttr(StringRef name, ArrayRef<int64_t> dflt) {
  DLC_CHECK_ATTR(INTS)
  if (!a)
    return SmallVector<int64_t>(dflt);
  return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}
#undef DLC_CHECK_ATTR

/// The value of `v` when it is known at compile time: a constant, a graph input
/// with a known value (recorded as used), or an op over known values that folds.
/// `inputs` collects the graph inputs it depends on.
static DenseElementsAttr evaluate(Value v, InputSpecializations *spec,
                                  SmallVectorImpl<Value> &inputs, int depth = 0) {
  DenseElementsAttr attr;
  if (matchPattern(v, m_Constant(&attr)))
    return attr;
  if (!spec || depth > 32)
    return {};
  if (auto it = spec->known.find(v); it != spec->known.end()) {
    inputs.push_back(v);
    return it->second;
  }
  Operation *op = v.getDefiningOp();
  if (!op || op->getNumRegions())
    return {};
  SmallVector<Attribute> operands;
  for (Value o : op->getOperands()) {
    auto a = evaluate(o, spec, inputs, depth + 1);
    if (!a)
      return {};
    operands.push_back(a);
  }
  SmallVector<OpFoldResult> folded;
  unsigned idx = cast<OpResult>(v).getResultNumber();
  if (failed(op->fold(operands, folded)) || folded.size() != op->getNumResults())
    return {};
  if (auto a = dyn_cast_if_present<DenseElementsAttr>(dyn_cast<Attribute>(folded[idx])))
    return a;
  // A fold to one of the operands (identity-like ops).
  if (auto same = dyn_cast<Value>(folded[idx]))
    for (auto [o, a] : llvm::zip(op->getOperands(), operands))
      if (o == same)
        return cast<DenseElementsAttr>(a);
  return {};
}

DenseElementsAttr NodeImporter::knownInput(unsigned i) {
  Value v = input(i);
  SmallVector<Value> usedInputs;
  DenseElementsAttr attr = v ? evaluate(v, specializations, usedInputs) : DenseElementsAttr();
  if (attr)
    for (Value u : usedInputs)
      specializations->used.insert(u);
  // Static parts of dynamic shapes (the 64 of [batch, seq, 64]) are constants.
  if (!attr && v && dynamicFunc)
    if (auto values = symbolicInts(i);
        values && llvm::all_of(*values, [](const graph::SymbolicSize &s) { return s.isStatic(); })) {
      auto type = cast<RankedTensorType>(v.getType());
      SmallVector<APInt> ints;
      for (const graph::SymbolicSize &s : *values)
        ints.push_back(APInt(type.getElementTypeBitWidth(), s.coef, /*isSigned=*/true));
      attr = DenseElementsAttr::get(type, ints);
    }
  return attr;
}

graph::SymbolicShapes NodeImporter::shapes() {
  graph::SymbolicShapes s(dynamicFunc);
  // Graph inputs given with --input-value: their contents as sizes.
  if (specializations)
    for (auto &[arg, attr] : specializations->known) {
      auto type = cast<ShapedType>(attr.getType());
      if (!isa<IntegerType>(type.getElementType()) ||
          type.getNumElements() > graph::SymbolicShapes::kMaxValues)
        continue;
      graph::SymbolicDims values;
      for (const APInt &x : attr.getValues<APInt>())
        values.push_back(graph::SymbolicSize::constant(x.getSExtValue()));
      s.setValues(arg, values);
    }
  return s;
}

std::optional<SmallVector<graph::SymbolicSize>> NodeImporter::symbolicInts(unsigned i) {
  Value v = input(i);
  if (!v || !dynamicFunc)
    return std::nullopt;
  std::optional<graph::SymbolicDims> values = shapes().values(v);
  // The graph inputs given with --input-value that the values were computed from: the
  // runtime checks that a run passes the same (descriptor `value` records).
  SmallVector<Value> work = {v};
  llvm::SmallPtrSet<Operation *, 32> seen;
  while (values && specializations && !work.empty() && seen.size() < 512) {
    Value x = work.pop_back_val();
    if (specializations->known.count(x))
      specializations->used.insert(x);
    Operation *op = x.getDefiningOp();
    if (op && !isa<graph::ShapeOp>(op) && seen.insert(op).second)
      llvm::append_range(work, op->getOperands());
  }
  return values;
}

std::optional<SmallVector<graph::SymbolicSize>> NodeImporter::assumingInts(unsigned i) {
  if (auto values = symbolicInts(i))
    return values;
  Value v = input(i);
  if (!v || !dynamicFunc)
    return std::nullopt;
  SmallVector<Operation *> wheres;
  std::optional<graph::SymbolicDims> values = shapes().assumingValues(v, wheres);
  if (!values)
    return std::nullopt;
  for (Operation *w : wheres) {
    auto same = create<graph::EqualOp>({w->getOperand(1), w->getOperand(2)});
    auto ok = succeeded(same) ? create<graph::OrOp>({w->getOperand(0), *same}) : same;
    auto bad = succeeded(ok) ? create<graph::NotOp>({*ok}) : ok;
    StringRef where = graph::nodeName(w->getLoc());
    if (failed(bad) ||
        failed(checkAtRunTime(*this, *bad,
                              "the sizes it uses come from Where node '" + where +
                                  "', compiled for its first branch; this run's condition "
                                  "is false where the branches differ")))
      return std::nullopt;
  }
  return values;
}

Value NodeImporter::staticShapeValue(Value v) {
  auto rt = dyn_cast<RankedTensorType>(v.getType());
  if (!dynamicFunc || !rt || !rt.hasStaticShape() || !rt.getElementType().isSignlessInteger() ||
      (rt.getElementTypeBitWidth() != 64 && rt.getElementTypeBitWidth() != 32) ||
      rt.getNumElements() > graph::SymbolicShapes::kMaxValues || matchPattern(v, m_Constant()))
    return v;
  std::optional<graph::SymbolicDims> known = shapes().values(v);
  if (!known || !llvm::all_of(*known, [](const graph::SymbolicSize &s) { return s.isStatic(); }))
    return v;
  SmallVector<APInt> ints;
  for (const graph::SymbolicSize &s : *known)
    ints.push_back(APInt(rt.getElementTypeBitWidth(), s.coef, /*isSigned=*/true));
  return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(rt, ints));
}

std::optional<SmallVector<graph::SymbolicSize>> NodeImporter::sizesOf(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t)
    return std::nullopt;
  if (!t.hasStaticShape())
    return symbolicDims(v);
  SmallVector<graph::SymbolicSize> out;
  for (int64_t d : t.getShape())
    out.push_back(graph::SymbolicSize::constant(d));
  return out;
}

std::optional<SmallVector<graph::SymbolicSize>> NodeImporter::symbolicDims(Value v) {
  if (!v || !dynamicFunc)
    return std::nullopt;
  graph::SymbolicShapes all = shapes();
  FailureOr<graph::SymbolicDims> d = all.dims(v);
  return succeeded(d) ? std::optional<graph::SymbolicDims>(*d) : std::nullopt;
}

FailureOr<Value> NodeImporter::expandTo(Value v, ArrayRef<graph::SymbolicSize> target) {
  using graph::SymbolicSize;
  auto t = cast<RankedTensorType>(v.getType());
  SmallVector<SymbolicSize> in;
  if (t.hasStaticShape()) {
    for (int64_t d : t.getShape())
      in.push_back(SymbolicSize::constant(d));
  } else if (auto dims = symbolicDims(v)) {
    in = *dims;
  } else {
    return emitError(loc) << "the sizes of the expanded input's dynamic dims are not known";
  }
  size_t rank = std::max(in.size(), target.size());
  SmallVector<int64_t> shape;
  SmallVector<std::string> names;
  auto one = SymbolicSize::constant(1);
  for (size_t i = 0; i < rank; ++i) {
    SymbolicSize a = i + in.size() >= rank ? in[i + in.size() - rank] : one;
    SymbolicSize b = i + target.size() >= rank ? target[i + target.size() - rank] : one;
    if ((a.isStatic() && a.coef < 0) || (b.isStatic() && b.coef < 0))
      return emitError(loc) << "cannot expand to a negative size";
    SymbolicSize out = b == one ? a : a == one || a == b ? b : SymbolicSize::constant(-1);
    // A dynamic dim against another size: taken to be equal (checked when the model runs).
    if (!a.isStatic() && b != one)
      out = b;
    if (out.isStatic() && out.coef < 0)
      return emitError(loc) << "cannot expand dim " << i << " of size " << a.str() << " to "
                            << b.str();
    shape.push_back(out.isStatic() ? out.coef : ShapedType::kDynamic);
    names.push_back(out.isStatic() ? "" : out.str());
  }
  auto type = RankedTensorType::get(shape, t.getElementType());
  if (type == t)
    return v;
  SmallVector<NamedAttribute> attrs;
  if (!type.hasStaticShape())
    attrs.push_back(named("dims", b.getStrArrayAttr(SmallVector<StringRef>(names.begin(), names.end()))));
  return create<graph::ExpandOp>({v}, attrs, {type});
}

FailureOr<Value> NodeImporter::reshapeTo(Value v, ArrayRef<graph::SymbolicSize> sizes) {
  SmallVector<int64_t> shape;
  SmallVector<std::string> names;
  for (const graph::SymbolicSize &s : sizes) {
    shape.push_back(s.isStatic() ? s.coef : ShapedType::kDynamic);
    names.push_back(s.isStatic() ? "" : s.str());
  }
  auto t = cast<RankedTensorType>(v.getType());
  auto type = RankedTensorType::get(shape, t.getElementType());
  if (type.hasStaticShape() && t.hasStaticShape())
    return reshape(v, shape);
  std::optional<graph::SymbolicDims> in = sizesOf(v);
  if (!in)
    return emitError(loc) << "the sizes of the reshaped input's dynamic dims are not known";
  if (ArrayRef(*in) == sizes && type == t) // (a dynamic dim may have a static size)
    return v;
  // Counts that may differ (a floor quotient, static sizes for dynamic dims) are compared
  // before the run (checkDynamicDims).
  SmallVector<StringRef> refs(names.begin(), names.end());
  return create<graph::ReshapeOp>({v}, {named("dims", b.getStrArrayAttr(refs))}, {type});
}

FailureOr<Value> NodeImporter::dimSize(Value v, int64_t d) {
  auto t = cast<RankedTensorType>(v.getType());
  if (!t.isDynamicDim(d))
    return intConstant(b.getI64Type(), t.getDimSize(d));
  SmallVector<int64_t> starts = {d}, sizes = {1}, steps = {1};
  auto shape = create<graph::ShapeOp>({v});
  DLC_TRY(shape);
  auto part = create<graph::SliceOp>({*shape}, {named("starts", b.getDenseI64ArrayAttr(starts)),
                                               named("sizes", b.getDenseI64ArrayAttr(sizes)),
                                               named("steps", b.getDenseI64ArrayAttr(steps))});
  DLC_TRY(part);
  return reshape(*part, {});
}

FailureOr<Value> NodeImporter::sizeValue(const graph::SymbolicSize &size) {
  Type i64 = b.getI64Type();
  Value acc = intConstant(i64, size.coef);
  for (const auto &[sym, power] : size.syms) {
    FailureOr<Value> v = failure();
    if (std::optional<graph::DerivedSize> d = graph::parseDerived(sym)) {
      if (d->kind == graph::DerivedSize::Max || d->kind == graph::DerivedSize::Min) {
        auto x = sizeValue(d->terms[0]), y = sizeValue(d->terms[1]);
        DLC_TRY(x);
        DLC_TRY(y);
        v = d->kind == graph::DerivedSize::Max ? create<graph::MaxOp>({*x, *y})
                                               : create<graph::MinOp>({*x, *y});
      } else if (d->isQuotient()) {
        auto n = sizeValue(d->dividend);
        DLC_TRY(n);
        auto by = d->divisor ? FailureOr<Value>(intConstant(i64, d->divisor))
                             : sizeValue(d->divisorSize);
        DLC_TRY(by);
        v = create<graph::DivOp>({*n, *by});
      } else {
        for (const graph::SymbolicSize &term : d->terms) {
          auto t = sizeValue(term);
          DLC_TRY(t);
          v = succeeded(v) ? create<graph::AddOp>({*v, *t}) : t;
          DLC_TRY(v);
        }
      }
    } else if (dynamicFunc) {
      for (BlockArgument arg : dynamicFunc.getArguments()) {
        auto dims = dynamicFunc.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), graph::kDimsAttr);
        if (!dims)
          continue;
        for (auto [i, s] : llvm::enumerate(dims.getAsValueRange<StringAttr>()))
          if (s == sym && failed(v))
            v = dimSize(arg, i);
      }
    }
    if (failed(v))
      return emitError(loc) << "the size " << sym << " is not known here";
    for (int i = 0; i < power; ++i) {
      auto m = create<graph::MulOp>({acc, *v});
      DLC_TRY(m);
      acc = *m;
    }
  }
  return acc;
}

FailureOr<Value> NodeImporter::iota(const graph::SymbolicSize &len) {
  Type i64 = b.getI64Type();
  if (len.isStatic()) {
    SmallVector<int64_t> v;
    for (int64_t i = 0; i < len.coef; ++i)
      v.push_back(i);
    return constant(DenseElementsAttr::get(RankedTensorType::get({len.coef}, i64),
                                           ArrayRef<int64_t>(v)));
  }
  auto bounds = graph::sizeBounds(dynamicFunc, len);
  constexpr int64_t kMaxIota = int64_t(1) << 20;
  if (!bounds || bounds->second > kMaxIota)
    return emitError(loc) << "positions up to " << len.str()
                          << " need that size's upper bound (at most " << kMaxIota
                          << "; narrow the ranges with --dims)";
  SmallVector<int64_t> v;
  for (int64_t i = 0; i < std::max<int64_t>(bounds->second, 0); ++i)
    v.push_back(i);
  Value all = constant(DenseElementsAttr::get(
      RankedTensorType::get({(int64_t)v.size()}, i64), ArrayRef<int64_t>(v)));
  SmallVector<int64_t> zero = {0}, dynamic = {ShapedType::kDynamic}, one = {1};
  std::string size = len.str();
  return create<graph::SliceOp>({all}, {named("starts", b.getDenseI64ArrayAttr(zero)),
                                        named("sizes", b.getDenseI64ArrayAttr(dynamic)),
                                        named("steps", b.getDenseI64ArrayAttr(one)),
                                        named("dims", b.getStrArrayAttr({size}))});
}


FailureOr<Value> NodeImporter::elementCount(Value v, Type elt) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.hasStaticShape())
    return scalarConstant(elt, (double)t.getNumElements());
  auto shape = create<graph::ShapeOp>({v});
  DLC_TRY(shape);
  auto count = create<graph::ReduceProdOp>({*shape}, {named("axes", b.getDenseI64ArrayAttr({0})),
                                                      named("keepdims", b.getBoolAttr(false))});
  DLC_TRY(count);
  return create<graph::CastOp>({*count}, {}, {RankedTensorType::get({}, elt)});
}

std::string NodeImporter::valueSource(Value v, bool throughShapes) {
  SmallVector<Value> work = {v};
  llvm::SmallPtrSet<Operation *, 32> seen;
  while (v && !work.empty() && seen.size() < 512) {
    Value x = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(x)) {
      auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
      if (specializations && specializations->known.count(arg)) // given already
        continue;
      if (auto name = func ? func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), graph::kNameAttr)
                           : StringAttr())
        return name.str();
      continue;
    }
    Operation *op = x.getDefiningOp();
    if (!op || (!throughShapes && isa<graph::ShapeOp>(op)) || !seen.insert(op).second)
      continue;
    llvm::append_range(work, op->getOperands());
  }
  return "";
}

FailureOr<DenseElementsAttr> NodeImporter::constantInput(unsigned i) {
  Value v = input(i);
  if (DenseElementsAttr attr = knownInput(i))
    return attr;
  if (v && isa<BlockArgument>(v))
    return emitError(loc) << "input " << i << " ('" << node.input(i)
                          << "') is a graph input whose value must be known when compiling "
                             "(dlc compile --input-value "
                          << node.input(i) << "=FILE)";
  // Computed from a graph input's value (not its shape): that value must be known.
  std::string from = valueSource(v);
  auto diag = emitError(loc) << "input " << i << " ('"
                             << (i < (unsigned)node.input_size() ? node.input(i) : "")
                             << "') must be a compile-time constant";
  if (!from.empty())
    diag << "; it is computed from graph input '" << from
         << "', whose value must then be known when compiling (dlc compile --input-value "
         << from << "=FILE)";
  return diag;
}

FailureOr<SmallVector<int64_t>> NodeImporter::constantInts(unsigned i) {
  auto attr = constantInput(i);
  if (failed(attr))
    return failure();
  if (!attr->getElementType().isInteger())
    return emitError(loc) << "input " << i << " must hold integers";
  SmallVector<int64_t> r;
  for (const APInt &v : attr->getValues<APInt>())
    r.push_back(v.getSExtValue());
  return r;
}

FailureOr<int64_t> NodeImporter::normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
    return emitError(loc) << "axis " << axis << " is out of range for rank " << rank;
  return axis < 0 ? axis + rank : axis;
}

FailureOr<int64_t> NodeImporter::dimAxis(int64_t axis, int64_t rank) {
  if (rank == 0)
    return emitError(loc) << "expects an input of rank >= 1, got a scalar";
  return normalizeAxis(axis, rank);
}

FailureOr<SmallVector<Value>> NodeImporter::createMulti(StringRef opName, ValueRange operands,
                                                        ArrayRef<NamedAttribute> attrs,
                                                        TypeRange resultTypes) {
  return graph::createChecked(b, loc, opName, operands, attrs, resultTypes, maxTensorBytes);
}

std::string NodeImporter::num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

LogicalResult NodeImporter::checkShape(ArrayRef<int64_t> shape, Type elt, StringRef what) const {
  return graph::checkTensorBytes(loc, shape, elt, maxTensorBytes, what);
}

Value NodeImporter::constant(DenseElementsAttr value) {
  return arith::ConstantOp::create(b, loc, value);
}

Value NodeImporter::scalarConstant(Type elt, double v) {
  return graph::rank0Constant(b, loc, elt, v);
}

Value NodeImporter::intConstant(Type elt, int64_t v) {
  return graph::rank0IntConstant(b, loc, elt, v);
}

FailureOr<Value> NodeImporter::reshape(Value v, ArrayRef<int64_t> shape) {
  auto t = tensorType(v);
  if (t.getShape() == shape)
    return v;
  return create<graph::ReshapeOp>({v}, {}, {RankedTensorType::get(shape, t.getElementType())});
}

} // namespace dlc::onnx_frontend
