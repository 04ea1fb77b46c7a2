// Example: an MLP built with the C++ graph builder, compiled JIT and AOT, both checked against C++.
//
//   dlc-example-mlp-builder [OUT.so]      (default: mlp_builder.so in the current directory)
//
// Builds a 784-512-512-10 MLP with fixed-seed random weights, JIT-compiles it
// in process, writes the same compiled model as a shared library and loads it
// back with the runtime, runs both on one fixed input and compares each with
// a double-precision reference. Exits 1 if either relative error exceeds 1e-4.
#include "compiler/Jit/Jit.h"
#include "frontends/Builder/Builder.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using dlc::builder::DType;
using dlc::builder::GraphBuilder;
using dlc::builder::Tensor;

namespace {

constexpr int64_t kBatch = 4;
constexpr int64_t kSizes[] = {784, 512, 512, 10};
constexpr int kLayers = 3;
constexpr double kTolerance = 1e-4;

struct Layer {
  int64_t in, out;
  std::vector<float> w, b; // w is [in, out], row-major
};

std::vector<Layer> makeLayers(uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Layer> layers;
  for (int l = 0; l < kLayers; ++l) {
    Layer layer{kSizes[l], kSizes[l + 1], {}, {}};
    // He-style scaling keeps activations O(1) through the ReLUs.
    std::normal_distribution<float> w(0.0f, std::sqrt(2.0f / layer.in));
    std::uniform_real_distribution<float> b(-0.1f, 0.1f);
    layer.w.resize(layer.in * layer.out);
    layer.b.resize(layer.out);
    for (float &v : layer.w)
      v = w(rng);
    for (float &v : layer.b)
      v = b(rng);
    layers.push_back(std::move(layer));
  }
  return layers;
}

/// logits = L3(relu(L2(relu(L1(x))))), Li(x) = x Wi + bi.
void buildMlp(GraphBuilder &g, const std::vector<Layer> &layers) {
  Tensor h = g.input("x", DType::F32, {kBatch, kSizes[0]});
  for (int l = 0; l < kLayers; ++l) {
    const Layer &layer = layers[l];
    std::string n = std::to_string(l + 1);
    Tensor w = g.weight("fc" + n + ".weight", {layer.in, layer.out}, layer.w);
    Tensor b = g.weight("fc" + n + ".bias", {layer.out}, layer.b);
    h = g.add(g.matmul(h, w), b);
    if (l + 1 < kLayers) h = g.relu(h);
  }
  g.output("logits", h);
}

std::vector<double> reference(const std::vector<Layer> &layers, const std::vector<float> &x) {
  std::vector<double> h(x.begin(), x.end());
  for (int l = 0; l < kLayers; ++l) {
    const Layer &layer = layers[l];
    std::vector<double> y(kBatch * layer.out);
    for (int64_t i = 0; i < kBatch; ++i)
      for (int64_t j = 0; j < layer.out; ++j) {
        double s = layer.b[j];
        for (int64_t k = 0; k < layer.in; ++k)
          s += h[i * layer.in + k] * layer.w[k * layer.out + j];
        y[i * layer.out + j] = l + 1 < kLayers ? std::max(s, 0.0) : s;
      }
    h = std::move(y);
  }
  return h;
}

/// Runs the model on `x`; returns false (after printing why) on a runtime error.
bool run(dlc_module_t *m, std::vector<float> &x, std::vector<float> &y) {
  dlc_session_t *s = nullptr;
  dlc_tensor_t *in = nullptr, *out = nullptr;
  int64_t shape[] = {kBatch, kSizes[0]};
  bool ok = dlc_session_create(m, 0, &s) == DLC_OK &&
            dlc_tensor_wrap(DLC_DTYPE_FLOAT, 2, shape, x.data(), &in) == DLC_OK &&
            dlc_session_create_outputs(s, &out) == DLC_OK &&
            dlc_session_run(s, &in, 1, &out, 1) == DLC_OK;
  if (ok) {
    const float *d = static_cast<const float *>(dlc_tensor_data(out));
    y.assign(d, d + dlc_tensor_num_elements(out));
  } else {
    std::fprintf(stderr, "error: %s\n", dlc_status_message());
  }
  dlc_tensor_free(in);
  dlc_tensor_free(out);
  dlc_session_free(s);
  return ok;
}

double maxRelError(const std::vector<float> &got, const std::vector<double> &ref) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    diff = std::max(diff, std::fabs(got[i] - ref[i]));
    scale = std::max(scale, std::fabs(ref[i]));
  }
  return diff / scale;
}

int fail(const std::vector<std::string> &errors) {
  for (const std::string &e : errors)
    std::fprintf(stderr, "error: %s\n", e.c_str());
  if (errors.empty()) std::fprintf(stderr, "error: compilation failed\n");
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  std::string soPath = argc > 1 ? argv[1] : "mlp_builder.so";
  std::vector<Layer> layers = makeLayers(/*seed=*/42);
  std::vector<float> x(kBatch * kSizes[0]);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
  for (float &v : x)
    v = pixel(rng);

  dlc::Compilation c({});
  GraphBuilder g(c.context());
  buildMlp(g, layers);
  auto module = g.finish();
  if (mlir::failed(module)) return fail(c.errors());
  c.setModule(std::move(*module));

  // (a) JIT: lowers the module to LLVM in `c` and loads it in process.
  std::vector<std::string> errors;
  dlc_module_t *jit = dlc::jit::compile(c, errors);
  if (!jit) return fail(errors);
  // (b) AOT: the same lowered module, emitted as a shared library and loaded back.
  dlc_module_t *aot = nullptr;
  if (mlir::failed(c.writeSharedLibrary(soPath))) return fail(c.errors());
  if (dlc_module_load(soPath.c_str(), &aot) != DLC_OK) {
    std::fprintf(stderr, "error: %s\n", dlc_status_message());
    return 1;
  }

  std::vector<double> ref = reference(layers, x);
  std::vector<float> jy, ay;
  if (!run(jit, x, jy) || !run(aot, x, ay)) return 1;
  dlc_module_free(jit);
  dlc_module_free(aot);
  double jitErr = maxRelError(jy, ref), aotErr = maxRelError(ay, ref);
  std::printf("mlp 784-512-512-10, batch %lld\n", (long long)kBatch);
  std::printf("logits[0][0..3]: %.6f %.6f %.6f %.6f (reference %.6f %.6f %.6f %.6f)\n", jy[0],
              jy[1], jy[2], jy[3], ref[0], ref[1], ref[2], ref[3]);
  std::printf("jit: max relative error %.3g\n", jitErr);
  std::printf("aot (%s): max relative error %.3g\n", soPath.c_str(), aotErr);
  bool ok = jitErr <= kTolerance && aotErr <= kTolerance;
  std::printf("%s (tolerance %g)\n", ok ? "ok" : "FAILED", kTolerance);
  return ok ? 0 : 1;
}
