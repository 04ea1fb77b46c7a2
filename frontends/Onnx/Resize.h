// Resize for the ONNX builders: the attributes, and the resampling of a dynamic axis
// (ResizeDynamic.cpp) whose weights are computed when the model runs.
#ifndef DLC_FRONTENDS_ONNX_RESIZE_H
#define DLC_FRONTENDS_ONNX_RESIZE_H

#include "frontends/Onnx/NodeImporter.h"

#include <optional>
#include <string>

namespace dlc::onnx_frontend {

struct ResizeAttrs {
  std::string mode, coordMode, nearestMode, aspectPolicy;
  double cubicA, extrapolation;
  bool excludeOutside, antialias;
};

/// `y` (float type `fe`) resampled along `axis`, a dynamic dim or one resized to a dynamic
/// size (dlc compile --dims), to `out` elements: the [in, out] weights of ResizeBuilders'
/// axisWeights computed from the sizes when the model runs (in f64), then one product.
/// `scale`: the constant scale, or none for out / in.
mlir::FailureOr<mlir::Value> resampleDynamicAxis(NodeImporter &n, const ResizeAttrs &a,
                                                 mlir::Value y, int64_t axis,
                                                 const graph::SymbolicSize &out,
                                                 std::optional<double> scale, double roiStart,
                                                 double roiEnd);

/// floor(in * scale) for a scale that is a binary fraction (every float): exact.
std::optional<graph::SymbolicSize> scaledSize(const graph::SymbolicSize &in, double scale);

} // namespace dlc::onnx_frontend

#endif
