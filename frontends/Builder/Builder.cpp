// GraphBuilder: checked creation of dlc_graph ops from C++ calls, errors as one-line diagnostics.
#include "frontends/Builder/Builder.h"
#include "dialects/Graph/IR/Names.h"

#include "dialects/Graph/IR/CheckedBuild.h"
#include "dialects/Graph/IR/GraphDialect.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <type_traits>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::builder {

namespace {


Type elementType(MLIRContext *ctx, DType t) {
  Builder b(ctx);
  switch (t) {
  case DType::F32: return b.getF32Type();
  case DType::F64: return b.getF64Type();
  case DType::I8: return b.getIntegerType(8);
  case DType::I32: return b.getIntegerType(32);
  case DType::I64: return b.getIntegerType(64);
  case DType::Bool: return b.getI1Type();
  case DType::Undefined: return {};
  }
  return {};
}

DType dtypeOf(Type t) {
  if (t.isF32()) return DType::F32;
  if (t.isF64()) return DType::F64;
  if (t.isInteger(1)) return DType::Bool;
  if (t.isInteger(8)) return DType::I8;
  if (t.isInteger(32)) return DType::I32;
  if (t.isInteger(64)) return DType::I64;
  return DType::Undefined;
}

Type elementTypeOf(Value v) { return cast<RankedTensorType>(v.getType()).getElementType(); }

/// One line for a diagnostic, in the style of dlc::Compilation's collector.
std::string formatDiagnostic(Diagnostic &d) {
  Location loc = d.getLocation();
  if (auto fused = dyn_cast<FusedLoc>(loc); fused && !fused.getLocations().empty())
    loc = fused.getLocations().front();
  std::string line;
  if (auto name = dyn_cast<NameLoc>(loc)) line = "node '" + name.getName().str() + "': ";
  line += d.str();
  std::replace(line.begin(), line.end(), '\n', ' ');
  return line;
}

} // namespace

//===----------------------------------------------------------------------===//
// Tensor
//===----------------------------------------------------------------------===//

ArrayRef<int64_t> Tensor::shape() const {
  if (auto t = v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType())
    return t.getShape();
  return {};
}

int64_t Tensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape())
    n *= d;
  return n;
}

DType Tensor::dtype() const {
  if (auto t = v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType())
    return dtypeOf(t.getElementType());
  return DType::Undefined;
}

//===----------------------------------------------------------------------===//
// Builder state and the one path every call takes
//===----------------------------------------------------------------------===//

struct GraphBuilder::Impl {
  using Body = llvm::function_ref<FailureOr<Value>(Location, ArrayRef<Value>)>;

