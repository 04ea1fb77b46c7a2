// The `dlc` dialect: codegen decisions recorded as attributes (#dlc.kernel_config).
#ifndef DLC_DIALECTS_CODEGEN_IR_CODEGENDIALECT_H
#define DLC_DIALECTS_CODEGEN_IR_CODEGENDIALECT_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"

#include <optional>

#include "dialects/Codegen/IR/CodegenDialect.h.inc"
#include "dialects/Codegen/IR/CodegenEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Codegen/IR/CodegenAttrs.h.inc"

namespace dlc::codegen {

/// The name under which an op carries its KernelConfigAttr.
inline constexpr llvm::StringLiteral kKernelConfigAttr = "dlc.kernel_config";

/// The kernel configuration of `op`, or null.
inline KernelConfigAttr getKernelConfig(mlir::Operation *op) {
  return op->getAttrOfType<KernelConfigAttr>(kKernelConfigAttr);
}

/// Whether a kernel may keep partial results across `op`'s innermost loop (a linalg op):
/// it is the op's one reduction, or the last of trailing reductions of a one-result
/// generic whose combiner is a max or min (the operands' order then changes nothing: a
/// max over a whole tensor whose loops did not collapse). The kernel_config verifier and
/// the kernel selection share it.
bool allowsPartialSums(mlir::Operation *op);

} // namespace dlc::codegen

#endif
