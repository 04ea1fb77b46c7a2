// Public entry of the ONNX frontend: ModelProto file -> dlc_graph module.
#ifndef DLC_FRONTENDS_ONNX_IMPORTER_H
#define DLC_FRONTENDS_ONNX_IMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <string>
#include <vector>

namespace dlc::onnx_frontend {

struct ImportOptions {
  /// Static shapes for graph inputs, overriding the model's (required where the
  /// model has symbolic or unknown dims; those otherwise default to 1).
  std::map<std::string, std::vector<int64_t>> inputShapes;
};

/// Imports an ONNX model into a module holding one `func.func @main_graph` of
/// dlc_graph ops. Arguments and results carry `dlc.name` (the ONNX name) and
/// `dlc.dtype` (the ONNX TensorProto data type). Errors are emitted as
/// diagnostics on the context, located at the ONNX node
/// (`NameLoc(node, NameLoc("OpType, opset N"))`) or at the file.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
importOnnxFile(mlir::MLIRContext &ctx, const std::string &path, const ImportOptions &options);

/// A model's interface as declared in the file (symbolic dims kept by name).
struct TensorSummary {
  std::string name;
  int dtype; // ONNX TensorProto data type
  std::vector<std::string> dims;
  bool unknownRank;
};
struct ModelSummary {
  int opset = 0;
  int numNodes = 0;
  std::string producer;
  std::vector<TensorSummary> inputs, outputs;
};
mlir::FailureOr<ModelSummary> summarizeOnnxFile(mlir::MLIRContext &ctx, const std::string &path);

} // namespace dlc::onnx_frontend

#endif