  explicit Impl(MLIRContext &ctx) : ctx(ctx), b(&ctx) {
    ctx.loadDialect<GraphDialect, func::FuncDialect, arith::ArithDialect>();
    Location loc = UnknownLoc::get(&ctx);
    module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module->getBody());
    // The function type is set by finish(), once inputs and outputs are known.
    func = func::FuncOp::create(b, loc, dlc::graph::kMainFunction, b.getFunctionType({}, {}));
    body = func.addEntryBlock();
  }

  /// Runs one builder call named `kind`: operands [0, numRequired) must be
  /// valid, later ones may be absent (null Value). Errors go through MLIR
  /// diagnostics at NameLoc("<kind>_<n>"); the first one stops the builder.
  Tensor run(StringRef kind, ArrayRef<Tensor> operands, size_t numRequired, Body fn) {
    if (!firstError.empty()) return {};
    unsigned n = counters[kind]++;
    Location loc = NameLoc::get(b.getStringAttr(kind + "_" + Twine(n)));
    ScopedDiagnosticHandler handler(&ctx, [this](Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error && firstError.empty())
        firstError = formatDiagnostic(d);
      return failure(); // also reach the context's own handler (a Compilation's collector)
    });
    if (finished) {
      emitError(loc) << "the graph is already finished";
      return {};
    }
    SmallVector<Value> values;
    for (auto [i, t] : llvm::enumerate(operands)) {
      if (!t.valid() && i >= numRequired) {
        values.push_back({});
        continue;
      }
      if (!t.valid()) {
        emitError(loc) << "operand " << i << " is not a valid tensor";
        return {};
      }
      if (t.value().getParentBlock() != body) {
        emitError(loc) << "operand " << i << " belongs to another graph";
        return {};
      }
      values.push_back(t.value());
    }
    b.setInsertionPointToEnd(body);
    FailureOr<Value> r = fn(loc, values);
    if (failed(r)) {
      if (firstError.empty()) firstError = "node '" + (kind + "_" + Twine(n)).str() + "': failed";
      return {};
    }
    return Tensor(*r);
  }

  FailureOr<Value> create(Location loc, StringRef opName, ValueRange operands,
                          ArrayRef<NamedAttribute> attrs = {}, TypeRange types = {}) {
    // Absent optional operands are dropped (they are trailing in every op used).
    SmallVector<Value> present;
    for (Value v : operands)
      if (v) present.push_back(v);
    auto r = createChecked(b, loc, opName, present, attrs, types);
    if (failed(r)) return failure();
    return (*r)[0];
  }

  /// One op with all operands required.
  Tensor op(StringRef kind, StringRef opName, ArrayRef<Tensor> operands,
            ArrayRef<NamedAttribute> attrs = {}) {
    return run(kind, operands, operands.size(),
               [&](Location loc, ArrayRef<Value> v) { return create(loc, opName, v, attrs); });
  }

  FailureOr<int64_t> normalizeAxis(Location loc, int64_t axis, int64_t rank) {
    if (axis < -rank || axis >= rank)
      return emitError(loc) << "axis " << axis << " is out of range for rank " << rank;
    return axis < 0 ? axis + rank : axis;
  }

  /// Element count of a user-given shape; negative dims and absurd sizes are errors.
  FailureOr<int64_t> numElements(Location loc, const Twine &what, ArrayRef<int64_t> shape) {
    constexpr int64_t kMaxElements = int64_t(1) << 40;
    int64_t n = 1;
    for (int64_t d : shape)
      if (d < 0)
        return emitError(loc) << what << ": shape " << graph::shapeText(shape) << " has a negative dim";
    for (int64_t d : shape) {
      if (d != 0 && n > kMaxElements / d)
        return emitError(loc) << what << ": shape " << graph::shapeText(shape) << " is too large";
      n *= d;
    }
    return n;
  }

  template <typename T>
  Tensor constant(StringRef kind, std::string name, ArrayRef<int64_t> shape, ArrayRef<T> data,
                  DType dtype) {
    return run(kind, {}, 0, [&](Location loc, ArrayRef<Value>) -> FailureOr<Value> {
      std::string what = name.empty() ? std::string(kind) : kind.str() + " '" + name + "'";
      if (!name.empty() && !weightNames.insert(name).second)
        return emitError(loc) << what << " is declared twice";
      auto n = numElements(loc, what, shape);
      if (failed(n)) return failure();
      if ((int64_t)data.size() != *n)
        return emitError(loc) << what << ": shape " << graph::shapeText(shape) << " has " << *n
                              << " elements, got " << data.size() << " values";
      auto type = RankedTensorType::get(shape, elementType(&ctx, dtype));
      Location opLoc = name.empty() ? loc : NameLoc::get(b.getStringAttr(name));
      return arith::ConstantOp::create(b, opLoc, DenseElementsAttr::get(type, data)).getResult();
    });
  }

  /// One op whose `axis` attribute is normalized against the input rank.
  Tensor axisOp(StringRef kind, StringRef opName, Tensor x, int64_t axis) {
    return run(kind, {x}, 1, [&](Location loc, ArrayRef<Value> v) -> FailureOr<Value> {
      auto a = normalizeAxis(loc, axis, Tensor(v[0]).rank());
      if (failed(a)) return failure();
      return create(loc, opName, v, {b.getNamedAttr("axis", b.getI64IntegerAttr(*a))});
    });
  }

  template <typename ReduceOpTy>
  Tensor reduce(StringRef kind, Tensor x, ArrayRef<int64_t> axes, bool keepdims) {
    return run(kind, {x}, 1, [&](Location loc, ArrayRef<Value> v) -> FailureOr<Value> {
      int64_t rank = Tensor(v[0]).rank();
      SmallVector<int64_t> norm;
      for (int64_t a : axes) {
        auto na = normalizeAxis(loc, a, rank);
        if (failed(na)) return failure();
        if (llvm::is_contained(norm, *na))
          return emitError(loc) << "axis " << a << " is given twice in " << graph::shapeText(axes);
        norm.push_back(*na);
      }
      if (axes.empty())
        for (int64_t d = 0; d < rank; ++d)
          norm.push_back(d);
      llvm::sort(norm);
      return create(loc, ReduceOpTy::getOperationName(), v,
                    {b.getNamedAttr("axes", b.getDenseI64ArrayAttr(norm)),
                     b.getNamedAttr("keepdims", b.getBoolAttr(keepdims))});
    });
  }

  /// Window attributes shared by conv and pooling; pads [h, w] become [h, w, h, w].
  FailureOr<SmallVector<NamedAttribute>> window(Location loc, ArrayRef<int64_t> strides,
                                                ArrayRef<int64_t> pads,
                                                ArrayRef<int64_t> dilations) {
    SmallVector<int64_t> p(pads);
    if (p.size() == 2)
      p = {pads[0], pads[1], pads[0], pads[1]};
    else if (p.size() != 4)
      return emitError(loc) << "expected 2 or 4 pads, got " << pads.size();
    return SmallVector<NamedAttribute>{
        b.getNamedAttr("strides", b.getDenseI64ArrayAttr(strides)),
        b.getNamedAttr("pads", b.getDenseI64ArrayAttr(p)),
        b.getNamedAttr("dilations", b.getDenseI64ArrayAttr(dilations))};
  }

  template <typename PoolOpTy>
  Tensor pool(StringRef kind, Tensor x, ArrayRef<int64_t> kernel, const Pool2dOptions &o) {
    return run(kind, {x}, 1, [&](Location loc, ArrayRef<Value> v) -> FailureOr<Value> {
      auto attrs = window(loc, o.strides, o.pads, o.dilations);
      if (failed(attrs)) return failure();
      attrs->push_back(b.getNamedAttr("kernel", b.getDenseI64ArrayAttr(kernel)));
      attrs->push_back(b.getNamedAttr("ceil_mode", b.getBoolAttr(o.ceilMode)));
      if constexpr (std::is_same_v<PoolOpTy, AveragePoolOp>)
        attrs->push_back(b.getNamedAttr("count_include_pad", b.getBoolAttr(o.countIncludePad)));
      return create(loc, PoolOpTy::getOperationName(), v, *attrs);
    });
  }

  MLIRContext &ctx;
  OpBuilder b;
  OwningOpRef<ModuleOp> module;
  func::FuncOp func;
  Block *body = nullptr;
  llvm::StringMap<unsigned> counters;
  SmallVector<std::pair<std::string, DType>> inputs;
  SmallVector<std::pair<std::string, Value>> outputs;
  llvm::StringSet<> weightNames;
  bool finished = false;
  std::string firstError;
};

