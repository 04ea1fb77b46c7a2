// dlc_graph op classes (generated from GraphOps.td) and shared shape helpers.
#ifndef DLC_DIALECTS_GRAPH_IR_GRAPHOPS_H
#define DLC_DIALECTS_GRAPH_IR_GRAPHOPS_H

#include "dialects/Graph/IR/GraphDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <cmath>
#include <functional>
#include <optional>

namespace dlc::graph {

/// Marker traits (GraphBase.td): elementwise with broadcasting; reduction over
/// an `axes` attribute with `keepdims`.
template <typename ConcreteType>
class GraphElementwise : public mlir::OpTrait::TraitBase<ConcreteType, GraphElementwise> {};
template <typename ConcreteType>
class GraphAxisReduction : public mlir::OpTrait::TraitBase<ConcreteType, GraphAxisReduction> {};

/// NumPy broadcast of two static shapes; nullopt when incompatible.
std::optional<llvm::SmallVector<int64_t>> broadcastShapes(llvm::ArrayRef<int64_t> a,
                                                          llvm::ArrayRef<int64_t> b);

/// Result type of a broadcasting binary op (element type i1 for predicates).
llvm::LogicalResult inferBroadcastResult(std::optional<mlir::Location> loc,
                                         mlir::ValueRange operands, bool predicate,
                                         llvm::SmallVectorImpl<mlir::Type> &results);

/// Scalar kernels used to fold binary ops on small constants.
using IntFoldFn = std::function<int64_t(int64_t, int64_t)>;
using FloatFoldFn = std::function<double(double, double)>;
mlir::OpFoldResult foldBinaryConstants(mlir::Attribute lhs, mlir::Attribute rhs,
                                       mlir::Type resultType, IntFoldFn intFn,
                                       FloatFoldFn floatFn);
template <typename Fn>
mlir::OpFoldResult foldBinaryConstants(mlir::Attribute lhs, mlir::Attribute rhs,
                                       mlir::Type resultType, Fn fn) {
  return foldBinaryConstants(
      lhs, rhs, resultType, [fn](int64_t a, int64_t b) { return int64_t(fn(a, b)); },
      [fn](double a, double b) { return double(fn(a, b)); });
}

/// Folds a unary elementwise op on a small constant (int64_t or double math).
using IntUnaryFn = std::function<int64_t(int64_t)>;
using FloatUnaryFn = std::function<double(double)>;
mlir::OpFoldResult foldUnaryConstants(mlir::Attribute input, mlir::Type resultType,
                                      IntUnaryFn intFn, FloatUnaryFn floatFn);
template <typename Fn>
mlir::OpFoldResult foldUnaryConstants(mlir::Attribute input, mlir::Type resultType, Fn fn) {
  return foldUnaryConstants(
      input, resultType, [fn](int64_t a) { return int64_t(fn(a)); },
      [fn](double a) { return double(fn(a)); });
}

/// Largest constant (in elements) the folders materialize: folding is for the
/// small shape computations exporters emit, not for weights.
constexpr int64_t kMaxFoldElements = 1 << 16;

} // namespace dlc::graph

#define GET_OP_CLASSES
#include "dialects/Graph/IR/GraphOps.h.inc"

#endif
