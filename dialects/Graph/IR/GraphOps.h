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

/// Folds an elementwise op (ScalarComputationOpInterface) on small constant operands
/// by evaluating its scalar body with the arith/math folders; null where some element
/// does not fold.
mlir::OpFoldResult foldElementwise(mlir::Operation *op, llvm::ArrayRef<mlir::Attribute> operands);

/// dlc_graph.attention's optional input `role` (0: mask, 1: select, 2: kv_lengths) in
/// `masks`, which holds the present ones in that order; null when absent (or when
/// `masks` is shorter than its flags say, which the verifier rejects).
mlir::Value attentionMaskOperand(mlir::ValueRange masks, bool hasMask, bool hasSelect,
                                 bool hasKvLengths, unsigned role);

/// Largest constant (in elements) the folders materialize: folding is for the
/// small shape computations exporters emit, not for weights.
constexpr int64_t kMaxFoldElements = 1 << 16;

} // namespace dlc::graph

#include "dialects/Graph/IR/ScalarComputation.h.inc"

#define GET_OP_CLASSES
#include "dialects/Graph/IR/GraphOps.h.inc"

#endif
