// GraphExpr: builds chains of checked dlc_graph ops (createChecked) without a failure test
// per step; shared by the ONNX importer and the passes that expand composite ops.
#ifndef DLC_DIALECTS_GRAPH_IR_GRAPHEXPR_H
#define DLC_DIALECTS_GRAPH_IR_GRAPHEXPR_H

#include "dialects/Graph/IR/CheckedBuild.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace dlc::graph {

/// The first failing step (reported at `loc`) poisons the chain: every later step
/// returns a null Value, and `failed` tells the caller to return failure.
struct GraphExpr {
  GraphExpr(mlir::OpBuilder &b, mlir::Location loc, mlir::Type elt, uint64_t maxTensorBytes = 0)
      : b(b), loc(loc), elt(elt), maxTensorBytes(maxTensorBytes) {}

  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Type elt; // element type of `c()` constants
  uint64_t maxTensorBytes; // every created result must fit (0: no limit)
  bool failed = false;

  static mlir::RankedTensorType typeOf(mlir::Value v) {
    return llvm::cast<mlir::RankedTensorType>(v.getType());
  }
  mlir::NamedAttribute named(llvm::StringRef name, mlir::Attribute a) {
    return b.getNamedAttr(name, a);
  }

  template <typename OpTy>
  mlir::Value op(std::initializer_list<mlir::Value> xs,
                 llvm::ArrayRef<mlir::NamedAttribute> attrs = {}, mlir::TypeRange types = {}) {
    if (failed || llvm::any_of(xs, [](mlir::Value v) { return !v; }))
      return fail();
    auto r = createChecked(b, loc, OpTy::getOperationName(), llvm::SmallVector<mlir::Value>(xs),
                           attrs, types, maxTensorBytes);
    return mlir::failed(r) ? fail() : (*r)[0];
  }
  mlir::Value constant(mlir::DenseElementsAttr value) {
    return mlir::arith::ConstantOp::create(b, loc, value);
  }
  /// A scalar constant of `elt` (or of `type`); integer types take `v` saturated.
  mlir::Value c(double v) { return rank0Constant(b, loc, elt, v); }
  mlir::Value c(mlir::Type type, double v) { return rank0Constant(b, loc, type, v); }
  mlir::Value where(mlir::Value cond, mlir::Value x, mlir::Value y) {
    return op<WhereOp>({cond, x, y});
  }
  mlir::Value reshape(mlir::Value v, llvm::ArrayRef<int64_t> shape) {
    if (failed || !v)
      return fail();
    auto t = typeOf(v);
    if (t.getShape() == shape)
      return v;
    return op<ReshapeOp>({v}, {}, {mlir::RankedTensorType::get(shape, t.getElementType())});
  }
  mlir::Value transpose(mlir::Value v, llvm::ArrayRef<int64_t> perm) {
    return op<TransposeOp>({v}, {named("perm", b.getDenseI64ArrayAttr(perm))});
  }
  /// v[starts : starts + sizes * steps : steps] per dim (negative steps walk backwards).
  mlir::Value slice(mlir::Value v, llvm::ArrayRef<int64_t> starts, llvm::ArrayRef<int64_t> sizes,
                    llvm::ArrayRef<int64_t> steps) {
    return op<SliceOp>({v}, {named("starts", b.getDenseI64ArrayAttr(starts)),
                             named("sizes", b.getDenseI64ArrayAttr(sizes)),
                             named("steps", b.getDenseI64ArrayAttr(steps))});
  }
  /// v padded with `value` by `pads` ([begin..., end...]; negative pads crop).
  mlir::Value pad(mlir::Value v, llvm::ArrayRef<int64_t> pads, double value = 0) {
    return op<PadOp>({v}, {named("pads", b.getDenseI64ArrayAttr(pads)),
                           named("mode", b.getStringAttr("constant")),
                           named("value", b.getF64FloatAttr(value))});
  }
  /// A constant i64 tensor of `shape` holding `values` (row-major).
  mlir::Value ints(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> values) {
    return constant(mlir::DenseElementsAttr::get(
        mlir::RankedTensorType::get(shape, b.getI64Type()), values));
  }
  /// Reduction `OpTy` over `axes` (sorted, non-negative).
  template <typename OpTy>
  mlir::Value reduce(mlir::Value v, llvm::ArrayRef<int64_t> axes, bool keepdims) {
    return op<OpTy>({v}, {named("axes", b.getDenseI64ArrayAttr(axes)),
                          named("keepdims", b.getBoolAttr(keepdims))});
  }
  /// Cast to element type `to`; `fromUnsigned`: the integer input holds an ONNX
  /// unsigned type.
  mlir::Value cast(mlir::Value v, mlir::Type to, bool fromUnsigned = false) {
    if (failed || !v)
      return fail();
    auto t = typeOf(v);
    if (t.getElementType() == to)
      return v;
    llvm::SmallVector<mlir::NamedAttribute> attrs;
    if (fromUnsigned)
      attrs.push_back(named("unsigned_input", b.getUnitAttr()));
    return op<CastOp>({v}, attrs, {mlir::RankedTensorType::get(t.getShape(), to)});
  }
  /// log(1 + e^x) as max(x, 0) + log(1 + e^-|x|): e^x overflows to inf for x > 88
  /// (Softplus(3.4e38) was inf), e^-|x| never does.
  mlir::Value softplus(mlir::Value x) {
    mlir::Value e = op<ExpOp>({op<NegOp>({op<AbsOp>({x})})});
    return op<AddOp>({op<ReluOp>({x}), op<LogOp>({op<AddOp>({e, c(1)})})});
  }
  /// Grouped-query heads: x [B, Hkv, S, D] with each head repeated hq/Hkv times
  /// ([h0, h0, h1, h1, ...]) -> [B, hq, S, D].
  mlir::Value repeatHeads(mlir::Value x, int64_t hq) {
    if (failed || !x) // an earlier builder failed
      return fail();
    auto t = typeOf(x);
    int64_t batch = t.getDimSize(0), hkv = t.getDimSize(1), s = t.getDimSize(2),
            d = t.getDimSize(3);
    mlir::Value u = reshape(x, {batch, hkv, 1, s, d});
    mlir::Value r = op<ExpandOp>(
        {u}, {}, {mlir::RankedTensorType::get({batch, hkv, hq / hkv, s, d}, t.getElementType())});
    return reshape(r, {batch, hq, s, d});
  }
  /// Fails (error at `loc`) when a tensor of `shape` x `type` exceeds maxTensorBytes.
  mlir::LogicalResult checkShape(llvm::ArrayRef<int64_t> shape, mlir::Type type,
                                 llvm::StringRef what) {
    if (mlir::failed(checkTensorBytes(loc, shape, type, maxTensorBytes, what))) {
      failed = true;
      return mlir::failure();
    }
    return mlir::success();
  }
  mlir::Value fail() {
    failed = true;
    return {};
  }
};

} // namespace dlc::graph

#endif
