// Small edits of ONNX models for the quantizers (ModelEdit.h).
#include "compiler/Quantize/ModelEdit.h"
#include "frontends/Onnx/FileIO.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/onnx_pb.h>

#include <climits>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace dlc::quantize {

using onnx::TensorProto;

bool readModel(const std::string &path, onnx::ModelProto &model, std::string &error) {
  int fd = openRegularFile(path, error);
  if (fd < 0) {
    error = path + ": " + error;
    return false;
  }
  google::protobuf::io::FileInputStream raw(fd);
  raw.SetCloseOnDelete(true);
  google::protobuf::io::CodedInputStream coded(&raw);
  coded.SetTotalBytesLimit(INT_MAX);
  if (!model.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage() || !model.has_graph()) {
    error = path + ": not a valid ONNX model (protobuf parse failed)";
    return false;
  }
  // External data is read in, so that weights can be quantized and the written model
  // stands alone wherever it is written.
  std::string baseDir = path.substr(0, path.find_last_of('/') == std::string::npos
                                           ? 0
                                           : path.find_last_of('/'));
  if (baseDir.empty() && !path.empty() && path[0] == '/')
    baseDir = "/";
  for (TensorProto &t : *model.mutable_graph()->mutable_initializer()) {
    if (t.data_location() != TensorProto::EXTERNAL)
      continue;
    uint64_t width = 0;
    switch (t.data_type()) {
    case TensorProto::DOUBLE: case TensorProto::INT64: case TensorProto::UINT64: width = 8; break;
    case TensorProto::FLOAT: case TensorProto::INT32: case TensorProto::UINT32: width = 4; break;
    case TensorProto::FLOAT16: case TensorProto::BFLOAT16: case TensorProto::INT16:
    case TensorProto::UINT16: width = 2; break;
    case TensorProto::INT8: case TensorProto::UINT8: case TensorProto::BOOL: width = 1; break;
    default:
      error = path + ": initializer '" + t.name() + "' of data type " +
              std::to_string(t.data_type()) + " is stored as external data, which dlc quantize "
              "does not read for that type";
      return false;
    }
    uint64_t n = 1;
    for (int64_t d : t.dims()) {
      if (d < 0 || (d && n > (uint64_t(1) << 40) / uint64_t(d))) {
        error = path + ": initializer '" + t.name() + "' has invalid dims";
        return false;
      }
      n *= uint64_t(d);
    }
    std::vector<std::pair<std::string, std::string>> entries;
    for (const auto &kv : t.external_data())
      entries.emplace_back(kv.key(), kv.value());
    std::string bytes;
    if (!readExternalData(t.name(), entries, baseDir, n * width, bytes, error)) {
      error = path + ": " + error;
      return false;
    }
    t.clear_external_data();
    t.set_data_location(TensorProto::DEFAULT);
    t.set_raw_data(std::move(bytes));
  }
  return true;
}

std::string displayName(const onnx::NodeProto &node, size_t index) {
  return node.name().empty() ? node.op_type() + "_" + std::to_string(index) : node.name();
}

int defaultDomainOpset(const onnx::ModelProto &model) {
  for (const auto &imp : model.opset_import())
    if (imp.domain().empty() || imp.domain() == "ai.onnx")
      return int(imp.version());
  return 0;
}

bool isDefaultDomain(const onnx::NodeProto &node) {
  return node.domain().empty() || node.domain() == "ai.onnx";
}

const TensorProto *findInitializer(const onnx::GraphProto &g, const std::string &name) {
  for (const auto &t : g.initializer())
    if (t.name() == name)
      return &t;
  return nullptr;
}

/// A float initializer's values (inline data only); false otherwise.
bool readFloats(const TensorProto &t, std::vector<float> &out) {
  if (t.data_type() != TensorProto::FLOAT || t.data_location() == TensorProto::EXTERNAL)
    return false;
  int64_t n = 1;
  for (int64_t d : t.dims()) {
    if (d < 0 || (d && n > std::numeric_limits<int64_t>::max() / d / 4))
      return false;
    n *= d;
  }
  if (t.has_raw_data()) {
    if (t.raw_data().size() != size_t(n) * 4)
      return false;
    out.resize(n);
    std::memcpy(out.data(), t.raw_data().data(), size_t(n) * 4);
    return true;
  }
  if (t.float_data_size() != n)
    return false;
  out.assign(t.float_data().begin(), t.float_data().end());
  return true;
}

