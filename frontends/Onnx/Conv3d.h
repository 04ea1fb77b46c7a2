// 3-D convolution for the ONNX builders: lowered at import to one 2-D dlc_graph conv.
#ifndef DLC_FRONTENDS_ONNX_CONV3D_H
#define DLC_FRONTENDS_ONNX_CONV3D_H

#include "frontends/Onnx/NodeImporter.h"

namespace dlc::onnx_frontend {

/// Errors at the node unless weight `wt` [F, C/group, ...] fits input `xt` [N, C, ...].
mlir::LogicalResult checkConv3dShapes(NodeImporter &n, mlir::RankedTensorType xt,
                                      mlir::RankedTensorType wt, int64_t group);

/// The 3-D convolution of `x` [N, C, D, H, W] with `w` [F, C/group, KD, KH, KW] (and an
/// optional `bias` [F]); `strides` and `dilations` per (D, H, W), `pads` as
/// [D, H, W begins, D, H, W ends]. Built as one 2-D conv whose channels are the depth
/// taps and whose batch rows are the output depths.
mlir::FailureOr<mlir::Value> conv3dAs2d(NodeImporter &n, mlir::Value x, mlir::Value w,
                                        mlir::Value bias, llvm::ArrayRef<int64_t> strides,
                                        llvm::ArrayRef<int64_t> pads,
                                        llvm::ArrayRef<int64_t> dilations, int64_t group);

} // namespace dlc::onnx_frontend

#endif