GraphBuilder::GraphBuilder(MLIRContext &ctx) : impl(std::make_unique<Impl>(ctx)) {}
GraphBuilder::~GraphBuilder() = default;

bool GraphBuilder::ok() const { return impl->firstError.empty(); }
const std::string &GraphBuilder::error() const { return impl->firstError; }

//===----------------------------------------------------------------------===//
// Graph interface and constants
//===----------------------------------------------------------------------===//

Tensor GraphBuilder::input(StringRef name, DType dtype, ArrayRef<int64_t> shape) {
  return impl->run("input", {}, 0, [&](Location loc, ArrayRef<Value>) -> FailureOr<Value> {
    if (name.empty()) return emitError(loc) << "input name is empty";
    for (auto &in : impl->inputs)
      if (in.first == name) return emitError(loc) << "input '" << name << "' is declared twice";
    Type elt = elementType(&impl->ctx, dtype);
    if (!elt)
      return emitError(loc) << "input '" << name << "' has unknown dtype " << int32_t(dtype);
    if (failed(impl->numElements(loc, "input '" + name + "'", shape))) return failure();
    impl->inputs.push_back({name.str(), dtype});
    return impl->body->addArgument(RankedTensorType::get(shape, elt),
                                   NameLoc::get(impl->b.getStringAttr(name)));
  });
}

