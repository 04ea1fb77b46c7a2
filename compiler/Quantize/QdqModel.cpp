// The QDQ rewrite of `dlc quantize` (QdqModel.h).
#include "compiler/Quantize/QdqModel.h"
#include "compiler/Quantize/Calibration.h"
#include "compiler/Quantize/ModelEdit.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace dlc::quantize {
namespace {

using onnx::TensorProto;
/// The output-channel axis of a contraction's weight (per-channel scales), or -1.
int weightAxis(const onnx::NodeProto &node, int rank) {
  if (node.op_type() == "Conv")
    return 0;
  if (node.op_type() == "Gemm") {
    for (const auto &a : node.attribute())
      if (a.name() == "transB" && a.i())
        return 0;
    return 1;
  }
  return rank >= 2 ? rank - 1 : -1; // MatMul: the columns of B
}

/// The Gemm/Conv bias input (a 1-D float initializer), or null.
const TensorProto *biasOf(const onnx::GraphProto &g, const onnx::NodeProto &node) {
  if ((node.op_type() != "Conv" && node.op_type() != "Gemm") || node.input_size() < 3 ||
      node.input(2).empty())
    return nullptr;
  const TensorProto *b = findInitializer(g, node.input(2));
  return b && b->data_type() == TensorProto::FLOAT && b->dims_size() == 1 ? b : nullptr;
}

/// A weight quantized to s8, symmetric: its scales (one, or one per channel of `axis`).
struct QuantizedWeight {
  std::string dequantized; // the DequantizeLinear output the contraction reads
  std::vector<float> scales;
  int axis = -1; // -1: per tensor
};

} // namespace

bool planQuantization(const onnx::ModelProto &model, const QuantizeOptions &options,
                      QuantizationPlan &plan, std::string &error) {
  plan = QuantizationPlan();
  int opset = defaultDomainOpset(model);
  if (!options.int4Weights && opset < (options.dynamic ? 11 : 10)) {
    error = options.dynamic ? "dynamic quantization needs opset 11 or later "
                              "(DynamicQuantizeLinear), the model imports opset " +
                                  std::to_string(opset)
                            : "quantizing needs opset 10 or later (QuantizeLinear), the model "
                              "imports opset " + std::to_string(opset);
    return false;
  }
  if (options.perChannel && !options.dynamic && !options.int4Weights && opset < 13) {
    error = "--per-channel needs opset 13 or later (DequantizeLinear's axis), the model imports "
            "opset " + std::to_string(opset);
    return false;
  }
  const onnx::GraphProto &g = model.graph();
  std::set<std::string> names, dequantized;
  for (int i = 0; i < g.node_size(); ++i) {
    names.insert(displayName(g.node(i), i));
    if (g.node(i).op_type() == "DequantizeLinear")
      dequantized.insert(g.node(i).output().begin(), g.node(i).output().end());
  }
  for (const auto &e : options.exclude)
    if (!names.count(e)) {
      error = "--exclude: the model has no node named '" + e + "'";
      return false;
    }
  std::set<std::string> activations;
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto &node = g.node(i);
    const std::string &op = node.op_type();
    if (!isDefaultDomain(node) || (op != "Conv" && op != "MatMul" && op != "Gemm"))
      continue;
    NodeDecision d;
    d.node = displayName(node, i);
    d.opType = op;
    d.index = i;
    std::string x = node.input_size() > 0 ? node.input(0) : "";
    std::string w = node.input_size() > 1 ? node.input(1) : "";
    const TensorProto *weight = w.empty() ? nullptr : findInitializer(g, w);
    std::vector<float> values;
    bool transA = false;
    for (const auto &a : node.attribute())
      transA |= op == "Gemm" && a.name() == "transA" && a.i();
    if (options.exclude.count(d.node))
      d.why = "excluded (--exclude)";
    else if (options.int4Weights && op == "Conv")
      d.why = "int4 weights cover MatMul and Gemm (the weight-streaming layers of transformers)";
    else if (options.int4Weights && transA)
      d.why = "Gemm with transA=1";
    else if (options.int4Weights && op == "Gemm" && node.input_size() > 2 &&
             !node.input(2).empty() && !biasOf(g, node))
      d.why = "its C input is not a 1-D float initializer (MatMulNBits' bias)";
    else if (options.dynamic && op == "Conv")
      d.why = "dynamic quantization covers MatMul and Gemm (give --quantize=int8 and "
              "calibration data for convs)";
    else if (options.dynamic && transA)
      d.why = "Gemm with transA=1";
    else if (options.dynamic && weight && weight->dims_size() < 2)
      d.why = "weight '" + w + "' is 1-D";
    else if (dequantized.count(x) || dequantized.count(w))
      d.why = "already reads dequantized values (a QDQ model)";
    else if (x.empty() || findInitializer(g, x))
      d.why = "its first input is a constant, not an activation";
    else if (!weight)
      d.why = "input '" + w + "' is not an initializer (only constant weights are quantized)";
    else if (!readFloats(*weight, values))
      d.why = "weight '" + w + "' is not a float32 initializer with inline data";
    else if (options.int4Weights && weight->dims_size() != 2)
      d.why = "weight '" + w + "' is not 2-D";
    else if (options.int4Weights && int64_t(values.size()) < kInt4MinElements)
      d.why = "weight '" + w + "' has " + std::to_string(values.size()) + " elements, below " +
              std::to_string(kInt4MinElements) + " (int4 pays off for large weights)";
    else if (op == "Gemm" && weight->dims_size() != 2)
      d.why = "weight '" + w + "' is not 2-D";
    else if (op == "Conv" && weight->dims_size() < 3)
      d.why = "weight '" + w + "' has rank " + std::to_string(weight->dims_size());
    else {
      d.quantized = true;
      d.activation = x;
      if (activations.insert(x).second)
        plan.activations.push_back(x);
    }
    plan.nodes.push_back(std::move(d));
  }
  return true;
}

