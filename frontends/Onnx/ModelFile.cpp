// Reading ONNX model files: parsing, the default opset, node names, summaries (dlc info/verify).
#include "frontends/Onnx/Importer.h"
#include "frontends/Onnx/ModelFile.h"
#include "frontends/Onnx/FileIO.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <set>
#include <unistd.h>

using namespace mlir;

namespace dlc::onnx_frontend {

LogicalResult loadModelProto(const std::string &path, onnx::ModelProto &model, Location fileLoc) {
  if (llvm::sys::fs::is_directory(path))
    return emitError(fileLoc) << "is a directory, expected an .onnx file";
  std::string error;
  int fd = openRegularFile(path, error);
  if (fd < 0)
    return emitError(fileLoc) << error;
  google::protobuf::io::FileInputStream raw(fd);
  raw.SetCloseOnDelete(true);
  google::protobuf::io::CodedInputStream coded(&raw);
  coded.SetTotalBytesLimit(INT_MAX);
  if (!model.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage())
    return emitError(fileLoc) << "not a valid ONNX model (protobuf parse failed)";
  if (!model.has_graph())
    return emitError(fileLoc) << "not a valid ONNX model (no graph)";
  return success();
}

int defaultOpset(const onnx::ModelProto &model) {
  int opset = 0;
  for (const auto &imp : model.opset_import())
    if (imp.domain().empty() || imp.domain() == "ai.onnx")
      opset = imp.version();
  return opset;
}

static TensorSummary summarize(const onnx::ValueInfoProto &vi) {
  const onnx::TypeProto *type = &vi.type();
  bool optional = type->has_optional_type();
  if (optional)
    type = &type->optional_type().elem_type();
  bool sequence = type->has_sequence_type();
  if (sequence)
    type = &type->sequence_type().elem_type();
  TensorSummary t{vi.name(), 0, {}, !type->tensor_type().has_shape(), sequence, optional};
  if (!type->has_tensor_type())
    return t;
  t.dtype = type->tensor_type().elem_type();
  for (const auto &d : type->tensor_type().shape().dim())
    t.dims.push_back(d.has_dim_value() ? std::to_string(d.dim_value())
                                       : (d.dim_param().empty() ? "?" : d.dim_param()));
  return t;
}

std::string nodeDisplayName(const onnx::NodeProto &node, size_t index) {
  return node.name().empty() ? node.op_type() + "_" + std::to_string(index) : node.name();
}

FailureOr<ModelSummary> summarizeOnnxFile(MLIRContext &ctx, const std::string &path) {
  onnx::ModelProto model;
  if (failed(loadModelProto(path, model, FileLineColLoc::get(&ctx, path, 0, 0))))
    return failure();
  ModelSummary s;
  s.opset = defaultOpset(model);
  s.numNodes = model.graph().node_size();
  s.producer = model.producer_name();
  for (const auto &[i, node] : llvm::enumerate(model.graph().node()))
    s.nodes.push_back({nodeDisplayName(node, i), node.op_type(),
                       {node.input().begin(), node.input().end()},
                       {node.output().begin(), node.output().end()}});
  for (const auto &t : model.graph().initializer())
    s.initializers.push_back(t.name());
  std::set<std::string> inits;
  for (const auto &t : model.graph().initializer())
    inits.insert(t.name());
  for (const auto &vi : model.graph().input())
    if (!inits.count(vi.name()))
      s.inputs.push_back(summarize(vi));
  for (const auto &vi : model.graph().output())
    s.outputs.push_back(summarize(vi));
  return s;
}

} // namespace dlc::onnx_frontend