void GraphBuilder::output(StringRef name, Tensor t) {
  impl->run("output", {t}, 1, [&](Location loc, ArrayRef<Value> v) -> FailureOr<Value> {
    if (name.empty()) return emitError(loc) << "output name is empty";
    for (auto &out : impl->outputs)
      if (out.first == name) return emitError(loc) << "output '" << name << "' is declared twice";
    impl->outputs.push_back({name.str(), v[0]});
    return v[0];
  });
}

Tensor GraphBuilder::weight(StringRef name, ArrayRef<int64_t> shape, ArrayRef<float> data) {
  return impl->constant("weight", name.str(), shape, data, DType::F32);
}
Tensor GraphBuilder::weight(StringRef name, ArrayRef<int64_t> shape, ArrayRef<double> data) {
  return impl->constant("weight", name.str(), shape, data, DType::F64);
}
Tensor GraphBuilder::weight(StringRef name, ArrayRef<int64_t> shape, ArrayRef<int32_t> data) {
  return impl->constant("weight", name.str(), shape, data, DType::I32);
}
Tensor GraphBuilder::weight(StringRef name, ArrayRef<int64_t> shape, ArrayRef<int64_t> data) {
  return impl->constant("weight", name.str(), shape, data, DType::I64);
}
Tensor GraphBuilder::constant(ArrayRef<int64_t> shape, ArrayRef<float> data) {
  return impl->constant("constant", "", shape, data, DType::F32);
}
Tensor GraphBuilder::constant(ArrayRef<int64_t> shape, ArrayRef<double> data) {
  return impl->constant("constant", "", shape, data, DType::F64);
}
Tensor GraphBuilder::constant(ArrayRef<int64_t> shape, ArrayRef<int32_t> data) {
  return impl->constant("constant", "", shape, data, DType::I32);
}
Tensor GraphBuilder::constant(ArrayRef<int64_t> shape, ArrayRef<int64_t> data) {
  return impl->constant("constant", "", shape, data, DType::I64);
}

