// ONNX TensorProto files (`.pb`) <-> runtime tensors, for `dlc run --input X.pb`
// and `--output-format=pb`. This is how ONNX's own test data is stored.
#ifndef DLC_COMPILER_TENSORFILE_H
#define DLC_COMPILER_TENSORFILE_H

#include "frontends/Onnx/FileIO.h" // the safe file I/O the CLI shares, re-exported
#include "runtime/dlc_runtime.h"

#include <string>
#include <vector>

namespace onnx {
class TensorProto;
}

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

/// TensorProto message <-> tensor (`path` names the file in errors).
dlc_tensor_t *tensorFromProto(const ::onnx::TensorProto &t, const std::string &path,
                              std::string &error);
void tensorToProto(const dlc_tensor_t *tensor, const std::string &name, ::onnx::TensorProto &t);

/// What a graph input/output file holds: a TensorProto, a SequenceProto of
/// tensors, or (from an OptionalProto) no value.
enum class ValueKind { Tensor, Sequence, Absent };
struct ValueContents {
  ValueKind kind = ValueKind::Tensor;
  std::vector<dlc_tensor_t *> tensors; // owned by the caller (dlc_tensor_free)
};

/// Reads a value file: a TensorProto, a SequenceProto when `sequence`, an
/// OptionalProto (of a tensor, a sequence or nothing; `out.kind` says which)
/// when `optional`. False with a one-line `error` naming the file.
bool loadValueFile(const std::string &path, bool sequence, bool optional, ValueContents &out,
                   std::string &error);

/// Writes `tensors` as a TensorProto (kind Tensor, one tensor) or SequenceProto,
/// wrapped in an OptionalProto when `optional` (kind Absent: an empty one).
bool saveValueFile(ValueKind kind, bool optional, const std::vector<const dlc_tensor_t *> &tensors,
                   const std::string &name, const std::string &path, std::string &error);

} // namespace dlc::onnxio

#endif
