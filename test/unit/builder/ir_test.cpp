// ir_test.cpp - the IR the graph builder produces: op names, inferred shapes, normalized
// attributes.
#include "test_util.h"

#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/raw_ostream.h"

using namespace dlc::builder;
using namespace dlc_builder_test;
using Shape = std::vector<int64_t>;

namespace {

Shape shapeOf(Tensor t) { return Shape(t.shape().begin(), t.shape().end()); }

/// Names of the ops in @main_graph, constants left out.
std::vector<std::string> opNames(mlir::ModuleOp m) {
  std::vector<std::string> names;
  auto f = m.lookupSymbol<mlir::func::FuncOp>("main_graph");
  REQUIRE(f);
  for (mlir::Operation &op : f.getBody().front())
    if (!mlir::isa<mlir::arith::ConstantOp>(op)) names.push_back(op.getName().getStringRef().str());
  return names;
}

std::string print(mlir::ModuleOp m) {
  std::string s;
  llvm::raw_string_ostream os(s);
  m.print(os, mlir::OpPrintingFlags().enableDebugInfo());
  return s;
}

template <typename OpTy> OpTy firstOp(mlir::ModuleOp m) {
  OpTy found;
  m.walk([&](OpTy op) {
    if (!found) found = op;
  });
  REQUIRE(found);
  return found;
}

} // namespace

TEST_CASE("builder: an MLP has the importer's module form", "[builder][ir]") {
  dlc::Compilation c({});
  GraphBuilder g(c.context());
  Tensor x = g.input("x", DType::F32, {2, 16});
  Tensor w1 = g.weight("w1", {16, 32}, Floats(16 * 32, 0.5f));
  Tensor b1 = g.weight("b1", {32}, Floats(32, 0.1f));
  Tensor w2 = g.weight("w2", {8, 32}, Floats(8 * 32, 0.25f));
  Tensor h = g.relu(g.add(g.matmul(x, w1), b1));
  Tensor y = g.gemm(h, w2, Tensor(), 1.0f, 1.0f, false, /*transB=*/true);
  Tensor p = g.softmax(y);
  g.output("logits", y);
  g.output("probs", p);

  CHECK(shapeOf(x) == Shape{2, 16});
  CHECK(shapeOf(h) == Shape{2, 32});
  CHECK(shapeOf(y) == Shape{2, 8});
  CHECK(y.dtype() == DType::F32);
  CHECK(x.rank() == 2);
  CHECK(h.numElements() == 64);

  auto m = g.finish();
  REQUIRE(mlir::succeeded(m));
  CHECK(opNames(**m) == std::vector<std::string>{"dlc_graph.matmul", "dlc_graph.add",
                                                 "dlc_graph.relu", "dlc_graph.gemm",
                                                 "dlc_graph.softmax", "func.return"});
  CHECK(firstOp<dlc::graph::SoftmaxOp>(**m).getAxis() == 1); // -1 normalized
  CHECK(firstOp<dlc::graph::GemmOp>(**m).getTransB());
  std::string ir = print(**m);
  CHECK_THAT(ir, Catch::Contains("func.func @main_graph(%arg0: tensor<2x16xf32> "
                                 "{dlc.dtype = 1 : i32, dlc.name = \"x\"}"));
  CHECK_THAT(ir,
             Catch::Contains("-> (tensor<2x8xf32> {dlc.dtype = 1 : i32, dlc.name = \"logits\"}"));
  CHECK_THAT(ir, Catch::Contains("dlc.name = \"probs\""));
  CHECK_THAT(ir, Catch::Contains("loc(\"matmul_0\")"));
  CHECK_THAT(ir, Catch::Contains("loc(\"w1\")"));

  // The compiler's graph phase accepts the module as it is.
  c.setModule(std::move(*m));
  CHECK(mlir::succeeded(c.runTo(dlc::Phase::Graph)));
  CHECK(c.errors().empty());
}

