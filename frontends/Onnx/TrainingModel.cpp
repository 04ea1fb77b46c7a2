// The forward model a training step carries: trained initializers stripped, then filled back.
#include "frontends/Onnx/Importer.h"
#include "frontends/Onnx/FileIO.h"
#include "frontends/Onnx/ModelFile.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unistd.h>

using namespace mlir;

namespace dlc::onnx_frontend {

FailureOr<std::string> stripTrainableInitializers(MLIRContext &ctx, const std::string &path,
                                                  const std::set<std::string> &keep) {
  onnx::ModelProto model;
  if (failed(loadModelProto(path, model, FileLineColLoc::get(&ctx, path, 0, 0))))
    return failure();
  for (onnx::TensorProto &t : *model.mutable_graph()->mutable_initializer()) {
    if (!isFloatDtype(t.data_type()) || keep.count(t.name()))
      continue;
    t.clear_raw_data();
    t.clear_float_data();
    t.clear_double_data();
    t.clear_int32_data(); // float16/bfloat16 stored as int32
    t.clear_external_data();
    t.clear_data_location();
  }
  std::string bytes;
  if (!model.SerializeToString(&bytes)) {
    emitError(FileLineColLoc::get(&ctx, path, 0, 0)) << "cannot serialize the model again";
    return failure();
  }
  return bytes;
}

bool writeModelWithInitializers(const std::string &bytes,
                                const std::map<std::string, std::string> &values,
                                const std::string &path, std::string &error) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) {
    error = "the embedded model does not parse";
    return false;
  }
  size_t found = 0;
  for (onnx::TensorProto &t : *model.mutable_graph()->mutable_initializer()) {
    auto it = values.find(t.name());
    if (it == values.end())
      continue;
    ++found;
    t.set_raw_data(it->second);
  }
  if (found != values.size()) {
    error = "the embedded model lacks some of the trained initializers";
    return false;
  }
  std::string serialized;
  if (!model.SerializeToString(&serialized)) {
    error = "cannot write '" + path + "': the model does not serialize (over 2 GiB?)";
    return false;
  }
  return writeFileAtomically(path, serialized, error);
}

} // namespace dlc::onnx_frontend
