// Building a node whose ONNX semantics differ for unsigned integer inputs.
#ifndef DLC_FRONTENDS_ONNX_UNSIGNEDBUILDERS_H
#define DLC_FRONTENDS_ONNX_UNSIGNEDBUILDERS_H

#include "frontends/Onnx/NodeImporter.h"

namespace dlc::onnx_frontend {

/// Builds `n` with `entry`; where the node orders or divides unsigned integer inputs
/// (comparisons, Max/Min, ReduceMax/Min, ArgMax/Min, TopK, Clip, MaxPool, Div, Mod,
/// Abs, Sign), through the rewrites of UnsignedBuilders.cpp that give the unsigned result.
mlir::LogicalResult buildNode(NodeImporter &n, const OpBuilderEntry &entry,
                              llvm::SmallVectorImpl<mlir::Value> &results);

} // namespace dlc::onnx_frontend

#endif