TEST_CASE("builder: conv and pooling shapes and window attributes", "[builder][ir]") {
  mlir::MLIRContext ctx;
  GraphBuilder g(ctx);
  Tensor x = g.input("image", DType::F32, {1, 3, 8, 8});
  Tensor w = g.weight("w", {4, 3, 3, 3}, Floats(4 * 3 * 9, 0.1f));
  Tensor b = g.weight("b", {4}, Floats(4, 0.0f));
  Conv2dOptions same;
  same.pads = {1, 1};
  Tensor y = g.conv2d(x, w, b, same);
  CHECK(shapeOf(y) == Shape{1, 4, 8, 8});
  Conv2dOptions strided;
  strided.strides = {2, 2};
  strided.pads = {0, 0, 1, 1};
  CHECK(shapeOf(g.conv2d(x, w, Tensor(), strided)) == Shape{1, 4, 4, 4});
  Tensor wg = g.weight("wg", {4, 2, 1, 1}, Floats(8, 1.0f));
  Conv2dOptions grouped;
  grouped.group = 2;
  CHECK(shapeOf(g.conv2d(y, wg, Tensor(), grouped)) == Shape{1, 4, 8, 8});

  Pool2dOptions s2;
  s2.strides = {2, 2};
  Tensor mp = g.maxPool(y, {2, 2}, s2);
  CHECK(shapeOf(mp) == Shape{1, 4, 4, 4});
  Pool2dOptions padded;
  padded.pads = {1, 1};
  padded.countIncludePad = true;
  CHECK(shapeOf(g.averagePool(y, {3, 3}, padded)) == Shape{1, 4, 8, 8});
  Tensor gap = g.globalAveragePool(mp);
  CHECK(shapeOf(gap) == Shape{1, 4, 1, 1});
  g.output("y", g.flatten(gap));
  auto m = g.finish();
  REQUIRE(mlir::succeeded(m));
  auto conv = firstOp<dlc::graph::ConvOp>(**m);
  CHECK(conv.getPads() == llvm::ArrayRef<int64_t>{1, 1, 1, 1});
  CHECK(conv.getBias());
  CHECK(firstOp<dlc::graph::AveragePoolOp>(**m).getCountIncludePad());
  CHECK(firstOp<dlc::graph::MaxPoolOp>(**m).getKernel() == llvm::ArrayRef<int64_t>{2, 2});
}

TEST_CASE("builder: shape ops normalize negative axes", "[builder][ir]") {
  mlir::MLIRContext ctx;
  GraphBuilder g(ctx);
  Tensor x = g.input("x", DType::F32, {2, 3, 4});
  CHECK(shapeOf(g.reshape(x, {-1, 4})) == Shape{6, 4});
  CHECK(shapeOf(g.reshape(x, {4, 3, 2})) == Shape{4, 3, 2});
  CHECK(shapeOf(g.flatten(x, -1)) == Shape{6, 4});
  CHECK(shapeOf(g.transpose(x)) == Shape{4, 3, 2});
  Tensor t = g.transpose(x, {0, -1, 1});
  CHECK(shapeOf(t) == Shape{2, 4, 3});
  CHECK(shapeOf(g.concat({x, x, x}, -2)) == Shape{2, 9, 4});
  CHECK(shapeOf(g.reduceSum(x, {-1, 0})) == Shape{1, 3, 1});
  CHECK(shapeOf(g.reduceMean(x, {1}, /*keepdims=*/false)) == Shape{2, 4});
  CHECK(shapeOf(g.reduceMax(x)) == Shape{1, 1, 1});
  Tensor scale = g.weight("scale", {4}, Floats(4, 1.0f));
  CHECK(shapeOf(g.layerNorm(x, scale)) == Shape{2, 3, 4});
  CHECK(shapeOf(g.logSoftmax(x, -2)) == Shape{2, 3, 4});
  Tensor i = g.cast(x, DType::I64);
  CHECK(i.dtype() == DType::I64);
  g.output("t", t);
  auto m = g.finish();
  REQUIRE(mlir::succeeded(m));
  CHECK(firstOp<dlc::graph::TransposeOp>(**m).getPerm() == llvm::ArrayRef<int64_t>{2, 1, 0});
  CHECK(firstOp<dlc::graph::ConcatOp>(**m).getAxis() == 1);
  CHECK(firstOp<dlc::graph::ReduceSumOp>(**m).getAxes() == llvm::ArrayRef<int64_t>{0, 2});
  CHECK(firstOp<dlc::graph::LayerNormOp>(**m).getAxis() == 2);
  CHECK(firstOp<dlc::graph::LogSoftmaxOp>(**m).getAxis() == 1);
}

TEST_CASE("builder: constants of each dtype, folding of small constant math", "[builder][ir]") {
  mlir::MLIRContext ctx;
  GraphBuilder g(ctx);
  Tensor i64 = g.weight("ids", {3}, std::vector<int64_t>{1, 2, 3});
  Tensor i32 = g.constant({2}, std::vector<int32_t>{4, 5});
  Tensor f64 = g.constant({1}, std::vector<double>{0.5});
  Tensor half = g.scalar(0.5);
  Tensor one = g.scalar(1, DType::I64);
  CHECK(i64.dtype() == DType::I64);
  CHECK(i32.dtype() == DType::I32);
  CHECK(f64.dtype() == DType::F64);
  CHECK(half.dtype() == DType::F32);
  CHECK(half.rank() == 0);
  Tensor sum = g.add(i64, one); // folded into a constant by createChecked
  CHECK(shapeOf(sum) == Shape{3});
  Tensor x = g.input("x", DType::F32, {4});
  g.output("y", g.mul(x, half));
  g.output("ids", sum);
  auto m = g.finish();
  REQUIRE(mlir::succeeded(m));
  CHECK(opNames(**m) == std::vector<std::string>{"dlc_graph.mul", "func.return"});
  std::string ir = print(**m);
  CHECK_THAT(ir, Catch::Contains("dense<[2, 3, 4]> : tensor<3xi64>"));
  CHECK_THAT(ir, Catch::Contains("{dlc.dtype = 7 : i32, dlc.name = \"ids\"}"));
}
