// ONNX low-precision element types held as one i8 per element (see LowPrecision.cpp).
#ifndef DLC_FRONTENDS_ONNX_LOWPRECISION_H
#define DLC_FRONTENDS_ONNX_LOWPRECISION_H

#include "frontends/Onnx/NodeImporter.h"

namespace dlc::onnx_frontend {

/// float8 variants (incl. float8e8m0) and float4e2m1.
bool isLowPrecisionFloat(int onnxType);
/// int4, uint4, int2, uint2.
bool isSubByteInt(int onnxType);
bool isStoredAsI8(int onnxType);

/// Codes (i8) of float type `onnxType` -> f32 values.
mlir::FailureOr<mlir::Value> decodeLowPrecision(NodeImporter &n, mlir::Value codes, int onnxType);
/// Values (any float or integer type) -> i8 codes of `onnxType`, rounding to nearest even;
/// out-of-range values saturate to the largest finite code, or (saturate = false) become
/// Inf where the type has one, else NaN.
/// float8e8m0 rounds by `roundMode` (up, down or nearest), as ONNX's Cast does.
mlir::FailureOr<mlir::Value> encodeLowPrecision(NodeImporter &n, mlir::Value x, int onnxType,
                                                bool saturate, llvm::StringRef roundMode = "up");
/// Integer values -> i8 holding them wrapped to the width of int4/uint4/int2/uint2.
mlir::FailureOr<mlir::Value> wrapSubByte(NodeImporter &n, mlir::Value v, int onnxType);

} // namespace dlc::onnx_frontend

#endif