Tensor GraphBuilder::scalar(double value, DType dtype) {
  return impl->run("scalar", {}, 0, [&](Location loc, ArrayRef<Value>) -> FailureOr<Value> {
    Type elt = elementType(&impl->ctx, dtype);
    if (!elt) return emitError(loc) << "unknown dtype " << int32_t(dtype);
    OpBuilder &b = impl->b;
    Attribute v = isa<FloatType>(elt) ? Attribute(b.getFloatAttr(elt, value))
                  : elt.isInteger(1)  ? Attribute(b.getIntegerAttr(elt, value != 0))
                                      : Attribute(b.getIntegerAttr(elt, int64_t(value)));
    auto attr = DenseElementsAttr::get(RankedTensorType::get({}, elt), v);
    return arith::ConstantOp::create(b, loc, attr).getResult();
  });
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

#define DLC_BUILDER_OP(method, kind, OpTy, ...)                                                    \
  Tensor GraphBuilder::method(Tensor a, Tensor b) {                                                \
    return impl->op(kind, OpTy::getOperationName(), {a, b});                                       \
  }
DLC_BUILDER_OP(add, "add", AddOp)
DLC_BUILDER_OP(sub, "sub", SubOp)
DLC_BUILDER_OP(mul, "mul", MulOp)
DLC_BUILDER_OP(div, "div", DivOp)
DLC_BUILDER_OP(pow, "pow", PowOp)
DLC_BUILDER_OP(max, "max", MaxOp)
DLC_BUILDER_OP(min, "min", MinOp)
DLC_BUILDER_OP(matmul, "matmul", MatMulOp)
#undef DLC_BUILDER_OP

#define DLC_BUILDER_UNARY(method, kind, OpTy)                                                      \
  Tensor GraphBuilder::method(Tensor x) { return impl->op(kind, OpTy::getOperationName(), {x}); }
DLC_BUILDER_UNARY(neg, "neg", NegOp)
DLC_BUILDER_UNARY(abs, "abs", AbsOp)
DLC_BUILDER_UNARY(exp, "exp", ExpOp)
DLC_BUILDER_UNARY(log, "log", LogOp)
DLC_BUILDER_UNARY(sqrt, "sqrt", SqrtOp)
DLC_BUILDER_UNARY(erf, "erf", ErfOp)
DLC_BUILDER_UNARY(relu, "relu", ReluOp)
DLC_BUILDER_UNARY(sigmoid, "sigmoid", SigmoidOp)
DLC_BUILDER_UNARY(tanh, "tanh", TanhOp)
DLC_BUILDER_UNARY(globalAveragePool, "global_average_pool", GlobalAveragePoolOp)
#undef DLC_BUILDER_UNARY

Tensor GraphBuilder::leakyRelu(Tensor x, float alpha) {
  return impl->op("leaky_relu", LeakyReluOp::getOperationName(), {x},
                  {impl->b.getNamedAttr("alpha", impl->b.getF32FloatAttr(alpha))});
}

Tensor GraphBuilder::gelu(Tensor x, bool tanhApproximation) {
  return impl->op("gelu", GeluOp::getOperationName(), {x},
                  {impl->b.getNamedAttr(
                      "approximate", impl->b.getStringAttr(tanhApproximation ? "tanh" : "none"))});
}

Tensor GraphBuilder::cast(Tensor x, DType to) {
  return impl->run("cast", {x}, 1, [&](Location loc, ArrayRef<Value> v) -> FailureOr<Value> {
    Type elt = elementType(&impl->ctx, to);
    if (!elt) return emitError(loc) << "unknown dtype " << int32_t(to);
    Type result = RankedTensorType::get(Tensor(v[0]).shape(), elt);
    return impl->create(loc, CastOp::getOperationName(), v, {}, result);
  });
}

//===----------------------------------------------------------------------===//
// Contractions and NN ops
//===----------------------------------------------------------------------===//

Tensor GraphBuilder::gemm(Tensor a, Tensor b, Tensor c, float alpha, float beta, bool transA,
                          bool transB) {
  OpBuilder &ob = impl->b;
  SmallVector<NamedAttribute> attrs = {ob.getNamedAttr("alpha", ob.getF32FloatAttr(alpha)),
                                       ob.getNamedAttr("beta", ob.getF32FloatAttr(beta)),
                                       ob.getNamedAttr("transA", ob.getBoolAttr(transA)),
                                       ob.getNamedAttr("transB", ob.getBoolAttr(transB))};
  return impl->run("gemm", {a, b, c}, 2, [&](Location loc, ArrayRef<Value> v) {
    return impl->create(loc, GemmOp::getOperationName(), v, attrs);
  });
}

Tensor GraphBuilder::conv2d(Tensor x, Tensor w, Tensor bias, const Conv2dOptions &o) {
  return impl->run(
      "conv2d", {x, w, bias}, 2, [&](Location loc, ArrayRef<Value> v) -> FailureOr<Value> {
        auto attrs = impl->window(loc, o.strides, o.pads, o.dilations);
        if (failed(attrs)) return failure();
        attrs->push_back(impl->b.getNamedAttr("group", impl->b.getI64IntegerAttr(o.group)));
        return impl->create(loc, ConvOp::getOperationName(), v, *attrs);
      });
}

Tensor GraphBuilder::maxPool(Tensor x, ArrayRef<int64_t> kernel, const Pool2dOptions &o) {
  return impl->pool<MaxPoolOp>("max_pool", x, kernel, o);
}

Tensor GraphBuilder::averagePool(Tensor x, ArrayRef<int64_t> kernel, const Pool2dOptions &o) {
  return impl->pool<AveragePoolOp>("average_pool", x, kernel, o);
}

Tensor GraphBuilder::softmax(Tensor x, int64_t axis) {
  return impl->axisOp("softmax", SoftmaxOp::getOperationName(), x, axis);
}

Tensor GraphBuilder::logSoftmax(Tensor x, int64_t axis) {
  return impl->axisOp("log_softmax", LogSoftmaxOp::getOperationName(), x, axis);
}

Tensor GraphBuilder::layerNorm(Tensor x, Tensor scale, Tensor bias, int64_t axis, float epsilon) {
  return impl->run("layer_norm", {x, scale, bias}, 2,
                   [&](Location loc, ArrayRef<Value> v) -> FailureOr<Value> {
                     auto a = impl->normalizeAxis(loc, axis, Tensor(v[0]).rank());
                     if (failed(a)) return failure();
                     OpBuilder &b = impl->b;
                     return impl->create(loc, LayerNormOp::getOperationName(), v,
                                         {b.getNamedAttr("axis", b.getI64IntegerAttr(*a)),
                                          b.getNamedAttr("epsilon", b.getF32FloatAttr(epsilon))});
                   });
}

Tensor GraphBuilder::batchNorm(Tensor x, Tensor scale, Tensor bias, Tensor mean, Tensor variance,
                               float epsilon) {
  return impl->op("batch_norm", BatchNormOp::getOperationName(), {x, scale, bias, mean, variance},
                  {impl->b.getNamedAttr("epsilon", impl->b.getF32FloatAttr(epsilon))});
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

Tensor GraphBuilder::reduceSum(Tensor x, ArrayRef<int64_t> axes, bool keepdims) {
  return impl->reduce<ReduceSumOp>("reduce_sum", x, axes, keepdims);
}
Tensor GraphBuilder::reduceMean(Tensor x, ArrayRef<int64_t> axes, bool keepdims) {
  return impl->reduce<ReduceMeanOp>("reduce_mean", x, axes, keepdims);
}
Tensor GraphBuilder::reduceMax(Tensor x, ArrayRef<int64_t> axes, bool keepdims) {
  return impl->reduce<ReduceMaxOp>("reduce_max", x, axes, keepdims);
}
Tensor GraphBuilder::reduceMin(Tensor x, ArrayRef<int64_t> axes, bool keepdims) {
  return impl->reduce<ReduceMinOp>("reduce_min", x, axes, keepdims);
}

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

Tensor GraphBuilder::reshape(Tensor x, ArrayRef<int64_t> shape) {
  return impl->run("reshape", {x}, 1, [&](Location loc, ArrayRef<Value> v) -> FailureOr<Value> {
    Tensor in(v[0]);
    SmallVector<int64_t> target(shape);
    int64_t known = 1, inferIdx = -1;
    for (int64_t i = 0; i < (int64_t)target.size(); ++i) {
      if (target[i] == -1) {
        if (inferIdx >= 0)
          return emitError(loc) << "shape " << graph::shapeText(shape) << " has more than one -1";
        inferIdx = i;
      } else if (target[i] < 0) {
        return emitError(loc) << "shape " << graph::shapeText(shape) << " has a negative dim";
      } else {
        known *= target[i];
      }
    }
    int64_t total = in.numElements();
    if (inferIdx >= 0) {
      if (known == 0 || total % known)
        return emitError(loc) << "cannot reshape " << graph::shapeText(in.shape()) << " (" << total
                              << " elements) to " << graph::shapeText(shape);
      target[inferIdx] = total / known;
    } else if (known != total) {
      return emitError(loc) << "cannot reshape " << graph::shapeText(in.shape()) << " (" << total
                            << " elements) to " << graph::shapeText(shape) << " (" << known << " elements)";
    }
    Type result = RankedTensorType::get(target, elementTypeOf(v[0]));
    return impl->create(loc, ReshapeOp::getOperationName(), v, {}, result);
  });
}

Tensor GraphBuilder::flatten(Tensor x, int64_t axis) {
  return impl->run("flatten", {x}, 1, [&](Location loc, ArrayRef<Value> v) -> FailureOr<Value> {
    Tensor in(v[0]);
    int64_t rank = in.rank(), a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a > rank)
      return emitError(loc) << "axis " << axis << " is out of range for rank " << rank;
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < rank; ++d)
      (d < a ? outer : inner) *= in.shape()[d];
    Type result = RankedTensorType::get({outer, inner}, elementTypeOf(v[0]));
    return impl->create(loc, ReshapeOp::getOperationName(), v, {}, result);
  });
}

