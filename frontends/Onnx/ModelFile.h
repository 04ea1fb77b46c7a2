// Reading ONNX model files, shared by the importer and the training-model helpers.
#ifndef DLC_FRONTENDS_ONNX_MODELFILE_H
#define DLC_FRONTENDS_ONNX_MODELFILE_H

#include "mlir/IR/Location.h"

#include <onnx/onnx_pb.h>

#include <string>

namespace dlc::onnx_frontend {

/// Parses the model at `path` (any size up to 2 GiB); errors are emitted at `fileLoc`.
mlir::LogicalResult loadModelProto(const std::string &path, onnx::ModelProto &model,
                                   mlir::Location fileLoc);

/// The model's default-domain opset version.
int defaultOpset(const onnx::ModelProto &model);

/// How diagnostics name a node: its name, or "<OpType>_<index>" when it has none.
std::string nodeDisplayName(const onnx::NodeProto &node, size_t index);

/// FLOAT, DOUBLE, FLOAT16 or BFLOAT16: the initializers training updates.
inline bool isFloatDtype(int t) {
  return t == onnx::TensorProto::FLOAT || t == onnx::TensorProto::DOUBLE ||
         t == onnx::TensorProto::FLOAT16 || t == onnx::TensorProto::BFLOAT16;
}

} // namespace dlc::onnx_frontend

#endif
