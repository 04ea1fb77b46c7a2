// Vector accesses that stream whole cache lines through large caller buffers; shared
// by dlc-streaming-stores (outputs) and dlc-prefetch-streams (inputs).
#ifndef DLC_CODEGEN_TARGET_X86_STREAMACCESS_H
#define DLC_CODEGEN_TARGET_X86_STREAMACCESS_H

#include "codegen/Target/X86/KernelConfig.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

namespace dlc::x86 {

/// The function argument `v` views (through subviews and casts), if any.
mlir::BlockArgument viewedArgument(mlir::Value v);

/// `arg` is a static-shape memref argument of `func` of kMinStreamingBytes or more.
bool isLargeArgument(mlir::BlockArgument arg, mlir::func::FuncOp func);

/// A transfer of whole cache lines along the innermost, contiguous dim of its
/// memref: an unmasked, in-bounds vector of 1 x .. x 1 x N elements, N * size a
/// multiple of the line.
bool transfersWholeLines(mlir::VectorTransferOpInterface xfer);

/// The byte address (as an index) of the first element `xfer` accesses.
mlir::Value transferAddress(mlir::OpBuilder &b, mlir::VectorTransferOpInterface xfer);

} // namespace dlc::x86

#endif // DLC_CODEGEN_TARGET_X86_STREAMACCESS_H
