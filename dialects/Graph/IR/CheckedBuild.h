// Creating dlc_graph ops from untrusted input (importer, C++ builder) without ever aborting.
#ifndef DLC_DIALECTS_GRAPH_IR_CHECKEDBUILD_H
#define DLC_DIALECTS_GRAPH_IR_CHECKEDBUILD_H

#include "mlir/IR/Builders.h"

namespace dlc::graph {

/// Creates `opName` with `operands` and `attrs`. Result types are inferred
/// (InferTypeOpInterface, or the operand type for SameOperandsAndResultType)
/// unless `resultTypes` is given. The op is verified, and folded when its
/// operands are constants (folded values materialize as arith.constant). Any
/// problem is emitted as an error at `loc` and returns failure; nothing
/// asserts on bad input.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
createChecked(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef opName,
              mlir::ValueRange operands, llvm::ArrayRef<mlir::NamedAttribute> attrs,
              mlir::TypeRange resultTypes = {});

} // namespace dlc::graph

#endif