Tensor GraphBuilder::transpose(Tensor x, ArrayRef<int64_t> perm) {
  return impl->run("transpose", {x}, 1, [&](Location loc, ArrayRef<Value> v) {
    int64_t rank = Tensor(v[0]).rank();
    SmallVector<int64_t> p;
    if (perm.empty())
      for (int64_t d = rank - 1; d >= 0; --d)
        p.push_back(d);
    for (int64_t d : perm)
      p.push_back(d < 0 ? d + rank : d);
    return impl->create(loc, TransposeOp::getOperationName(), v,
                        {impl->b.getNamedAttr("perm", impl->b.getDenseI64ArrayAttr(p))});
  });
}

Tensor GraphBuilder::concat(ArrayRef<Tensor> inputs, int64_t axis) {
  return impl->run(
      "concat", inputs, inputs.size(), [&](Location loc, ArrayRef<Value> v) -> FailureOr<Value> {
        if (v.empty()) return emitError(loc) << "expected at least one input";
        auto a = impl->normalizeAxis(loc, axis, Tensor(v[0]).rank());
        if (failed(a)) return failure();
        return impl->create(loc, ConcatOp::getOperationName(), v,
                            {impl->b.getNamedAttr("axis", impl->b.getI64IntegerAttr(*a))});
      });
}

