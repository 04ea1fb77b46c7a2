// Checks only the run can decide (indices computed at run time), as dlc_graph.runtime_check.
#ifndef DLC_FRONTENDS_ONNX_RUNTIMECHECKS_H
#define DLC_FRONTENDS_ONNX_RUNTIMECHECKS_H

#include "frontends/Onnx/NodeImporter.h"

namespace dlc::onnx_frontend {

/// Fails the run, with `what` and the node's name as its error, when any element of the
/// i1 tensor `bad` is true. Nothing is added for an empty `bad`, nor in an If branch
/// imported speculatively (NodeImporter::speculative).
mlir::LogicalResult checkAtRunTime(NodeImporter &n, mlir::Value bad, const llvm::Twine &what);

/// ONNX index ops make an out-of-range index an error: each index of `indices` must lie
/// in [-bound, bound) (in [0, bound) when the indices are unsigned). The bounds are the
/// sizes of `data`'s dims [first, first + count): one bound for every index (count 1),
/// or one per entry of the indices' last dim (GatherND and ScatterND tuples); dynamic
/// dims (dlc compile --dims) are read when the model runs. Indices known when compiling
/// are checked by the builders, so only indices computed at run time get a check.
/// `input` names the indices in the message.
mlir::LogicalResult checkIndicesAtRunTime(NodeImporter &n, unsigned input, mlir::Value data,
                                          int64_t first, int64_t count);

/// Each element of the integer tensor `values` where the i1 tensor `where` (null: all) is
/// true must lie in [lo, hi); `what` names them in the message ("a target of input 1").
mlir::LogicalResult checkRangeAtRunTime(NodeImporter &n, mlir::Value values, mlir::Value where,
                                        int64_t lo, int64_t hi, const llvm::Twine &what);
/// The same with `hi` the size of `data`'s dim `dim` (read when the model runs if dynamic).
mlir::LogicalResult checkRangeAtRunTime(NodeImporter &n, mlir::Value values, mlir::Value where,
                                        int64_t lo, mlir::Value data, int64_t dim,
                                        const llvm::Twine &what);

} // namespace dlc::onnx_frontend

#endif // DLC_FRONTENDS_ONNX_RUNTIMECHECKS_H
