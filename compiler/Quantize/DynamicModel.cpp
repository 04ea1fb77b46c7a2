// Dynamic quantization (dlc compile --quantize=dynamic): MatMul and Gemm of constant
// weights rewritten into quantize_dynamic's DynamicQuantizeLinear + MatMulInteger form
// (QdqModel.h, writeDynamic).
#include "compiler/Quantize/ModelEdit.h"
#include "compiler/Quantize/QdqModel.h"

#include <onnx/onnx_pb.h>

#include <map>

namespace dlc::quantize {

using onnx::TensorProto;

namespace {

float floatAttr(const onnx::NodeProto &node, const char *name, float dflt) {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return a.f();
  return dflt;
}

bool intAttr(const onnx::NodeProto &node, const char *name) {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return a.i() != 0;
  return false;
}

} // namespace

void writeDynamic(onnx::ModelProto &model, QuantizationPlan &plan, const QuantizeOptions &options) {
  onnx::GraphProto &g = *model.mutable_graph();
  Names names(g);
  std::map<size_t, NodeDecision *> byIndex;
  for (auto &d : plan.nodes)
    if (d.quantized)
      byIndex[d.index] = &d;
  struct Quantized {
    std::string q, scale, zeroPoint;
  };
  std::map<std::string, Quantized> activations;
  std::set<std::string> replaced;
  std::vector<TensorProto> newInitializers;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  nodes.Swap(g.mutable_node());
  auto constant = [&](const std::string &base, int dtype, const std::vector<int64_t> &dims,
                      const void *data, size_t bytes) {
    std::string name = names.fresh(base);
    newInitializers.push_back(makeTensor(name, dtype, dims, data, bytes));
    return name;
  };
  auto node = [&](const std::string &op, const std::string &base,
                  const std::vector<std::string> &inputs, const std::string &output) {
    onnx::NodeProto *n = g.add_node();
    *n = makeNode(op, names.fresh(base), inputs, output);
    return n;
  };

  for (int i = 0; i < nodes.size(); ++i) {
    auto it = byIndex.find(size_t(i));
    if (it == byIndex.end()) {
      *g.add_node() = std::move(nodes[i]);
      continue;
    }
    NodeDecision &d = *it->second;
    const onnx::NodeProto &orig = nodes[i];
    const std::string &x = orig.input(0), &y = orig.output(0);
    bool gemm = orig.op_type() == "Gemm";
    // The activation, quantized per call (once for all its readers).
    auto a = activations.find(x);
    if (a == activations.end()) {
      Quantized q{names.fresh(x + "_quantized"), names.fresh(x + "_scale"),
                  names.fresh(x + "_zero_point")};
      onnx::NodeProto *n = node("DynamicQuantizeLinear", x + "_DynamicQuantizeLinear", {x}, q.q);
      n->add_output(q.scale);
      n->add_output(q.zeroPoint);
      a = activations.emplace(x, q).first;
    }
    // The weight as [K, N] s8 (a Gemm's transB weight transposed).
    const TensorProto &w = *findInitializer(g, orig.input(1));
    std::vector<float> values;
    readFloats(w, values); // checked when planning
    std::vector<int64_t> dims(w.dims().begin(), w.dims().end());
    if (gemm && intAttr(orig, "transB")) {
      int64_t n = dims[0], k = dims[1];
      std::vector<float> t(values.size());
      for (int64_t r = 0; r < n; ++r)
        for (int64_t c = 0; c < k; ++c)
          t[c * n + r] = values[r * k + c];
      values.swap(t);
      dims = {k, n};
    }
    int axis = options.perChannel && dims.size() >= 2 ? int(dims.size()) - 1 : -1;
    SymmetricWeight sw = quantizeSymmetric(values, dims, axis);
    float alpha = gemm ? floatAttr(orig, "alpha", 1.f) : 1.f;
    for (float &s : sw.scales)
      s *= alpha;
    int8_t zero = 0;
    std::string wq = constant(w.name() + "_quantized", TensorProto::INT8, dims, sw.values.data(),
                              sw.values.size());
    std::string wzp = constant(w.name() + "_zero_point", TensorProto::INT8, {}, &zero, 1);
    std::vector<int64_t> scaleDims;
    if (axis >= 0)
      scaleDims.push_back(int64_t(sw.scales.size()));
    std::string ws = constant(w.name() + "_scale", TensorProto::FLOAT, scaleDims,
                              sw.scales.data(), 4 * sw.scales.size());
    replaced.insert(w.name());
    // y = float(x_q * w_q) * (s_x * s_w) [+ beta * C]
    std::string acc = names.fresh(y + "_i32"), accF = names.fresh(y + "_f32");
    std::string scale = names.fresh(y + "_scale");
    node("MatMulInteger", y + "_MatMulInteger", {a->second.q, wq, a->second.zeroPoint, wzp}, acc);
    onnx::NodeProto *cast = node("Cast", y + "_Cast", {acc}, accF);
    auto *to = cast->add_attribute();
    to->set_name("to");
    to->set_type(onnx::AttributeProto::INT);
    to->set_i(TensorProto::FLOAT);
    node("Mul", y + "_scale_Mul", {a->second.scale, ws}, scale);
    bool bias = gemm && orig.input_size() > 2 && !orig.input(2).empty();
    std::string product = bias ? names.fresh(y + "_product") : y;
    node("Mul", y + "_Mul", {accF, scale}, product);
    if (bias) {
      std::string c = orig.input(2);
      float beta = floatAttr(orig, "beta", 1.f);
      if (beta != 1.f) {
        std::string betaName = constant(y + "_beta", TensorProto::FLOAT, {}, &beta, 4);
        std::string scaled = names.fresh(c + "_times_beta");
        node("Mul", y + "_beta_Mul", {c, betaName}, scaled);
        c = scaled;
      }
      node("Add", y + "_Add", {product, c}, y);
    }
    d.weightNote = axis >= 0 ? "s8 weights per column" : "s8 weights per tensor";
  }
  for (auto &t : newInitializers)
    *g.add_initializer() = std::move(t);
  removeUnreadInitializers(g, replaced);
}

} // namespace dlc::quantize
