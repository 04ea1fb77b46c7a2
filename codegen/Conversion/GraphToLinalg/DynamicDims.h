// Which symbolic dim (dlc compile --dims) each dynamic dim of the model function is.
#ifndef DLC_CODEGEN_CONVERSION_GRAPHTOLINALG_DYNAMICDIMS_H
#define DLC_CODEGEN_CONVERSION_GRAPHTOLINALG_DYNAMICDIMS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace dlc::conversion {

/// Follows the symbols of the arguments' dynamic dims (`dlc.dims`) through the model
/// function, op by op, and records each result's on the function (`dlc.dims` result
/// attributes) for the runtime descriptor; an output dim that is no symbol of the inputs
/// (a product, a derived size) is declared a dim the model computes (declareOutputDim).
/// Dynamic dims are lowered with their sizes read from the operands, so an op whose
/// dynamic dims the lowering cannot size, or whose operands' dynamic dims could broadcast
/// against each other (different symbols, or a symbol against a static size), is an error
/// naming the node. A function without dynamic dims is left as it is.
mlir::LogicalResult checkDynamicDims(mlir::func::FuncOp func);

} // namespace dlc::conversion

#endif