std::string Names::fresh(const std::string &base) {
  std::string name = base;
  for (int i = 1; used.count(name); ++i)
    name = base + "_" + std::to_string(i);
  used.insert(name);
  return name;
}

void Names::collect(const onnx::GraphProto &g) {
  for (const auto &t : g.initializer())
    used.insert(t.name());
  for (const auto &v : g.input())
    used.insert(v.name());
  for (const auto &n : g.node()) {
    used.insert(n.name());
    used.insert(n.input().begin(), n.input().end());
    used.insert(n.output().begin(), n.output().end());
    for (const auto &a : n.attribute()) {
      if (a.has_g())
        collect(a.g());
      for (const auto &sub : a.graphs())
        collect(sub);
    }
  }
}

/// Values read by nodes of `g`'s subgraphs (which may name the outer graph's values).
static void subgraphReads(const onnx::GraphProto &g, std::set<std::string> &out, bool inner) {
  for (const auto &n : g.node()) {
    if (inner)
      out.insert(n.input().begin(), n.input().end());
    for (const auto &a : n.attribute()) {
      if (a.has_g())
        subgraphReads(a.g(), out, true);
      for (const auto &sub : a.graphs())
        subgraphReads(sub, out, true);
    }
  }
}

TensorProto makeTensor(const std::string &name, int dtype, const std::vector<int64_t> &dims,
                       const void *data, size_t bytes) {
  TensorProto t;
  t.set_name(name);
  t.set_data_type(dtype);
  for (int64_t d : dims)
    t.add_dims(d);
  t.set_raw_data(std::string(static_cast<const char *>(data), bytes));
  return t;
}

onnx::NodeProto makeNode(const std::string &op, const std::string &name,
                         const std::vector<std::string> &inputs, const std::string &output,
                         int axis) {
  onnx::NodeProto n;
  n.set_op_type(op);
  n.set_name(name);
  for (const auto &i : inputs)
    n.add_input(i);
  n.add_output(output);
  if (axis >= 0) {
    auto *a = n.add_attribute();
    a->set_name("axis");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(axis);
  }
  return n;
}

void removeUnreadInitializers(onnx::GraphProto &g, const std::set<std::string> &candidates) {
  std::set<std::string> read;
  for (const auto &n : g.node())
    read.insert(n.input().begin(), n.input().end());
  for (const auto &o : g.output())
    read.insert(o.name());
  subgraphReads(g, read, false);
  auto *inits = g.mutable_initializer();
  std::set<std::string> removed;
  for (int i = inits->size() - 1; i >= 0; --i)
    if (candidates.count(inits->Get(i).name()) && !read.count(inits->Get(i).name())) {
      removed.insert(inits->Get(i).name());
      inits->DeleteSubrange(i, 1);
    }
  auto *inputs = g.mutable_input(); // IR < 4 lists initializers as graph inputs too
  for (int i = inputs->size() - 1; i >= 0; --i)
    if (removed.count(inputs->Get(i).name()))
      inputs->DeleteSubrange(i, 1);
}

SymmetricWeight quantizeSymmetric(const std::vector<float> &values,
                                  const std::vector<int64_t> &dims, int axis) {
  int64_t channels = axis >= 0 ? dims[axis] : 1, inner = 1;
  for (size_t d = axis + 1; axis >= 0 && d < dims.size(); ++d)
    inner *= dims[d];
  SymmetricWeight w;
  w.scales.assign(channels, 0.f);
  auto channelOf = [&](size_t i) { return axis >= 0 ? int64_t(i / inner) % channels : 0; };
  for (size_t i = 0; i < values.size(); ++i)
    if (std::isfinite(values[i]))
      w.scales[channelOf(i)] = std::max(w.scales[channelOf(i)], std::fabs(values[i]));
  for (float &s : w.scales) {
    s /= 127.f;
    if (!(s > 0) || !std::isfinite(s))
      s = 1.f;
  }
  w.values.resize(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    double v = std::nearbyint(double(values[i]) / w.scales[channelOf(i)]);
    w.values[i] = int8_t(std::clamp(std::isnan(v) ? 0.0 : v, -127.0, 127.0));
  }
  return w;
}

} // namespace dlc::quantize
