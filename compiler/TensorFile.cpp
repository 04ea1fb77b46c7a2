// ONNX TensorProto files <-> runtime tensors (see TensorFile.h).
#include "compiler/TensorFile.h"
#include "frontends/Onnx/FileIO.h"

#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <onnx/onnx-data_pb.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace dlc::onnxio {
namespace {

struct TensorDeleter {
  void operator()(dlc_tensor_t *t) const { dlc_tensor_free(t); }
};

// The runtime's dtype codes are ONNX's TensorProto.DataType values; these are the
// ones the runtime can hold.
bool isRuntimeDtype(int32_t t) { return dlc_dtype_size(t) != 0; }

/// Copies typed repeated-field values into `dst` (element size `bytes`), narrowing
/// as ONNX stores them (int32_data holds 8/16-bit ints, bools and fp16 bit patterns).
template <typename Field>
void copyNarrowed(const Field &src, void *dst, size_t bytes) {
  char *out = static_cast<char *>(dst);
  for (int i = 0; i < src.size(); ++i) {
    auto v = src.Get(i);
    if (bytes == sizeof(v)) {
      std::memcpy(out + i * bytes, &v, bytes);
    } else {
      uint64_t bits = (uint64_t)v; // little-endian: the low bytes are the value
      std::memcpy(out + i * bytes, &bits, bytes);
    }
  }
}

/// Bits per element of ONNX's packed sub-byte types (0 for byte-sized ones).
int subByteBits(int32_t dtype) {
  switch (dtype) {
  case DLC_DTYPE_UINT4:
  case DLC_DTYPE_INT4:
  case DLC_DTYPE_FLOAT4E2M1:
    return 4;
  case DLC_DTYPE_UINT2:
  case DLC_DTYPE_INT2:
    return 2;
  default:
    return 0;
  }
}

/// Packed little-endian fields (lowest bits first) -> one byte each, sign-extended
/// for the signed integer types.
void unpack(const std::string &raw, int32_t dtype, int64_t n, uint8_t *dst) {
  int bits = subByteBits(dtype), per = 8 / bits, mask = (1 << bits) - 1;
  bool isSigned = dtype == DLC_DTYPE_INT4 || dtype == DLC_DTYPE_INT2;
  for (int64_t i = 0; i < n; ++i) {
    int v = ((uint8_t)raw[i / per] >> ((i % per) * bits)) & mask;
    if (isSigned && (v & (1 << (bits - 1))))
      v -= 1 << bits;
    dst[i] = (uint8_t)v;
  }
}

std::string pack(const uint8_t *src, int32_t dtype, int64_t n) {
  int bits = subByteBits(dtype), per = 8 / bits, mask = (1 << bits) - 1;
  std::string raw((n + per - 1) / per, '\0');
  for (int64_t i = 0; i < n; ++i)
    raw[i / per] = (char)((uint8_t)raw[i / per] | ((src[i] & mask) << ((i % per) * bits)));
  return raw;
}

} // namespace

namespace {

/// Parses the protobuf message `m` from file `path`; `what` names it in errors.
/// `strict`: fields `m` does not have (a file of another message type parses
/// "successfully" with them as unknown fields) are an error.
bool readMessage(const std::string &path, google::protobuf::Message &m, const char *what,
                 std::string &error, bool strict = false) {
  int fd = openRegularFile(path, error);
  if (fd < 0) {
    error = path + ": " + error;
    return false;
  }
  google::protobuf::io::FileInputStream raw(fd);
  raw.SetCloseOnDelete(true);
  if (!m.ParseFromZeroCopyStream(&raw)) {
    error = path + ": not a valid ONNX " + what + " (protobuf parse failed)";
    return false;
  }
  if (strict && !m.GetReflection()->GetUnknownFields(m).empty()) {
    error = path + ": not a valid ONNX " + what + " (it has fields a " + what +
            " does not; another message type?)";
    return false;
  }
  return true;
}

/// Writes `m` to `path` atomically (a temporary file renamed into place).
bool writeMessage(const google::protobuf::MessageLite &m, const std::string &path,
                  std::string &error) {
  std::string bytes;
  if (!m.SerializeToString(&bytes)) {
    error = "cannot write '" + path + "': the message does not serialize";
    return false;
  }
  return writeFileAtomically(path, bytes, error);
}

} // namespace

dlc_tensor_t *loadTensorProto(const std::string &path, std::string &error) {
  ::onnx::TensorProto t;
  if (!readMessage(path, t, "TensorProto", error))
    return nullptr;
  return tensorFromProto(t, path, error);
}

