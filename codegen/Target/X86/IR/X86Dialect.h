// The dlc_x86 dialect (X86Ops.td): x86 instructions upstream MLIR has no op for.
#ifndef DLC_CODEGEN_TARGET_X86_IR_X86DIALECT_H
#define DLC_CODEGEN_TARGET_X86_IR_X86DIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "codegen/Target/X86/IR/X86Dialect.h.inc"

#define GET_OP_CLASSES
#include "codegen/Target/X86/IR/X86Ops.h.inc"

#endif
