// ONNX TensorProto files (`.pb`) <-> runtime tensors, for `dlc run --input X.pb`
// and `--output-format=pb`. This is how ONNX's own test data is stored.
#ifndef DLC_FRONTENDS_ONNX_TENSORFILE_H
#define DLC_FRONTENDS_ONNX_TENSORFILE_H

#include "runtime/dlc_runtime.h"

#include <string>

namespace dlc::onnxio {

/// Reads a serialized onnx.TensorProto from `path` into a new tensor that the
/// caller frees with dlc_tensor_free. Null with a one-line `error` naming the
/// file on failure (unreadable, not a TensorProto, unsupported data type,
/// data size not matching the dims, external data).
dlc_tensor_t *loadTensorProto(const std::string &path, std::string &error);

/// Writes `tensor` as an onnx.TensorProto named `name` (raw little-endian data)
/// to `path`, atomically. False with `error` set on failure.
bool saveTensorProto(const dlc_tensor_t *tensor, const std::string &name, const std::string &path,
                     std::string &error);

} // namespace dlc::onnxio

#endif