dlc_tensor_t *tensorFromProto(const ::onnx::TensorProto &t, const std::string &path,
                              std::string &error) {
  int32_t dtype = t.data_type();
  if (!isRuntimeDtype(dtype)) {
    error = path + ": tensor data type " + std::to_string(dtype) + " is not supported";
    return nullptr;
  }
  if (t.data_location() == ::onnx::TensorProto::EXTERNAL) {
    error = path + ": tensors with external data are not supported in tensor files";
    return nullptr;
  }
  if (t.dims_size() > 32) {
    error = path + ": rank " + std::to_string(t.dims_size()) + " is too large";
    return nullptr;
  }
  std::vector<int64_t> dims;
  int64_t n = 1;
  for (int64_t d : t.dims()) {
    // At most 2^40 elements; the product is checked before it is taken.
    const int64_t limit = int64_t(1) << 40;
    if (d < 0 || d > limit || (d > 0 && n > limit / d)) {
      error = path + ": invalid dims (dim " + std::to_string(d) + ")";
      return nullptr;
    }
    n *= d;
    dims.push_back(d);
  }
  // Strings: one string_data entry per element.
  if (dtype == DLC_DTYPE_STRING) {
    if (t.string_data_size() != n) {
      error = path + ": expected " + std::to_string(n) + " strings, got " +
              std::to_string(t.string_data_size());
      return nullptr;
    }
    dlc_tensor_t *s = nullptr;
    if (dlc_tensor_create(dtype, (int32_t)dims.size(), dims.data(), &s) != DLC_OK) {
      error = path + ": " + dlc_status_message();
      return nullptr;
    }
    for (int64_t i = 0; i < n; ++i)
      if (dlc_tensor_set_string(s, i, t.string_data(i).data(), t.string_data(i).size()) != DLC_OK) {
        error = path + ": " + dlc_status_message();
        dlc_tensor_free(s);
        return nullptr;
      }
    return s;
  }
  size_t elt = dlc_dtype_size(dtype);
  int bits = subByteBits(dtype);
  // Raw data of sub-byte types is packed; in memory each element takes a byte.
  size_t expected = bits ? (size_t)(n * bits + 7) / 8 : (size_t)n * elt;
  // Check the payload size before allocating, so a bogus header cannot ask for terabytes.
  size_t have = 0;
  if (t.has_raw_data())
    have = t.raw_data().size();
  else if (dtype == DLC_DTYPE_FLOAT)
    have = t.float_data_size() * elt;
  else if (dtype == DLC_DTYPE_DOUBLE)
    have = t.double_data_size() * elt;
  else if (dtype == DLC_DTYPE_INT64)
    have = t.int64_data_size() * elt;
  else if (dtype == DLC_DTYPE_UINT32 || dtype == DLC_DTYPE_UINT64)
    have = t.uint64_data_size() * elt;
  else
    have = t.int32_data_size() * elt;
  std::string packed;
  if (bits && !t.has_raw_data()) {
    // Typed form: int32_data holds the packed bytes, one per value.
    for (int32_t v : t.int32_data())
      packed.push_back((char)(uint8_t)v);
    have = packed.size();
  } else if (bits) {
    packed = t.raw_data();
  }
  if (have != expected) {
    error = path + ": tensor holds " + std::to_string(have / elt) + " values, expected " +
            std::to_string(n) + " for its dims";
    return nullptr;
  }
  dlc_tensor_t *raw = nullptr;
  if (dlc_tensor_create(dtype, (int32_t)dims.size(), dims.data(), &raw) != DLC_OK) {
    error = path + ": " + dlc_status_message();
    return nullptr;
  }
  std::unique_ptr<dlc_tensor_t, TensorDeleter> out(raw);
  void *dst = dlc_tensor_data(raw);
  if (bits) {
    unpack(packed, dtype, n, static_cast<uint8_t *>(dst));
  } else if (t.has_raw_data()) {
    if (expected)
      std::memcpy(dst, t.raw_data().data(), expected);
  } else if (dtype == DLC_DTYPE_FLOAT) {
    copyNarrowed(t.float_data(), dst, elt);
  } else if (dtype == DLC_DTYPE_DOUBLE) {
    copyNarrowed(t.double_data(), dst, elt);
  } else if (dtype == DLC_DTYPE_INT64) {
    copyNarrowed(t.int64_data(), dst, elt);
  } else if (dtype == DLC_DTYPE_UINT32 || dtype == DLC_DTYPE_UINT64) {
    copyNarrowed(t.uint64_data(), dst, elt);
  } else {
    copyNarrowed(t.int32_data(), dst, elt);
  }
  if (dtype == DLC_DTYPE_BOOL) { // normalize to 0/1
    auto *b = static_cast<uint8_t *>(dst);
    for (int64_t i = 0; i < n; ++i)
      b[i] = b[i] != 0;
  }
  return out.release();
}

