// Creating dlc_graph ops from untrusted input (importer, C++ builder) without ever aborting.
#ifndef DLC_DIALECTS_GRAPH_IR_CHECKEDBUILD_H
#define DLC_DIALECTS_GRAPH_IR_CHECKEDBUILD_H

#include "mlir/IR/Builders.h"

#include <optional>
#include <string>

namespace dlc::graph {

/// Creates `opName` with `operands` and `attrs`. Result types are inferred
/// (InferTypeOpInterface, or the operand type for SameOperandsAndResultType)
/// unless `resultTypes` is given. The op is verified, and folded when its
/// operands are constants (folded values materialize as arith.constant). Any
/// problem is emitted as an error at `loc` and returns failure; nothing
/// asserts on bad input.
/// `maxTensorBytes` (0: no limit): every result must fit (tensorBytes), checked
/// before folding could materialize it.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
createChecked(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef opName,
              mlir::ValueRange operands, llvm::ArrayRef<mlir::NamedAttribute> attrs,
              mlir::TypeRange resultTypes = {}, uint64_t maxTensorBytes = 0);

/// "[2,3,4]": how diagnostics print a shape.
std::string shapeText(llvm::ArrayRef<int64_t> shape);

/// Bytes a tensor of `shape` and `elt` holds (i1 as one byte), or nullopt when
/// the element count or the byte count overflows 2^63 (dynamic dims count as 0).
std::optional<uint64_t> tensorBytes(llvm::ArrayRef<int64_t> shape, mlir::Type elt);

/// Fails with an error at `loc` ("<what> [shape] would take N bytes, over the
/// limit of M bytes (--max-memory)") when a tensor of `shape` x `elt` exceeds
/// `maxTensorBytes` (0: only overflow is checked).
mlir::LogicalResult checkTensorBytes(mlir::Location loc, llvm::ArrayRef<int64_t> shape,
                                     mlir::Type elt, uint64_t maxTensorBytes,
                                     llvm::StringRef what = "a tensor");

/// A 0-d arith.constant of `elt` holding `v`; integer types take `v` saturated to int64
/// (a double outside int64 has no integer value), then truncated to their width.
mlir::Value rank0Constant(mlir::OpBuilder &b, mlir::Location loc, mlir::Type elt, double v);
/// A 0-d integer arith.constant of `elt`, `v` truncated to its width (exact for int64).
mlir::Value rank0IntConstant(mlir::OpBuilder &b, mlir::Location loc, mlir::Type elt, int64_t v);

} // namespace dlc::graph

#endif
