// Small edits of ONNX models shared by the quantizers (QdqModel.cpp, DynamicModel.cpp):
// initializers read and written, fresh names, new nodes, s8 weights.
#ifndef DLC_COMPILER_QUANTIZE_MODELEDIT_H
#define DLC_COMPILER_QUANTIZE_MODELEDIT_H

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace onnx {
class GraphProto;
class ModelProto;
class NodeProto;
class TensorProto;
} // namespace onnx

namespace dlc::quantize {

/// Parses the ONNX model at `path` (up to 2 GiB) and reads its initializers' external data
/// in (from the model's directory only); false with a one-line `error` naming it.
bool readModel(const std::string &path, onnx::ModelProto &model, std::string &error);

/// How diagnostics and --exclude name a node: its name, or "<OpType>_<index>".
std::string displayName(const onnx::NodeProto &node, size_t index);
/// The model's default-domain opset (0 if it imports none).
int defaultDomainOpset(const onnx::ModelProto &model);
bool isDefaultDomain(const onnx::NodeProto &node);
const onnx::TensorProto *findInitializer(const onnx::GraphProto &g, const std::string &name);
/// A float initializer's values (inline data only); false otherwise.
bool readFloats(const onnx::TensorProto &t, std::vector<float> &out);

/// Fresh value and node names (none of the model's, subgraphs included).
class Names {
public:
  explicit Names(const onnx::GraphProto &g) { collect(g); }
  std::string fresh(const std::string &base);

private:
  void collect(const onnx::GraphProto &g);
  std::set<std::string> used;
};

/// An initializer of raw little-endian data.
onnx::TensorProto makeTensor(const std::string &name, int dtype, const std::vector<int64_t> &dims,
                             const void *data, size_t bytes);
/// A default-domain node with one output (and an `axis` attribute when >= 0).
onnx::NodeProto makeNode(const std::string &op, const std::string &name,
                         const std::vector<std::string> &inputs, const std::string &output,
                         int axis = -1);

/// Drops the initializers among `candidates` that no node, graph output or subgraph
/// reads any more (and their graph-input entries).
void removeUnreadInitializers(onnx::GraphProto &g, const std::set<std::string> &candidates);

/// A weight as s8, symmetric (zero point 0): `max |w| / 127` per tensor (axis -1) or per
/// index of `axis`, values rounded half to even and clamped to [-127, 127].
struct SymmetricWeight {
  std::vector<int8_t> values;
  std::vector<float> scales;
};
SymmetricWeight quantizeSymmetric(const std::vector<float> &values, const std::vector<int64_t> &dims,
                                  int axis);

} // namespace dlc::quantize

#endif
