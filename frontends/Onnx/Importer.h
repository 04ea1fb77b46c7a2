// Public entry of the ONNX frontend: ModelProto file -> dlc_graph module.
#ifndef DLC_FRONTENDS_ONNX_IMPORTER_H
#define DLC_FRONTENDS_ONNX_IMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace dlc::onnx_frontend {

/// A tensor value known when compiling (dtype = ONNX TensorProto data type,
/// bytes little-endian row-major, bool one byte per element).
struct TensorValue {
  int dtype = 0;
  std::vector<int64_t> shape;
  std::string bytes;
};

struct ImportOptions {
  /// Static shapes for graph inputs, overriding the model's (required where the
  /// model has symbolic or unknown dims; those otherwise default to 1).
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// Dims of inputShapes given as symbols (a non-empty name at that position; the size
  /// there is ignored): each must be a dynamicDims symbol, and the dim stays dynamic
  /// (dlc compile --input-shape 'x[0]=n,4' --dims n=1..64).
  std::map<std::string, std::vector<std::string>> inputShapeSymbols;
  /// Report every failing node instead of stopping at the first. Nodes that
  /// consume a failed node's outputs are still checked: fully when the model
  /// declares those outputs' types (value_info), else only for op support.
  bool keepGoing = false;
  /// Symbolic dims (ONNX dim_params) that stay dynamic, each with the range [min, max]
  /// the compiled model accepts. Other symbolic dims are fixed (1 unless inputShapes
  /// says otherwise). A dynamic dim's argument gets `dlc.dims`, the function
  /// `dlc.dim_ranges` (dialects/Graph/IR/Names.h).
  std::map<std::string, std::pair<int64_t, int64_t>> dynamicDims;
  /// Values of graph inputs known at compile time. An input whose value is
  /// needed as a constant (axes, shape, pads, ...) is specialized to it: the
  /// function argument gets `dlc.value`, and the runtime checks it at each run.
  std::map<std::string, TensorValue> inputValues;
  /// Lengths of sequence-typed graph inputs (also optional sequences). Sequence
  /// input `x` of length N becomes the tensor arguments `x[0]` .. `x[N-1]`,
  /// shaped by inputShapes["x[i]"] or the model's element shape. Without an
  /// entry the length is the number of consecutive `x[i]` shapes given.
  std::map<std::string, int64_t> sequenceLengths;
  /// Optional-typed graph inputs that hold no value (they take no argument).
  std::set<std::string> absentInputs;
  /// Training and --grad-initializers: float initializers (except those in
  /// `frozenInitializers`) become trailing arguments marked `dlc.param`, their
  /// value in `dlc.param_init`, instead of constants that builders could fold.
  bool initializersAsArguments = false;
  std::set<std::string> frozenInitializers;
  /// Values computed by top-level nodes that become graph outputs after the model's
  /// own (dlc verify compares them); names already outputs are skipped.
  std::vector<std::string> extraOutputs;
  /// The largest tensor (initializer, constant or node result) the model may hold,
  /// in bytes; a node over it is an error naming the node (0: no limit).
  uint64_t maxTensorBytes = 0;
};

/// Imports an ONNX model into a module holding one `func.func @main_graph` of
/// dlc_graph ops. Arguments and results carry `dlc.name` (the ONNX name) and
/// `dlc.dtype` (the ONNX TensorProto data type). Errors are emitted as
/// diagnostics on the context, located at the ONNX node
/// (`NameLoc(node, NameLoc("OpType, opset N"))`) or at the file.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
importOnnxFile(mlir::MLIRContext &ctx, const std::string &path, const ImportOptions &options);

/// The model at `path` serialized again with the data of every float
/// initializer not in `keep` removed (a training step holds those as state and
/// writes them back when saving). Errors are emitted on `ctx`.
mlir::FailureOr<std::string> stripTrainableInitializers(mlir::MLIRContext &ctx,
                                                        const std::string &path,
                                                        const std::set<std::string> &keep);

/// `model` (serialized ONNX) with the initializers named in `values` given the
/// raw little-endian bytes there (their dtype and dims are the model's), written
/// to `path` atomically (a temporary file renamed over it). False with `error`.
bool writeModelWithInitializers(const std::string &model,
                                const std::map<std::string, std::string> &values,
                                const std::string &path, std::string &error);

/// One problem `dlc check` reports: a node, its op ("Conv, opset 17") and what
/// about it dlc does not support (op, dtype, attribute, or a malformed node).
struct NodeIssue {
  std::string node, op, message;
};
struct CheckResult {
  int opset = 0;
  int numNodes = 0;
  std::vector<NodeIssue> issues; // in node order, the first problem of each node
};
/// Imports the model with `keepGoing` and returns every node-level problem.
/// Failure only for file-level errors (unreadable model, bad graph inputs),
/// which are emitted as diagnostics.
mlir::FailureOr<CheckResult> checkOnnxFile(mlir::MLIRContext &ctx, const std::string &path,
                                           ImportOptions options);

/// A model's interface as declared in the file (symbolic dims kept by name).
struct TensorSummary {
  std::string name;
  int dtype; // ONNX TensorProto data type (of the elements, for sequences)
  std::vector<std::string> dims;
  bool unknownRank;
  bool sequence = false; // sequence of such tensors
  bool optional = false; // optional of the tensor or sequence
};
/// A top-level node as diagnostics and --dump-config name it: its name, or
/// "<OpType>_<index>" when it has none.
struct NodeSummary {
  std::string name, opType;
  std::vector<std::string> inputs, outputs;
};
struct ModelSummary {
  int opset = 0;
  int numNodes = 0;
  std::string producer;
  std::vector<TensorSummary> inputs, outputs;
  std::vector<NodeSummary> nodes; // in the graph's (topological) order
  std::vector<std::string> initializers;
};
mlir::FailureOr<ModelSummary> summarizeOnnxFile(mlir::MLIRContext &ctx, const std::string &path);

} // namespace dlc::onnx_frontend

#endif