void writeQdq(onnx::ModelProto &model, QuantizationPlan &plan,
              const std::map<std::string, ActivationRange> &ranges, const QuantizeOptions &options) {
  onnx::GraphProto &g = *model.mutable_graph();
  Names names(g);
  std::map<size_t, NodeDecision *> byIndex;
  for (auto &d : plan.nodes) {
    if (!d.quantized)
      continue;
    auto r = ranges.find(d.activation);
    if (r == ranges.end() || !r->second.ok) {
      d.quantized = false;
      d.why = r == ranges.end() ? "input '" + d.activation + "' was not calibrated"
                                : r->second.why;
      continue;
    }
    byIndex[d.index] = &d;
  }

  std::vector<TensorProto> newInitializers;
  std::set<std::string> replaced; // float weights and biases read through a DequantizeLinear now
  std::map<std::string, std::pair<std::string, AffineParams>> activationDq; // x -> (dq, params)
  std::map<std::pair<std::string, int>, QuantizedWeight> weightDq;          // (w, axis)
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  nodes.Swap(g.mutable_node());

  auto quantizeActivation = [&](const std::string &x) {
    auto it = activationDq.find(x);
    if (it != activationDq.end())
      return it->second;
    const ActivationRange &r = ranges.at(x);
    AffineParams p = uint8Params(r.lo, r.hi);
    std::string scale = names.fresh(x + "_scale"), zp = names.fresh(x + "_zero_point");
    std::string q = names.fresh(x + "_quantized"), dq = names.fresh(x + "_dequantized");
    uint8_t zp8 = uint8_t(p.zeroPoint);
    newInitializers.push_back(makeTensor(scale, TensorProto::FLOAT, {}, &p.scale, 4));
    newInitializers.push_back(makeTensor(zp, TensorProto::UINT8, {}, &zp8, 1));
    *g.add_node() = makeNode("QuantizeLinear", names.fresh(x + "_QuantizeLinear"), {x, scale, zp}, q);
    *g.add_node() = makeNode("DequantizeLinear", names.fresh(x + "_DequantizeLinear"), {q, scale, zp},
                             dq);
    return activationDq[x] = {dq, p};
  };

  auto quantizeWeight = [&](const TensorProto &w, int axis) -> const QuantizedWeight & {
    auto key = std::make_pair(w.name(), axis);
    auto it = weightDq.find(key);
    if (it != weightDq.end())
      return it->second;
    std::vector<float> values;
    readFloats(w, values); // checked when planning
    std::vector<int64_t> dims(w.dims().begin(), w.dims().end());
    SymmetricWeight sw = quantizeSymmetric(values, dims, axis);
    int64_t channels = int64_t(sw.scales.size());
    QuantizedWeight qw;
    qw.axis = axis;
    qw.scales = sw.scales;
    const std::vector<int8_t> &q = sw.values;
    std::vector<int8_t> zeros(channels, 0);
    std::vector<int64_t> scaleDims;
    if (axis >= 0)
      scaleDims.push_back(channels);
    std::string base = w.name();
    std::string qName = names.fresh(base + "_quantized"), scale = names.fresh(base + "_scale");
    std::string zp = names.fresh(base + "_zero_point");
    qw.dequantized = names.fresh(base + "_dequantized");
    newInitializers.push_back(makeTensor(qName, TensorProto::INT8, dims, q.data(), q.size()));
    newInitializers.push_back(
        makeTensor(scale, TensorProto::FLOAT, scaleDims, qw.scales.data(), 4 * qw.scales.size()));
    newInitializers.push_back(makeTensor(zp, TensorProto::INT8, scaleDims, zeros.data(), channels));
    *g.add_node() = makeNode("DequantizeLinear", names.fresh(base + "_DequantizeLinear"),
                             {qName, scale, zp}, qw.dequantized, axis);
    return weightDq[key] = std::move(qw);
  };

  for (int i = 0; i < nodes.size(); ++i) {
    auto it = byIndex.find(size_t(i));
    if (it == byIndex.end()) {
      *g.add_node() = std::move(nodes[i]);
      continue;
    }
    NodeDecision &d = *it->second;
    onnx::NodeProto node = std::move(nodes[i]);
    const TensorProto &w = *findInitializer(g, node.input(1));
    int axis = options.perChannel ? weightAxis(node, w.dims_size()) : -1;
    auto [xdq, xp] = quantizeActivation(node.input(0));
    const QuantizedWeight &qw = quantizeWeight(w, axis);
    d.weightNote = axis >= 0 ? "s8 weights per channel" : "s8 weights per tensor";
    node.set_input(0, xdq);
    replaced.insert(node.input(1));
    node.set_input(1, qw.dequantized);
    // The bias as int32 in units of s_x * s_w (per channel), where it fits.
    if (const TensorProto *b = biasOf(g, node)) {
      std::vector<float> bias;
      int64_t n = b->dims(0);
      bool fits = readFloats(*b, bias) && (qw.scales.size() == 1 || int64_t(qw.scales.size()) == n);
      std::vector<float> scales(n);
      std::vector<int32_t> q(n);
      for (int64_t c = 0; fits && c < n; ++c) {
        scales[c] = xp.scale * qw.scales[qw.scales.size() == 1 ? 0 : c];
        double v = std::nearbyint(double(bias[c]) / scales[c]);
        fits = std::isfinite(v) && std::fabs(v) <= 2147483647.0 && scales[c] > 0;
        q[c] = fits ? int32_t(v) : 0;
      }
      if (fits) {
        std::string base = b->name();
        std::string qName = names.fresh(base + "_quantized"), scale = names.fresh(base + "_scale");
        std::string zp = names.fresh(base + "_zero_point"), dq = names.fresh(base + "_dequantized");
        std::vector<int32_t> zeros(n, 0);
        newInitializers.push_back(makeTensor(qName, TensorProto::INT32, {n}, q.data(), 4 * n));
        newInitializers.push_back(makeTensor(scale, TensorProto::FLOAT, {n}, scales.data(), 4 * n));
        newInitializers.push_back(makeTensor(zp, TensorProto::INT32, {n}, zeros.data(), 4 * n));
        *g.add_node() = makeNode("DequantizeLinear", names.fresh(base + "_DequantizeLinear"),
                                 {qName, scale, zp}, dq, 0);
        replaced.insert(node.input(2));
        node.set_input(2, dq);
      }
    }
    *g.add_node() = std::move(node);
  }
  for (auto &t : newInitializers)
    *g.add_initializer() = std::move(t);

  // The float weights and biases no node reads any more go.
  removeUnreadInitializers(g, replaced);
}

} // namespace dlc::quantize
