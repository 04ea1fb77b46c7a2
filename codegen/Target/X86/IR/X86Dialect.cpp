// The dlc_x86 dialect's registration (its ops are all declared in X86Ops.td).
#include "codegen/Target/X86/IR/X86Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;

#include "codegen/Target/X86/IR/X86Dialect.cpp.inc"

#define GET_OP_CLASSES
#include "codegen/Target/X86/IR/X86Ops.cpp.inc"

void dlc::x86::X86Dialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "codegen/Target/X86/IR/X86Ops.cpp.inc"
      >();
}

LogicalResult dlc::x86::DotU8S8Op::verify() {
  if (getB().getType().getShape() != ArrayRef<int64_t>{16, 4})
    return emitOpError("expects 16 columns x 4 bytes of weights (vector<16x4xi8>), got ")
           << getB().getType();
  return success();
}

LogicalResult dlc::x86::DotI16Op::verify() {
  if (getB().getType().getShape() != ArrayRef<int64_t>{8, 2})
    return emitOpError("expects 8 columns x 2 values of weights (vector<8x2xi16>), got ")
           << getB().getType();
  return success();
}

LogicalResult dlc::x86::DotBf16Op::verify() {
  if (getB().getType().getShape() != ArrayRef<int64_t>{16, 2})
    return emitOpError("expects 16 columns x 2 values of weights (vector<16x2xbf16>), got ")
           << getB().getType();
  return success();
}
