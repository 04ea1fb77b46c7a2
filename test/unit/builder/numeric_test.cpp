// numeric_test.cpp - graphs built with the builder, JIT-compiled and run, against C++ double
// references.
#include "test_util.h"

using namespace dlc::builder;
using namespace dlc_builder_test;
using Doubles = std::vector<double>;

namespace {

constexpr double kTolerance = 1e-4;

/// y[m][n] = sum_k a[m][k] * b[k][n] (+ bias[n]); b is [K, N], or [N, K] when `transB`.
Doubles dense(const Doubles &a, const Floats &b, const Floats &bias, int64_t m, int64_t k,
              int64_t n, bool transB = false) {
  Doubles y(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = bias.empty() ? 0 : bias[j];
      for (int64_t p = 0; p < k; ++p)
        s += a[i * k + p] * (transB ? b[j * k + p] : b[p * n + j]);
      y[i * n + j] = s;
    }
  return y;
}

Doubles relu(Doubles v) {
  for (double &x : v)
    x = std::max(x, 0.0);
  return v;
}

Doubles toDoubles(const Floats &v) { return Doubles(v.begin(), v.end()); }

struct Dims {
  int64_t n, c, h, w;
  int64_t size() const { return n * c * h * w; }
};

/// NCHW conv with FCHW weight, symmetric pads, unit dilation, groups.
Doubles conv(const Doubles &x, Dims in, const Floats &w, int64_t f, int64_t kh, int64_t kw,
             const Floats &bias, int64_t stride, int64_t pad, int64_t group, Dims &out) {
  out = {in.n, f, (in.h + 2 * pad - kh) / stride + 1, (in.w + 2 * pad - kw) / stride + 1};
  int64_t cg = in.c / group, fg = f / group;
  Doubles y(out.size());
  for (int64_t b = 0; b < in.n; ++b)
    for (int64_t o = 0; o < f; ++o)
      for (int64_t oh = 0; oh < out.h; ++oh)
        for (int64_t ow = 0; ow < out.w; ++ow) {
          double s = bias.empty() ? 0 : bias[o];
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t r = 0; r < kh; ++r)
              for (int64_t q = 0; q < kw; ++q) {
                int64_t ih = oh * stride + r - pad, iw = ow * stride + q - pad;
                if (ih < 0 || ih >= in.h || iw < 0 || iw >= in.w) continue;
                int64_t c = (o / fg) * cg + ci;
                s += x[((b * in.c + c) * in.h + ih) * in.w + iw] *
                     w[((o * cg + ci) * kh + r) * kw + q];
              }
          y[((b * f + o) * out.h + oh) * out.w + ow] = s;
        }
  return y;
}

/// 2x2 max pooling with stride 2.
Doubles maxPool2(const Doubles &x, Dims in, Dims &out) {
  out = {in.n, in.c, in.h / 2, in.w / 2};
  Doubles y(out.size());
  for (int64_t p = 0; p < in.n * in.c; ++p)
    for (int64_t i = 0; i < out.h; ++i)
      for (int64_t j = 0; j < out.w; ++j) {
        double m = -1e300;
        for (int64_t r = 0; r < 2; ++r)
          for (int64_t q = 0; q < 2; ++q)
            m = std::max(m, x[(p * in.h + 2 * i + r) * in.w + 2 * j + q]);
        y[(p * out.h + i) * out.w + j] = m;
      }
  return y;
}

} // namespace

TEST_CASE("builder: a small MLP through the JIT matches a C++ reference", "[builder][numeric]") {
  const int64_t batch = 3, in = 20, hidden = 24, classes = 5;
  Floats x = randomFloats(batch * in, 1, 0, 1);
  Floats w1 = randomFloats(in * hidden, 2), b1 = randomFloats(hidden, 3);
  Floats w2 = randomFloats(classes * hidden, 4), b2 = randomFloats(classes, 5);

  dlc::Compilation c({});
  GraphBuilder g(c.context());
  Tensor tx = g.input("x", DType::F32, {batch, in});
  Tensor h =
      g.relu(g.add(g.matmul(tx, g.weight("w1", {in, hidden}, w1)), g.weight("b1", {hidden}, b1)));
  // Second layer as Gemm with a transposed [classes, hidden] weight.
  Tensor logits = g.gemm(h, g.weight("w2", {classes, hidden}, w2), g.weight("b2", {classes}, b2),
                         1.0f, 1.0f, false, /*transB=*/true);
  g.output("logits", logits);
  g.output("probs", g.softmax(logits, -1));
  auto out = jitRun(c, g, {x}, /*threads=*/0);

  Doubles rh = relu(dense(toDoubles(x), w1, b1, batch, in, hidden));
  Doubles rl = dense(rh, w2, b2, batch, hidden, classes, /*transB=*/true);
  Doubles rp(rl.size());
  for (int64_t i = 0; i < batch; ++i) {
    double m = *std::max_element(rl.begin() + i * classes, rl.begin() + (i + 1) * classes), s = 0;
    for (int64_t j = 0; j < classes; ++j)
      s += rp[i * classes + j] = std::exp(rl[i * classes + j] - m);
    for (int64_t j = 0; j < classes; ++j)
      rp[i * classes + j] /= s;
  }
  REQUIRE(out.size() == 2);
  CHECK(maxRelError(out[0], rl) < kTolerance);
  CHECK(maxRelError(out[1], rp) < kTolerance);
}

