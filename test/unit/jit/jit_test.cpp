// jit_test.cpp - the in-process JIT on ONNX models the test writes itself: numbers, errors, AOT
// parity.
#include "compiler/Jit/Jit.h"

#include <catch2/catch.hpp>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace {

using Floats = std::vector<float>;
constexpr int64_t kBatch = 3, kIn = 6, kOut = 4;

// A path inside the build tree's scratch directory; ctest runs cases in
// parallel processes, so each case uses its own names.
std::string tmpPath(const std::string &name) {
  mkdir(DLC_TEST_TMP_DIR, 0755); // EEXIST is fine
  return std::string(DLC_TEST_TMP_DIR) + "/" + name;
}

Floats randomFloats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Floats v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

void addInitializer(onnx::GraphProto *g, const std::string &name, std::vector<int64_t> dims,
                    const Floats &data) {
  onnx::TensorProto *t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims)
    t->add_dims(d);
  for (float v : data)
    t->add_float_data(v);
}

void addValueInfo(onnx::ValueInfoProto *vi, const std::string &name, std::vector<int64_t> dims) {
  vi->set_name(name);
  auto *tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims)
    tt->mutable_shape()->add_dim()->set_dim_value(d);
}

onnx::NodeProto *addNode(onnx::GraphProto *g, const std::string &op, const std::string &name,
                         std::vector<std::string> inputs, const std::string &output) {
  onnx::NodeProto *n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (auto &in : inputs)
    n->add_input(in);
  n->add_output(output);
  return n;
}

/// y = relu(x @ W + B): x [kBatch, kIn], W [kIn, kOut], B [kOut]. `extraOp`
/// appends one more node of that type (an unsupported one, for the error test).
std::string writeModel(const std::string &file, const Floats &w, const Floats &b,
                       const std::string &extraOp = "") {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("dlc-jit-tests");
  auto *opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  onnx::GraphProto *g = model.mutable_graph();
  g->set_name("mlp");
  addValueInfo(g->add_input(), "x", {kBatch, kIn});
  addInitializer(g, "W", {kIn, kOut}, w);
  addInitializer(g, "B", {kOut}, b);
  addNode(g, "MatMul", "fc/MatMul", {"x", "W"}, "h");
  addNode(g, "Add", "fc/Add", {"h", "B"}, "a");
  addNode(g, "Relu", "act", {"a"}, "y");
  std::string out = "y";
  if (!extraOp.empty()) {
    addNode(g, extraOp, "mystery_node", {"y"}, "z");
    out = "z";
  }
  addValueInfo(g->add_output(), out, {kBatch, kOut});
  std::string path = tmpPath(file);
  std::ofstream os(path, std::ios::binary);
  REQUIRE(model.SerializeToOstream(&os));
  return path;
}

std::vector<double> reference(const Floats &x, const Floats &w, const Floats &b) {
  std::vector<double> y(kBatch * kOut);
  for (int64_t i = 0; i < kBatch; ++i)
    for (int64_t j = 0; j < kOut; ++j) {
      double s = b[j];
      for (int64_t k = 0; k < kIn; ++k)
        s += double(x[i * kIn + k]) * w[k * kOut + j];
      y[i * kOut + j] = std::max(s, 0.0);
    }
  return y;
}

/// Runs the one-input, one-output f32 model on `x`.
Floats run(dlc_module_t *m, Floats x) {
  REQUIRE(m != nullptr);
  REQUIRE(dlc_module_num_inputs(m) == 1);
  REQUIRE(dlc_module_num_outputs(m) == 1);
  dlc_tensor_info_t info;
  REQUIRE(dlc_module_input_info(m, 0, &info) == DLC_OK);
  CHECK(std::string(info.name) == "x");
  REQUIRE(dlc_module_output_info(m, 0, &info) == DLC_OK);
  CHECK(std::string(info.name) == "y");
  dlc_session_t *s = nullptr;
  REQUIRE(dlc_session_create(m, 2, &s) == DLC_OK);
  int64_t shape[] = {kBatch, kIn};
  dlc_tensor_t *in = nullptr, *out = nullptr;
  REQUIRE(dlc_tensor_wrap(DLC_DTYPE_FLOAT, 2, shape, x.data(), &in) == DLC_OK);
  REQUIRE(dlc_session_create_outputs(s, &out) == DLC_OK);
  dlc_status_t st = dlc_session_run(s, &in, 1, &out, 1);
  INFO(dlc_status_message());
  CHECK(st == DLC_OK);
  const float *d = static_cast<const float *>(dlc_tensor_data(out));
  Floats y(d, d + dlc_tensor_num_elements(out));
  dlc_tensor_free(in);
  dlc_tensor_free(out);
  dlc_session_free(s);
  return y;
}

