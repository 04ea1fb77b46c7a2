// error_test.cpp - misuse of the graph builder: one-line errors naming the node, failure, never an
// abort.
#include "test_util.h"

using namespace dlc::builder;
using namespace dlc_builder_test;

namespace {

/// Runs `build` on a fresh builder inside a Compilation and checks that
/// finish() fails with exactly one error line, equal to `expected`, both in
/// the Compilation's collector and in GraphBuilder::error().
template <typename Fn> void expectError(Fn build, const std::string &expected) {
  dlc::Compilation c({});
  GraphBuilder g(c.context());
  build(g);
  CHECK(mlir::failed(g.finish()));
  CHECK_FALSE(g.ok());
  CHECK(g.error() == expected);
  REQUIRE(c.errors().size() == 1);
  CHECK(c.errors()[0] == expected);
  CHECK(c.errors()[0].find('\n') == std::string::npos);
}

} // namespace

TEST_CASE("builder errors: broadcast, contraction and dtype mismatches", "[builder][errors]") {
  expectError(
      [](GraphBuilder &g) {
        Tensor a = g.input("a", DType::F32, {2, 3});
        Tensor b = g.input("b", DType::F32, {4});
        g.add(a, a);
        g.output("y", g.add(a, b));
      },
      "node 'add_1': shapes [2,3] and [4] are not broadcast-compatible");
  expectError(
      [](GraphBuilder &g) {
        g.matmul(g.input("a", DType::F32, {2, 3}), g.input("b", DType::F32, {4, 5}));
      },
      "node 'matmul_0': contraction dims differ: [2,3] x [4,5]");
  expectError(
      [](GraphBuilder &g) { g.sub(g.input("a", DType::F32, {2}), g.input("b", DType::I64, {2})); },
      "node 'sub_0': operand element types differ: f32 vs i64");
  expectError(
      [](GraphBuilder &g) {
        Tensor x = g.input("x", DType::F32, {1, 3, 8, 8});
        g.conv2d(x, g.weight("w", {4, 2, 3, 3}, Floats(72)));
      },
      "node 'conv2d_0': input channels 3, weight [4,2,3,3] and group 1 are inconsistent");
}

TEST_CASE("builder errors: reshape, axes and windows", "[builder][errors]") {
  expectError(
      [](GraphBuilder &g) {
        g.reshape(g.input("x", DType::F32, {2, 3}), {4});
      },
      "node 'reshape_0': cannot reshape [2,3] (6 elements) to [4] (4 elements)");
  expectError(
      [](GraphBuilder &g) {
        g.reshape(g.input("x", DType::F32, {2, 3}), {4, -1});
      },
      "node 'reshape_0': cannot reshape [2,3] (6 elements) to [4,-1]");
  expectError(
      [](GraphBuilder &g) {
        g.reshape(g.input("x", DType::F32, {2, 3}), {-1, -1});
      },
      "node 'reshape_0': shape [-1,-1] has more than one -1");
  expectError(
      [](GraphBuilder &g) {
        g.softmax(g.input("x", DType::F32, {2, 3}), 2);
      },
      "node 'softmax_0': axis 2 is out of range for rank 2");
  expectError(
      [](GraphBuilder &g) {
        g.reduceSum(g.input("x", DType::F32, {2, 3}), {1, -1});
      },
      "node 'reduce_sum_0': axis -1 is given twice in [1,-1]");
  expectError(
      [](GraphBuilder &g) {
        g.transpose(g.input("x", DType::F32, {2, 3}), {0, 0});
      },
      "node 'transpose_0': perm [0,0] is not a permutation");
  expectError(
      [](GraphBuilder &g) {
        Conv2dOptions o;
        o.pads = {1, 1, 1};
        g.conv2d(g.input("x", DType::F32, {1, 1, 4, 4}), g.weight("w", {1, 1, 3, 3}, Floats(9)),
                 Tensor(), o);
      },
      "node 'conv2d_0': expected 2 or 4 pads, got 3");
  expectError(
      [](GraphBuilder &g) {
        g.maxPool(g.input("x", DType::F32, {1, 1, 2, 2}), {3, 3});
      },
      "node 'max_pool_0': kernel larger than padded input [1,1,2,2]");
}

