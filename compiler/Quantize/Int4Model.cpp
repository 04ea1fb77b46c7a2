// Weight-only int4 quantization (dlc compile --quantize=int4-weights): MatMul or Gemm of a large
// constant weight rewritten into com.microsoft MatMulNBits, 4-bit codes in blocks of 32
// along K with a float scale and a 4-bit zero point per block (QdqModel.h, writeInt4Weights).
#include "compiler/Quantize/ModelEdit.h"
#include "compiler/Quantize/QdqModel.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace dlc::quantize {

using onnx::TensorProto;

void writeInt4Weights(onnx::ModelProto &model, QuantizationPlan &plan) {
  onnx::GraphProto &g = *model.mutable_graph();
  Names names(g);
  std::set<std::string> replaced;
  std::vector<TensorProto> newInitializers;
  std::map<size_t, NodeDecision *> byIndex;
  for (auto &d : plan.nodes)
    if (d.quantized)
      byIndex[d.index] = &d;
  for (auto &[index, d] : byIndex) {
    onnx::NodeProto &node = *g.mutable_node(int(index));
    const TensorProto &w = *findInitializer(g, node.input(1));
    std::vector<float> values;
    readFloats(w, values); // checked when planning
    // The weight as [K, N] (a Gemm's transB weight read transposed), alpha folded into
    // the scales, beta * C as MatMulNBits' bias.
    bool gemm = node.op_type() == "Gemm";
    bool transB = false;
    float alpha = 1, beta = 1;
    for (const auto &a : node.attribute()) {
      transB |= gemm && a.name() == "transB" && a.i();
      if (gemm && a.name() == "alpha")
        alpha = a.f();
      if (gemm && a.name() == "beta")
        beta = a.f();
    }
    int64_t K = w.dims(transB ? 1 : 0), N = w.dims(transB ? 0 : 1);
    auto at = [&](int64_t k, int64_t n) { return transB ? values[n * K + k] : values[k * N + n]; };
    int64_t kBlocks = (K + kInt4Block - 1) / kInt4Block;
    int64_t zpPerRow = (kBlocks + 1) / 2;
    std::vector<uint8_t> codes(size_t(N * kBlocks * kInt4Block / 2), 0),
        zps(size_t(N * zpPerRow), 0);
    std::vector<float> scales(size_t(N * kBlocks));
    for (int64_t n = 0; n < N; ++n)
      for (int64_t b = 0; b < kBlocks; ++b) {
        // Asymmetric over the block's range widened to contain 0: 16 levels.
        double lo = 0, hi = 0;
        int64_t k0 = b * kInt4Block, k1 = std::min(K, k0 + kInt4Block);
        for (int64_t k = k0; k < k1; ++k)
          if (std::isfinite(at(k, n)))
            lo = std::min<double>(lo, at(k, n)), hi = std::max<double>(hi, at(k, n));
        float scale = hi > lo ? float((hi - lo) / 15.0) : 1.f;
        if (!(scale > 0) || !std::isfinite(scale))
          scale = 1.f;
        int zp = int(std::clamp(std::nearbyint(-lo / scale), 0.0, 15.0));
        scales[n * kBlocks + b] = scale * alpha;
        zps[n * zpPerRow + b / 2] |= uint8_t(zp << (4 * (b % 2)));
        for (int64_t k = k0; k < k1; ++k) {
          double q = std::nearbyint(double(at(k, n)) / scale) + zp;
          uint8_t code = uint8_t(std::clamp(std::isnan(q) ? double(zp) : q, 0.0, 15.0));
          int64_t i = (n * kBlocks + b) * kInt4Block + (k - k0); // code index in B
          codes[i / 2] |= uint8_t(code << (4 * (i % 2)));
        }
        for (int64_t k = k1; k < k0 + kInt4Block; ++k) { // a partial block's padding: the zero point
          int64_t i = (n * kBlocks + b) * kInt4Block + (k - k0);
          codes[i / 2] |= uint8_t(zp << (4 * (i % 2)));
        }
      }
    std::string base = w.name();
    std::string bName = names.fresh(base + "_int4"), sName = names.fresh(base + "_scales"),
                zName = names.fresh(base + "_zero_points");
    newInitializers.push_back(makeTensor(bName, TensorProto::UINT8, {N, kBlocks, kInt4Block / 2},
                                         codes.data(), codes.size()));
    newInitializers.push_back(
        makeTensor(sName, TensorProto::FLOAT, {N * kBlocks}, scales.data(), 4 * scales.size()));
    newInitializers.push_back(
        makeTensor(zName, TensorProto::UINT8, {N * zpPerRow}, zps.data(), zps.size()));
    replaced.insert(base);
    onnx::NodeProto nbits;
    nbits.set_op_type("MatMulNBits");
    nbits.set_domain("com.microsoft");
    nbits.set_name(node.name().empty() ? names.fresh(d->node) : node.name());
    for (const std::string &in : {node.input(0), bName, sName, zName})
      nbits.add_input(in);
    if (gemm && node.input_size() > 2 && !node.input(2).empty()) {
      const TensorProto &c = *findInitializer(g, node.input(2)); // 1-D: checked when planning
      std::vector<float> bias;
      readFloats(c, bias);
      if (bias.size() == 1) // broadcast over the columns
        bias.assign(size_t(N), bias[0]);
      for (float &v : bias)
        v *= beta;
      std::string biasName = names.fresh(c.name() + "_bias");
      newInitializers.push_back(makeTensor(biasName, TensorProto::FLOAT,
                                           {int64_t(bias.size())}, bias.data(), 4 * bias.size()));
      nbits.add_input("");
      nbits.add_input(biasName);
      replaced.insert(c.name());
    }
    nbits.add_output(node.output(0));
    for (auto [name, v] : {std::pair<const char *, int64_t>{"K", K}, {"N", N}, {"bits", 4},
                           {"block_size", kInt4Block}}) {
      auto *a = nbits.add_attribute();
      a->set_name(name);
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(v);
    }
    node = std::move(nbits);
    d->weightNote = "4-bit weights in blocks of " + std::to_string(kInt4Block) + " along K";
  }
  for (auto &t : newInitializers)
    *g.add_initializer() = std::move(t);
  removeUnreadInitializers(g, replaced);
  if (!byIndex.empty()) {
    bool imported = false;
    for (const auto &imp : model.opset_import())
      imported |= imp.domain() == "com.microsoft";
    if (!imported) {
      auto *imp = model.add_opset_import();
      imp->set_domain("com.microsoft");
      imp->set_version(1);
    }
  }
}

} // namespace dlc::quantize