double maxRelError(const Floats &got, const std::vector<double> &ref) {
  REQUIRE(got.size() == ref.size());
  double diff = 0, scale = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    diff = std::max(diff, std::fabs(got[i] - ref[i]));
    scale = std::max(scale, std::fabs(ref[i]));
  }
  return diff / scale;
}

} // namespace

TEST_CASE("jit: an ONNX MatMul+Add+Relu model matches a C++ reference", "[jit]") {
  Floats w = randomFloats(kIn * kOut, 1), b = randomFloats(kOut, 2),
         x = randomFloats(kBatch * kIn, 3);
  std::string path = writeModel("jit_mlp.onnx", w, b);
  std::vector<std::string> errors;
  dlc_module_t *m = dlc::jit::compileOnnxFile(path, {}, errors);
  INFO((errors.empty() ? std::string() : errors.front()));
  REQUIRE(m != nullptr);
  CHECK(errors.empty());
  Floats y = run(m, x);
  CHECK(maxRelError(y, reference(x, w, b)) < 1e-5);
  // A second run of the same module gives the same answer.
  CHECK(run(m, x) == y);
  dlc_module_free(m);
}

TEST_CASE("jit: the AOT shared library gives the JIT's numbers", "[jit][aot]") {
  Floats w = randomFloats(kIn * kOut, 4), b = randomFloats(kOut, 5),
         x = randomFloats(kBatch * kIn, 6);
  std::string path = writeModel("aot_mlp.onnx", w, b);
  std::vector<std::string> errors;
  dlc_module_t *jit = dlc::jit::compileOnnxFile(path, {}, errors);
  REQUIRE(jit != nullptr);
  Floats jy = run(jit, x);
  dlc_module_free(jit);

  dlc::Compilation c({});
  REQUIRE(mlir::succeeded(c.importOnnx(path)));
  std::string so = tmpPath("aot_mlp.so");
  bool written = mlir::succeeded(c.writeSharedLibrary(so));
  INFO((c.errors().empty() ? std::string() : c.errors().front()));
  REQUIRE(written);
  dlc_module_t *aot = nullptr;
  dlc_status_t st = dlc_module_load(so.c_str(), &aot);
  INFO(dlc_status_message());
  REQUIRE(st == DLC_OK);
  Floats ay = run(aot, x);
  dlc_module_free(aot);
  CHECK(maxRelError(ay, reference(x, w, b)) < 1e-5);
  std::vector<double> jd(jy.begin(), jy.end());
  CHECK(maxRelError(ay, jd) < 1e-6);
}

TEST_CASE("jit: a garbage file fails with an error naming it", "[jit][errors]") {
  std::string path = tmpPath("garbage.onnx");
  {
    std::ofstream os(path, std::ios::binary);
    os << "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff not a model";
  }
  std::vector<std::string> errors;
  CHECK(dlc::jit::compileOnnxFile(path, {}, errors) == nullptr);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == path + ": not a valid ONNX model (protobuf parse failed)");

  errors.clear();
  std::string missing = tmpPath("does_not_exist.onnx");
  CHECK(dlc::jit::compileOnnxFile(missing, {}, errors) == nullptr);
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0], Catch::StartsWith(missing + ": cannot open file"));
}

TEST_CASE("jit: an unsupported op fails with an error naming the node", "[jit][errors]") {
  std::string path = writeModel("unsupported.onnx", Floats(kIn * kOut), Floats(kOut), "FancyOp");
  std::vector<std::string> errors;
  CHECK(dlc::jit::compileOnnxFile(path, {}, errors) == nullptr);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == path + ": node 'mystery_node' (FancyOp, opset 17): unsupported op");
}

TEST_CASE("jit: a compilation without a module fails cleanly", "[jit][errors]") {
  dlc::Compilation c({});
  std::vector<std::string> errors;
  CHECK(dlc::jit::compile(c, errors) == nullptr);
  CHECK(errors == std::vector<std::string>{"no module to compile"});
}