TEST_CASE("builder errors: inputs, outputs, weights and operands", "[builder][errors]") {
  expectError(
      [](GraphBuilder &g) {
        Tensor x = g.input("x", DType::F32, {2});
        g.output("y", x);
        g.output("y", g.relu(x));
      },
      "node 'output_1': output 'y' is declared twice");
  expectError(
      [](GraphBuilder &g) {
        g.input("x", DType::F32, {2});
        g.input("x", DType::F32, {3});
      },
      "node 'input_1': input 'x' is declared twice");
  expectError(
      [](GraphBuilder &g) {
        g.input("x", DType::F32, {2, -3});
      },
      "node 'input_0': input 'x': shape [2,-3] has a negative dim");
  expectError(
      [](GraphBuilder &g) {
        g.input("x", DType::F32, {1 << 30, 1 << 30, 4});
      },
      "node 'input_0': input 'x': shape [1073741824,1073741824,4] is too large");
  expectError(
      [](GraphBuilder &g) {
        g.weight("w", {2, 2}, Floats(3));
      },
      "node 'weight_0': weight 'w': shape [2,2] has 4 elements, got 3 values");
  expectError([](GraphBuilder &g) { g.relu(Tensor()); },
              "node 'relu_0': operand 0 is not a valid tensor");
  expectError(
      [](GraphBuilder &g) {
        g.output("y", g.input("x", DType::F32, {2}));
        mlir::MLIRContext other;
        GraphBuilder g2(other);
        g.add(g.input("a", DType::F32, {2}), g2.input("b", DType::F32, {2}));
      },
      "node 'add_0': operand 1 belongs to another graph");
  expectError([](GraphBuilder &g) { g.input("x", DType::F32, {2}); }, "the graph has no outputs");
}

TEST_CASE("builder errors: after the first error every call is a no-op", "[builder][errors]") {
  dlc::Compilation c({});
  GraphBuilder g(c.context());
  Tensor x = g.input("x", DType::F32, {2, 3});
  Tensor bad = g.add(x, g.input("v", DType::F32, {5}));
  CHECK_FALSE(bad.valid());
  CHECK(bad.dtype() == DType::Undefined);
  CHECK(bad.shape().empty());
  // Each of these would be an error of its own; none is reported.
  CHECK_FALSE(g.relu(bad).valid());
  CHECK_FALSE(g.relu(x).valid());
  CHECK_FALSE(g.input("x", DType::F32, {1}).valid());
  g.output("y", x);
  CHECK(mlir::failed(g.finish()));
  CHECK(c.errors() == std::vector<std::string>{
                          "node 'add_0': shapes [2,3] and [5] are not broadcast-compatible"});
}

TEST_CASE("builder errors: using a finished builder", "[builder][errors]") {
  dlc::Compilation c({});
  GraphBuilder g(c.context());
  g.output("y", g.relu(g.input("x", DType::F32, {2})));
  auto m = g.finish();
  REQUIRE(mlir::succeeded(m));
  CHECK(g.ok());
  CHECK_FALSE(g.relu(g.input("z", DType::F32, {2})).valid());
  CHECK(g.error() == "node 'input_1': the graph is already finished");
  CHECK(mlir::failed(g.finish()));
  // The module handed out is unaffected.
  c.setModule(std::move(*m));
  CHECK(mlir::succeeded(c.runTo(dlc::Phase::Graph)));
}

TEST_CASE("builder errors: ops the dialect rejects", "[builder][errors]") {
  dlc::Compilation c({});
  GraphBuilder g(c.context());
  g.softmax(g.input("ids", DType::I64, {4}));
  CHECK(mlir::failed(g.finish()));
  REQUIRE(c.errors().size() == 1);
  CHECK_THAT(c.errors()[0], Catch::StartsWith("node 'softmax_0': 'dlc_graph.softmax' op operand"));
  CHECK_THAT(c.errors()[0], Catch::Contains("tensor<4xi64>"));
}
