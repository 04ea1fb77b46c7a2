// ONNX composite activations (Elu, Selu, HardSwish, Softplus, Mish, ...) -> primitive dlc_graph ops,
// as their ONNX function bodies define them, so they fuse and differentiate like any elementwise chain.
#include "frontends/Onnx/Expr.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

using Results = SmallVectorImpl<Value>;

/// Reads input 0 (a floating-point tensor) and float attributes, builds `body`.
template <typename Body>
LogicalResult activation(NodeImporter &n, Results &out,
                         std::initializer_list<std::pair<const char *, float>> attrs, Body body) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  Type elt = tensorType(*x).getElementType();
  if (!isa<FloatType>(elt))
    return n.error("expects a floating-point input");
  SmallVector<double> values;
  for (auto [name, dflt] : attrs) {
    auto v = n.floatAttr(name, dflt);
    DLC_TRY(v);
    values.push_back(*v);
  }
  Expr e{n, elt};
  Value r = body(e, *x, ArrayRef<double>(values));
  if (e.failed || !r)
    return failure();
  out.push_back(r);
  return success();
}

LogicalResult elu(NodeImporter &n, Results &out) {
  return activation(n, out, {{"alpha", 1.0f}}, [](Expr &e, Value x, ArrayRef<double> a) {
    Value neg = e.op<MulOp>({e.c(a[0]), e.op<SubOp>({e.op<ExpOp>({x}), e.c(1)})});
    return e.where(e.op<LessOp>({x, e.c(0)}), neg, x);
  });
}

LogicalResult selu(NodeImporter &n, Results &out) {
  return activation(n, out, {{"alpha", 1.67326319217681884765625f}, {"gamma", 1.05070102214813232421875f}},
                    [](Expr &e, Value x, ArrayRef<double> a) {
                      Value neg = e.op<SubOp>({e.op<MulOp>({e.c(a[0]), e.op<ExpOp>({x})}), e.c(a[0])});
                      Value r = e.where(e.op<GreaterOp>({x, e.c(0)}), x, neg);
                      return e.op<MulOp>({e.c(a[1]), r});
                    });
}

LogicalResult celu(NodeImporter &n, Results &out) {
  return activation(n, out, {{"alpha", 1.0f}}, [](Expr &e, Value x, ArrayRef<double> a) {
    Value expm1 = e.op<SubOp>({e.op<ExpOp>({e.op<DivOp>({x, e.c(a[0])})}), e.c(1)});
    Value neg = e.op<MinOp>({e.c(0), e.op<MulOp>({e.c(a[0]), expm1})});
    return e.op<AddOp>({e.op<MaxOp>({e.c(0), x}), neg});
  });
}

Value hardSigmoidOf(Expr &e, Value x, double alpha, double beta) {
  Value lin = e.op<AddOp>({e.op<MulOp>({e.c(alpha), x}), e.c(beta)});
  return e.op<MaxOp>({e.c(0), e.op<MinOp>({e.c(1), lin})});
}

LogicalResult hardSigmoid(NodeImporter &n, Results &out) {
  return activation(n, out, {{"alpha", 0.2f}, {"beta", 0.5f}},
                    [](Expr &e, Value x, ArrayRef<double> a) { return hardSigmoidOf(e, x, a[0], a[1]); });
}

LogicalResult hardSwish(NodeImporter &n, Results &out) {
  return activation(n, out, {}, [](Expr &e, Value x, ArrayRef<double>) {
    return e.op<MulOp>({x, hardSigmoidOf(e, x, 1.0 / 6.0, 0.5)});
  });
}

LogicalResult softplus(NodeImporter &n, Results &out) {
  return activation(n, out, {}, [](Expr &e, Value x, ArrayRef<double>) { return e.softplus(x); });
}

LogicalResult softsign(NodeImporter &n, Results &out) {
  return activation(n, out, {}, [](Expr &e, Value x, ArrayRef<double>) {
    return e.op<DivOp>({x, e.op<AddOp>({e.c(1), e.op<AbsOp>({x})})});
  });
}

LogicalResult mish(NodeImporter &n, Results &out) {
  return activation(n, out, {}, [](Expr &e, Value x, ArrayRef<double>) {
    return e.op<MulOp>({x, e.op<TanhOp>({e.softplus(x)})});
  });
}

LogicalResult swish(NodeImporter &n, Results &out) {
  return activation(n, out, {{"alpha", 1.0f}}, [](Expr &e, Value x, ArrayRef<double> a) {
    return e.op<MulOp>({x, e.op<SigmoidOp>({e.op<MulOp>({e.c(a[0]), x})})});
  });
}

LogicalResult thresholdedRelu(NodeImporter &n, Results &out) {
  return activation(n, out, {{"alpha", 1.0f}}, [](Expr &e, Value x, ArrayRef<double> a) {
    return e.where(e.op<GreaterOp>({x, e.c(a[0])}), x, e.c(0));
  });
}

/// Shrink: x < -lambd ? x + bias : (x > lambd ? x - bias : 0); any numeric type.
LogicalResult shrink(NodeImporter &n, Results &out) {
  auto x = n.requiredInput(0);
  auto bias = n.floatAttr("bias", 0.0f), lambd = n.floatAttr("lambd", 0.5f);
  DLC_TRY(x);
  DLC_TRY(bias);
  DLC_TRY(lambd);
  Expr e{n, tensorType(*x).getElementType()};
  Value lo = e.op<AddOp>({*x, e.c(*bias)}), hi = e.op<SubOp>({*x, e.c(*bias)});
  Value r = e.where(e.op<LessOp>({*x, e.c(-*lambd)}), lo,
                    e.where(e.op<GreaterOp>({*x, e.c(*lambd)}), hi, e.c(0)));
  if (e.failed)
    return failure();
  out.push_back(r);
  return success();
}

/// SwiGLU(a, b) = a * sigmoid(alpha * a) * b (same shapes).
LogicalResult swiglu(NodeImporter &n, Results &out) {
  auto b = n.requiredInput(1);
  DLC_TRY(b);
  return activation(n, out, {{"alpha", 1.0f}}, [&](Expr &e, Value a, ArrayRef<double> at) {
    if (tensorType(a) != tensorType(*b)) {
      (void)n.error("A and B must have the same shape and type");
      return e.fail();
    }
    return e.op<MulOp>({e.op<MulOp>({a, e.op<SigmoidOp>({e.op<MulOp>({e.c(at[0]), a})})}), *b});
  });
}

const OpBuilderEntry kActivations[] = {
    {"SwiGLU", 26, swiglu},
    {"Elu", 6, elu},
    {"Selu", 6, selu},
    {"Celu", 12, celu},
    {"HardSigmoid", 6, hardSigmoid},
    {"HardSwish", 14, hardSwish},
    {"Softplus", 1, softplus},
    {"Softsign", 1, softsign},
    {"Mish", 18, mish},
    {"Swish", 24, swish},
    {"ThresholdedRelu", 10, thresholdedRelu},
    {"Shrink", 9, shrink},
};

} // namespace

ArrayRef<OpBuilderEntry> activationBuilders() { return kActivations; }

} // namespace dlc::onnx_frontend
