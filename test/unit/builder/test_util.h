// test_util.h - helpers for the builder tests: JIT-run a built graph on float data, references,
// errors.
#ifndef DLC_TEST_UNIT_BUILDER_TEST_UTIL_H
#define DLC_TEST_UNIT_BUILDER_TEST_UTIL_H

#include "compiler/Jit/Jit.h"
#include "frontends/Builder/Builder.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace dlc_builder_test {

using Floats = std::vector<float>;

/// Fixed-seed uniform values in [lo, hi).
inline Floats randomFloats(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  Floats v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

/// max |got - ref| / max |ref| (the examples' and tests' error measure).
inline double maxRelError(const Floats &got, const std::vector<double> &ref) {
  REQUIRE(got.size() == ref.size());
  double maxDiff = 0, maxRef = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    maxDiff = std::max(maxDiff, std::fabs(double(got[i]) - ref[i]));
    maxRef = std::max(maxRef, std::fabs(ref[i]));
  }
  return maxRef == 0 ? maxDiff : maxDiff / maxRef;
}

/// Finishes `g` into `c` (REQUIREs success, printing the errors otherwise).
inline void finishInto(dlc::Compilation &c, dlc::builder::GraphBuilder &g) {
  auto m = g.finish();
  INFO("builder error: " << g.error());
  REQUIRE(mlir::succeeded(m));
  c.setModule(std::move(*m));
}

/// Runs a runtime module on f32 inputs (positional) and returns its f32 outputs.
inline std::vector<Floats> runModule(dlc_module_t *module, const std::vector<Floats> &inputs,
                                     int32_t threads = 1) {
  REQUIRE(module != nullptr);
  REQUIRE(dlc_module_num_inputs(module) == inputs.size());
  dlc_session_t *session = nullptr;
  REQUIRE(dlc_session_create(module, threads, &session) == DLC_OK);
  std::vector<dlc_tensor_t *> in, out(dlc_module_num_outputs(module));
  for (size_t i = 0; i < inputs.size(); ++i) {
    dlc_tensor_info_t info;
    REQUIRE(dlc_module_input_info(module, i, &info) == DLC_OK);
    dlc_tensor_t *t = nullptr;
    REQUIRE(dlc_tensor_wrap(info.dtype, info.rank, info.shape,
                            const_cast<float *>(inputs[i].data()), &t) == DLC_OK);
    REQUIRE(dlc_tensor_num_elements(t) == (int64_t)inputs[i].size());
    in.push_back(t);
  }
  REQUIRE(dlc_session_create_outputs(session, out.data()) == DLC_OK);
  dlc_status_t st = dlc_session_run(session, in.data(), in.size(), out.data(), out.size());
  INFO("run: " << dlc_status_message());
  CHECK(st == DLC_OK);
  std::vector<Floats> results;
  for (dlc_tensor_t *t : out) {
    CHECK(dlc_tensor_dtype(t) == DLC_DTYPE_FLOAT);
    const float *d = static_cast<const float *>(dlc_tensor_data(t));
    results.emplace_back(d, d + dlc_tensor_num_elements(t));
    dlc_tensor_free(t);
  }
  for (dlc_tensor_t *t : in)
    dlc_tensor_free(t);
  dlc_session_free(session);
  return results;
}

/// Finishes `g`, JIT-compiles it and runs it once.
inline std::vector<Floats> jitRun(dlc::Compilation &c, dlc::builder::GraphBuilder &g,
                                  const std::vector<Floats> &inputs, int32_t threads = 1) {
  finishInto(c, g);
  std::vector<std::string> errors;
  dlc_module_t *module = dlc::jit::compile(c, errors);
  INFO("jit: " << (errors.empty() ? std::string("") : errors.front()));
  REQUIRE(module != nullptr);
  auto results = runModule(module, inputs, threads);
  dlc_module_free(module);
  return results;
}

} // namespace dlc_builder_test

#endif