//===----------------------------------------------------------------------===//
// finish
//===----------------------------------------------------------------------===//

FailureOr<OwningOpRef<ModuleOp>> GraphBuilder::finish() {
  Impl &s = *impl;
  if (!s.firstError.empty()) return failure();
  ScopedDiagnosticHandler handler(&s.ctx, [&s](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error && s.firstError.empty())
      s.firstError = formatDiagnostic(d);
    return failure();
  });
  Location loc = UnknownLoc::get(&s.ctx);
  if (s.finished) return emitError(loc) << "the graph is already finished";
  if (s.outputs.empty()) return emitError(loc) << "the graph has no outputs";
  SmallVector<Value> results;
  SmallVector<Type> resultTypes;
  for (auto &out : s.outputs) {
    results.push_back(out.second);
    resultTypes.push_back(out.second.getType());
  }
  s.b.setInsertionPointToEnd(s.body);
  func::ReturnOp::create(s.b, loc, results);
  s.func.setFunctionType(s.b.getFunctionType(s.body->getArgumentTypes(), resultTypes));
  for (auto [i, in] : llvm::enumerate(s.inputs)) {
    s.func.setArgAttr(i, dlc::graph::kNameAttr, s.b.getStringAttr(in.first));
    s.func.setArgAttr(i, dlc::graph::kDtypeAttr, s.b.getI32IntegerAttr(int32_t(in.second)));
  }
  for (auto [i, out] : llvm::enumerate(s.outputs)) {
    s.func.setResultAttr(i, dlc::graph::kNameAttr, s.b.getStringAttr(out.first));
    s.func.setResultAttr(i, dlc::graph::kDtypeAttr,
                         s.b.getI32IntegerAttr(int32_t(Tensor(out.second).dtype())));
  }
  s.finished = true;
  if (failed(mlir::verify(*s.module))) return failure();
  return std::move(s.module);
}

} // namespace dlc::builder