void tensorToProto(const dlc_tensor_t *tensor, const std::string &name, ::onnx::TensorProto &t) {
  t.set_name(name);
  t.set_data_type(dlc_tensor_dtype(tensor));
  for (int32_t i = 0; i < dlc_tensor_rank(tensor); ++i)
    t.add_dims(dlc_tensor_shape(tensor)[i]);
  if (dlc_tensor_dtype(tensor) == DLC_DTYPE_STRING) {
    for (int64_t i = 0; i < dlc_tensor_num_elements(tensor); ++i) {
      size_t size;
      const char *data = dlc_tensor_string(tensor, i, &size);
      t.add_string_data(std::string(data ? data : "", size));
    }
    return;
  }
  if (subByteBits(dlc_tensor_dtype(tensor)))
    t.set_raw_data(pack(static_cast<const uint8_t *>(dlc_tensor_data(tensor)),
                        dlc_tensor_dtype(tensor), dlc_tensor_num_elements(tensor)));
  else
    t.set_raw_data(std::string(static_cast<const char *>(dlc_tensor_data(tensor)),
                               dlc_tensor_byte_size(tensor)));
}

bool saveTensorProto(const dlc_tensor_t *tensor, const std::string &name, const std::string &path,
                     std::string &error) {
  ::onnx::TensorProto t;
  tensorToProto(tensor, name, t);
  return writeMessage(t, path, error);
}

namespace {

/// The tensors of a SequenceProto of tensors (appended to `out`, owned by the caller).
bool sequenceTensors(const ::onnx::SequenceProto &s, const std::string &path,
                     std::vector<dlc_tensor_t *> &out, std::string &error) {
  if (s.elem_type() != ::onnx::SequenceProto::TENSOR &&
      !(s.elem_type() == ::onnx::SequenceProto::UNDEFINED && s.tensor_values_size() == 0)) {
    error = path + ": only sequences of tensors are supported";
    return false;
  }
  for (const auto &t : s.tensor_values()) {
    dlc_tensor_t *x = tensorFromProto(t, path, error);
    if (!x) {
      for (dlc_tensor_t *y : out)
        dlc_tensor_free(y);
      out.clear();
      return false;
    }
    out.push_back(x);
  }
  return true;
}

void sequenceToProto(const std::vector<const dlc_tensor_t *> &tensors, const std::string &name,
                     ::onnx::SequenceProto &s) {
  s.set_name(name);
  s.set_elem_type(::onnx::SequenceProto::TENSOR);
  for (const dlc_tensor_t *t : tensors)
    tensorToProto(t, "", *s.add_tensor_values());
}

} // namespace

bool loadValueFile(const std::string &path, bool sequence, bool optional, ValueContents &out,
                   std::string &error) {
  out = ValueContents();
  if (!optional && !sequence) {
    dlc_tensor_t *t = loadTensorProto(path, error);
    if (!t)
      return false;
    out.tensors.push_back(t);
    return true;
  }
  if (!optional) {
    ::onnx::SequenceProto s;
    out.kind = ValueKind::Sequence;
    return readMessage(path, s, "SequenceProto", error, /*strict=*/true) &&
           sequenceTensors(s, path, out.tensors, error);
  }
  ::onnx::OptionalProto o;
  if (!readMessage(path, o, "OptionalProto", error, /*strict=*/true))
    return false;
  if (o.has_tensor_value()) {
    dlc_tensor_t *t = tensorFromProto(o.tensor_value(), path, error);
    if (!t)
      return false;
    out.tensors.push_back(t);
    return true;
  }
  if (o.has_sequence_value()) {
    out.kind = ValueKind::Sequence;
    return sequenceTensors(o.sequence_value(), path, out.tensors, error);
  }
  if (o.elem_type() != ::onnx::OptionalProto::UNDEFINED &&
      o.elem_type() != ::onnx::OptionalProto::TENSOR &&
      o.elem_type() != ::onnx::OptionalProto::SEQUENCE) {
    error = path + ": only optional tensors and sequences are supported";
    return false;
  }
  out.kind = ValueKind::Absent;
  return true;
}

bool saveValueFile(ValueKind kind, bool optional, const std::vector<const dlc_tensor_t *> &tensors,
                   const std::string &name, const std::string &path, std::string &error) {
  if (!optional && kind == ValueKind::Tensor)
    return tensors.size() == 1 ? saveTensorProto(tensors[0], name, path, error)
                               : (error = path + ": expected one tensor", false);
  if (!optional && kind == ValueKind::Sequence) {
    ::onnx::SequenceProto s;
    sequenceToProto(tensors, name, s);
    return writeMessage(s, path, error);
  }
  ::onnx::OptionalProto o;
  o.set_name(name);
  if (kind == ValueKind::Tensor && tensors.size() == 1) {
    o.set_elem_type(::onnx::OptionalProto::TENSOR);
    tensorToProto(tensors[0], "", *o.mutable_tensor_value());
  } else if (kind == ValueKind::Sequence) {
    o.set_elem_type(::onnx::OptionalProto::SEQUENCE);
    sequenceToProto(tensors, "", *o.mutable_sequence_value());
  }
  return writeMessage(o, path, error);
}

} // namespace dlc::onnxio
