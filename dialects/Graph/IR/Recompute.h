// Marking ops that rematerialization recomputes, so later passes keep them apart.
#ifndef DLC_DIALECTS_GRAPH_IR_RECOMPUTE_H
#define DLC_DIALECTS_GRAPH_IR_RECOMPUTE_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"

namespace dlc::graph {

/// A forward op cloned into the backward pass (rematerialization) carries this unit
/// attribute, so CSE never merges it back into the op it copies (CSE compares
/// attributes): that would keep the forward value alive instead. Its location is
/// tagged with the same name, so the lowering to linalg can mark the ops it
/// creates for it (`propagateRecomputeMarks`).
inline constexpr llvm::StringLiteral kRecomputeAttr = "dlc.recompute";

inline void markRecomputed(mlir::Operation *op) {
  mlir::MLIRContext *ctx = op->getContext();
  op->setAttr(kRecomputeAttr, mlir::UnitAttr::get(ctx));
  op->setLoc(mlir::FusedLoc::get(ctx, {op->getLoc()}, mlir::StringAttr::get(ctx, kRecomputeAttr)));
}

/// Marks every tensor op under `root` whose location was tagged by `markRecomputed`.
inline void propagateRecomputeMarks(mlir::Operation *root) {
  root->walk([](mlir::Operation *op) {
    auto fused = mlir::dyn_cast<mlir::FusedLoc>(op->getLoc());
    auto tag = fused ? mlir::dyn_cast_or_null<mlir::StringAttr>(fused.getMetadata()) : nullptr;
    if (tag && tag.getValue() == kRecomputeAttr && op->getNumResults() > 0 &&
        mlir::isa<mlir::ShapedType>(op->getResult(0).getType()))
      op->setAttr(kRecomputeAttr, mlir::UnitAttr::get(op->getContext()));
  });
}

} // namespace dlc::graph

#endif
