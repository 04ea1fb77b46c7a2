// The expansions of the composite region ops (attention, rnn, gru, lstm) into primitive
// dlc_graph ops: the one place their math is written, used by dlc-decompose.
#ifndef DLC_DIALECTS_GRAPH_TRANSFORMS_EXPANSIONS_H
#define DLC_DIALECTS_GRAPH_TRANSFORMS_EXPANSIONS_H

#include "dialects/Graph/IR/GraphExpr.h"

namespace dlc::graph {

/// The metadata of the FusedLoc a raised attention op carries: one location per step of
/// its expansion (QK matmul, scale, select, mask add, softmax, NaN guard, PV matmul, the
/// ones present), so the expanded ops keep the exporter's node names.
inline constexpr llvm::StringLiteral kAttentionStepsTag = "dlc.attention_steps";

/// Builds `op`'s computation with `e` (at e's insertion point and location) and returns
/// the values that replace its results; failure (reported at e.loc) only when a tensor
/// exceeds e.maxTensorBytes.
mlir::FailureOr<llvm::SmallVector<mlir::Value>> expandAttention(GraphExpr &e, AttentionOp op);
/// rnn, gru and lstm, unrolled over the sequence.
mlir::FailureOr<llvm::SmallVector<mlir::Value>> expandRecurrence(GraphExpr &e,
                                                                 mlir::Operation *op);

} // namespace dlc::graph

#endif
