// ONNX data type codes: the values of the `dlc.dtype` argument and result attribute.
#ifndef DLC_DIALECTS_GRAPH_IR_DATATYPE_H
#define DLC_DIALECTS_GRAPH_IR_DATATYPE_H

#include "mlir/IR/BuiltinTypes.h"

#include <cstdint>

namespace dlc::graph {

/// onnx.TensorProto.DataType, the codes the runtime descriptor and the CLI use too.
enum class OnnxDtype : int32_t {
  Undefined = 0,
  Float = 1,
  UInt8 = 2,
  Int8 = 3,
  UInt16 = 4,
  Int16 = 5,
  Int32 = 6,
  Int64 = 7,
  String = 8, // i128: a pointer and a size (runtime/dlc_abi.h, dlc_abi_string_t)
  Bool = 9,
  Float16 = 10,
  Double = 11,
  UInt32 = 12,
  UInt64 = 13,
  BFloat16 = 16,
};

/// Strings are held as i128 elements (no numeric ONNX type is): the pointer to their UTF-8
/// bytes in the low 64 bits, their size in the high 64 (dlc_abi_string_t). Only data
/// movement and the string ops take them.
inline bool isStringElement(mlir::Type elt) { return elt.isInteger(128); }

/// The ONNX data type of the element type `elt` as dlc_graph represents it (integers
/// signless, so i8 is Int8), or Undefined for a type with no ONNX counterpart.
inline OnnxDtype onnxDtypeOf(mlir::Type elt) {
  if (elt.isF32())
    return OnnxDtype::Float;
  if (elt.isF64())
    return OnnxDtype::Double;
  if (elt.isF16())
    return OnnxDtype::Float16;
  if (elt.isBF16())
    return OnnxDtype::BFloat16;
  if (elt.isInteger(1))
    return OnnxDtype::Bool;
  if (elt.isInteger(8))
    return OnnxDtype::Int8;
  if (elt.isInteger(16))
    return OnnxDtype::Int16;
  if (elt.isInteger(32))
    return OnnxDtype::Int32;
  if (elt.isInteger(64))
    return OnnxDtype::Int64;
  if (isStringElement(elt))
    return OnnxDtype::String;
  return OnnxDtype::Undefined;
}

} // namespace dlc::graph

#endif // DLC_DIALECTS_GRAPH_IR_DATATYPE_H
