// Node checks before a builder runs (NodeChecks.cpp).
#ifndef DLC_FRONTENDS_ONNX_NODECHECKS_H
#define DLC_FRONTENDS_ONNX_NODECHECKS_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"

#include <onnx/onnx_pb.h>

namespace dlc::onnx_frontend {

/// Input/output counts and required attributes against ONNX's schema, where the linked
/// ONNX library knows this op at this opset.
mlir::LogicalResult checkSchema(const onnx::NodeProto &node, int opset, mlir::Location loc);

/// Each attribute name once; a reference to a function's attribute only inside a function.
mlir::LogicalResult checkAttributes(const onnx::NodeProto &node, mlir::Location loc);

/// A symbolic dim (dim `dim` of input `input`) kept dynamic: its name must not read as a
/// size ("(seq+1)", a number), since sizes of the symbols are written as text.
mlir::LogicalResult checkDynamicDimName(mlir::Location loc, llvm::StringRef input, size_t dim,
                                        llvm::StringRef symbol);

} // namespace dlc::onnx_frontend

#endif
