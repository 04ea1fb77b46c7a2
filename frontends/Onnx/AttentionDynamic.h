// Attention over dynamic dims (dlc compile --dims): the pieces whose static form reads
// sizes when compiling (head split, grouped-query repeat, band masks, the default scale),
// built from the sizes of the symbols instead.
#ifndef DLC_FRONTENDS_ONNX_ATTENTIONDYNAMIC_H
#define DLC_FRONTENDS_ONNX_ATTENTIONDYNAMIC_H

#include "frontends/Onnx/NodeImporter.h"

namespace dlc::onnx_frontend {

/// [B, S, H*D] -> [B, H, S, D] for dynamic sizes (H*D must divide by `heads`: checked
/// when the model runs where it is not known).
mlir::FailureOr<mlir::Value> splitHeadsDynamic(NodeImporter &n, mlir::Value x, int64_t heads);

/// [B, H, S, D] -> [B, S, H*D] for dynamic sizes.
mlir::FailureOr<mlir::Value> mergeHeadsDynamic(NodeImporter &n, mlir::Value y);

/// x [B, Hkv, S, D] with each head repeated `hq`/Hkv times -> [B, hq, S, D]; the head
/// counts must be static or equal.
mlir::FailureOr<mlir::Value> repeatHeadsDynamic(NodeImporter &n, mlir::Value x,
                                               const graph::SymbolicSize &hq);

/// The additive band mask [Sq, Skv] of `elt`: 0 where key j is seen by query i, i.e.
/// diff = i + offset - j has (below < 0 or diff <= below) and (above < 0 or -diff <=
/// above), else -inf; `offset` a 0-d i64 tensor (the past length).
mlir::FailureOr<mlir::Value> bandBias(NodeImporter &n, const graph::SymbolicSize &sq,
                                      const graph::SymbolicSize &skv, mlir::Value offset,
                                      int64_t below, int64_t above, mlir::Type elt);

} // namespace dlc::onnx_frontend

#endif