TEST_CASE("builder: a tiny conv net through the JIT matches a C++ reference",
          "[builder][numeric]") {
  // conv 3x3 pad 1 (2->4) + bias, relu, maxpool 2x2/2, grouped conv 3x3 (group 2),
  // global average pool, flatten, dense 4->3.
  Dims in{2, 2, 8, 8};
  Floats x = randomFloats(in.size(), 11);
  Floats w1 = randomFloats(4 * 2 * 9, 12), b1 = randomFloats(4, 13);
  Floats w2 = randomFloats(4 * 2 * 9, 14);
  Floats w3 = randomFloats(4 * 3, 15), b3 = randomFloats(3, 16);

  dlc::Compilation c({});
  GraphBuilder g(c.context());
  Tensor tx = g.input("image", DType::F32, {in.n, in.c, in.h, in.w});
  Conv2dOptions same;
  same.pads = {1, 1};
  Tensor y = g.relu(g.conv2d(tx, g.weight("w1", {4, 2, 3, 3}, w1), g.weight("b1", {4}, b1), same));
  Pool2dOptions s2;
  s2.strides = {2, 2};
  y = g.maxPool(y, {2, 2}, s2);
  Conv2dOptions grouped;
  grouped.group = 2;
  Tensor features = g.conv2d(y, g.weight("w2", {4, 2, 3, 3}, w2), Tensor(), grouped);
  Tensor pooled = g.reshape(g.globalAveragePool(features), {-1, 4});
  g.output("features", features);
  g.output("logits", g.add(g.matmul(pooled, g.weight("w3", {4, 3}, w3)), g.weight("b3", {3}, b3)));
  auto out = jitRun(c, g, {x});

  Dims d1, d2, d3;
  Doubles r = relu(conv(toDoubles(x), in, w1, 4, 3, 3, b1, 1, 1, 1, d1));
  r = maxPool2(r, d1, d2);
  Doubles rf = conv(r, d2, w2, 4, 3, 3, {}, 1, 0, 2, d3);
  REQUIRE(d3.h == 2);
  Doubles gap(d3.n * d3.c, 0);
  for (int64_t p = 0; p < d3.n * d3.c; ++p) {
    for (int64_t i = 0; i < d3.h * d3.w; ++i)
      gap[p] += rf[p * d3.h * d3.w + i];
    gap[p] /= d3.h * d3.w;
  }
  Doubles rl = dense(gap, w3, b3, d3.n, 4, 3);
  REQUIRE(out.size() == 2);
  CHECK(maxRelError(out[0], rf) < kTolerance);
  CHECK(maxRelError(out[1], rl) < kTolerance);
}

TEST_CASE("builder: elementwise, normalization and shape ops through the JIT",
          "[builder][numeric]") {
  // x [2,3,4] -> transpose [2,4,3] -> concat with 2x along -1 -> [2,4,6]
  //   -> layer_norm(-1) -> gelu -> reduce_mean(-1) [2,4]; plus sigmoid/tanh/exp/min/max/div/sub.
  Floats x = randomFloats(24, 21), scale = randomFloats(6, 22, 0.5f, 1.5f),
         bias = randomFloats(6, 23);
  dlc::Compilation c({});
  GraphBuilder g(c.context());
  Tensor tx = g.input("x", DType::F32, {2, 3, 4});
  Tensor t = g.transpose(tx, {0, -1, 1});
  Tensor cat = g.concat({t, g.mul(t, g.scalar(2))}, -1);
  Tensor ln = g.layerNorm(cat, g.weight("scale", {6}, scale), g.weight("bias", {6}, bias), -1);
  g.output("a", g.reduceMean(g.gelu(ln), {-1}, /*keepdims=*/false));
  Tensor e = g.div(g.sub(g.sigmoid(tx), g.tanh(tx)), g.add(g.exp(tx), g.scalar(1)));
  g.output("b", g.max(g.min(e, g.scalar(0.1f)), g.scalar(-0.1f)));
  auto out = jitRun(c, g, {x});

  Doubles ra(8), rb(24);
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t j = 0; j < 4; ++j) {
      double row[6], mean = 0, var = 0, acc = 0;
      for (int64_t i = 0; i < 3; ++i) {
        row[i] = x[(n * 3 + i) * 4 + j];
        row[i + 3] = 2 * row[i];
      }
      for (double v : row)
        mean += v / 6;
      for (double v : row)
        var += (v - mean) * (v - mean) / 6;
      for (int64_t k = 0; k < 6; ++k) {
        double v = (row[k] - mean) / std::sqrt(var + 1e-5) * scale[k] + bias[k];
        acc += 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
      }
      ra[n * 4 + j] = acc / 6;
    }
  for (int64_t i = 0; i < 24; ++i) {
    double v = x[i];
    double e = (1 / (1 + std::exp(-v)) - std::tanh(v)) / (std::exp(v) + 1);
    rb[i] = std::max(std::min(e, double(0.1f)), double(-0.1f));
  }
  REQUIRE(out.size() == 2);
  CHECK(maxRelError(out[0], ra) < kTolerance);
  CHECK(maxRelError(out[1], rb) < kTolerance);
}

TEST_CASE("builder: inputs and weights can be outputs as they are", "[builder][numeric]") {
  dlc::Compilation c({});
  GraphBuilder g(c.context());
  Tensor x = g.input("x", DType::F32, {2, 2});
  g.output("same", x);
  g.output("w", g.weight("w", {3}, Floats{1, 2, 3}));
  g.output("twice", g.add(x, x));
  auto out = jitRun(c, g, {{1, 2, 3, 4}});
  REQUIRE(out.size() == 3);
  CHECK(out[0] == Floats{1, 2, 3, 4});
  CHECK(out[1] == Floats{1, 2, 3});
  CHECK(out[2] == Floats{2, 4, 6, 8});
}
