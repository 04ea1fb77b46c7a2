// Expr: builds chains of dlc_graph ops for one ONNX node (composite ops written as
// their ONNX function bodies) without a TRY per step.
#ifndef DLC_FRONTENDS_ONNX_EXPR_H
#define DLC_FRONTENDS_ONNX_EXPR_H

#include "frontends/Onnx/NodeImporter.h"

namespace dlc::onnx_frontend {

/// The first failing step (reported at the node) poisons the chain: every later
/// step returns a null Value, and `failed` tells the builder to return failure.
struct Expr {
  NodeImporter &n;
  mlir::Type elt; // element type of `c()` constants
  bool failed = false;

  template <typename OpTy>
  mlir::Value op(std::initializer_list<mlir::Value> xs,
                 llvm::ArrayRef<mlir::NamedAttribute> attrs = {}, mlir::TypeRange types = {}) {
    if (failed || llvm::any_of(xs, [](mlir::Value v) { return !v; }))
      return fail();
    auto r = n.create<OpTy>(llvm::SmallVector<mlir::Value>(xs), attrs, types);
    return mlir::failed(r) ? fail() : *r;
  }
  /// A scalar constant of `elt` (or of `type`).
  mlir::Value c(double v) { return n.scalarConstant(elt, v); }
  mlir::Value c(mlir::Type type, double v) { return n.scalarConstant(type, v); }
  mlir::Value where(mlir::Value cond, mlir::Value a, mlir::Value b) {
    return op<graph::WhereOp>({cond, a, b});
  }
  mlir::Value reshape(mlir::Value v, llvm::ArrayRef<int64_t> shape) {
    if (failed || !v)
      return fail();
    auto r = n.reshape(v, shape);
    return mlir::failed(r) ? fail() : *r;
  }
  mlir::Value transpose(mlir::Value v, llvm::ArrayRef<int64_t> perm) {
    return op<graph::TransposeOp>({v}, {n.named("perm", n.b.getDenseI64ArrayAttr(perm))});
  }
  /// v[starts : starts + sizes * steps : steps] per dim (negative steps walk backwards).
  mlir::Value slice(mlir::Value v, llvm::ArrayRef<int64_t> starts, llvm::ArrayRef<int64_t> sizes,
                    llvm::ArrayRef<int64_t> steps) {
    return op<graph::SliceOp>({v}, {n.named("starts", n.b.getDenseI64ArrayAttr(starts)),
                                    n.named("sizes", n.b.getDenseI64ArrayAttr(sizes)),
                                    n.named("steps", n.b.getDenseI64ArrayAttr(steps))});
  }
  /// v padded with `value` by `pads` ([begin..., end...]; negative pads crop).
  mlir::Value pad(mlir::Value v, llvm::ArrayRef<int64_t> pads, double value = 0) {
    return op<graph::PadOp>({v}, {n.named("pads", n.b.getDenseI64ArrayAttr(pads)),
                                  n.named("mode", n.b.getStringAttr("constant")),
                                  n.named("value", n.b.getF64FloatAttr(value))});
  }
  /// A constant i64 tensor of `shape` holding `values` (row-major).
  mlir::Value ints(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> values) {
    return n.constant(mlir::DenseElementsAttr::get(
        mlir::RankedTensorType::get(shape, n.b.getI64Type()), values));
  }
  /// Reduction `OpTy` over `axes` (sorted, non-negative).
  template <typename OpTy>
  mlir::Value reduce(mlir::Value v, llvm::ArrayRef<int64_t> axes, bool keepdims) {
    return op<OpTy>({v}, {n.named("axes", n.b.getDenseI64ArrayAttr(axes)),
                          n.named("keepdims", n.b.getBoolAttr(keepdims))});
  }
  /// Cast to element type `to`; `fromUnsigned`: the integer input holds an ONNX
  /// unsigned type.
  mlir::Value cast(mlir::Value v, mlir::Type to, bool fromUnsigned = false) {
    if (failed || !v)
      return fail();
    auto t = tensorType(v);
    if (t.getElementType() == to)
      return v;
    llvm::SmallVector<mlir::NamedAttribute> attrs;
    if (fromUnsigned)
      attrs.push_back(n.named("unsigned_input", n.b.getUnitAttr()));
    return op<graph::CastOp>({v}, attrs, {mlir::RankedTensorType::get(t.getShape(), to)});
  }
  /// log(1 + e^x) as max(x, 0) + log(1 + e^-|x|): e^x overflows to inf for x > 88
  /// (Softplus(3.4e38) was inf), e^-|x| never does.
  mlir::Value softplus(mlir::Value x) {
    mlir::Value e = op<graph::ExpOp>({op<graph::NegOp>({op<graph::AbsOp>({x})})});
    return op<graph::AddOp>({op<graph::ReluOp>({x}), op<graph::LogOp>({op<graph::AddOp>({e, c(1)})})});
  }
  mlir::Value fail() {
    failed = true;
    return {};
  }
};

/// The permutation that moves `axis` of a rank-`rank` tensor last, its inverse,
/// and the moved shape of `shape`.
struct AxisLast {
  llvm::SmallVector<int64_t> perm, inverse, shape;
};
inline AxisLast axisLast(llvm::ArrayRef<int64_t> shape, int64_t axis) {
  AxisLast a;
  int64_t r = shape.size();
  for (int64_t d = 0; d < r; ++d)
    if (d != axis)
      a.perm.push_back(d);
  a.perm.push_back(axis);
  a.inverse.resize(r);
  for (int64_t d = 0; d < r; ++d)
    a.inverse[a.perm[d]] = d;
  for (int64_t d : a.perm)
    a.shape.push_back(shape[d]);
  return a;
}

} // namespace dlc::onnx_frontend

#endif
