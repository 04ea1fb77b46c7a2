// fuzz_onnx.cpp - libFuzzer target: the ONNX importer, from a serialized ModelProto up to a
// verified dlc_graph module, then the graph phase (shape inference, folding, fusion).
#include "FuzzUtil.h"
#include "FuzzContext.h"
#include "compiler/Pipelines.h"
#include "dialects/Graph/Transforms/Passes.h"
#include "frontends/Onnx/Importer.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext *context = &dlc::fuzz::sharedContext();
  mlir::ScopedDiagnosticHandler quiet(context, [](mlir::Diagnostic &) {
    return mlir::success();
  });
  dlc::onnx_frontend::ImportOptions options;
  options.keepGoing = true;
  options.maxTensorBytes = 64u << 20; // the fuzzer's own memory limit is 2 GB
  auto module = dlc::onnx_frontend::importOnnxFile(
      *context, dlc::fuzz::inputFile(data, size, ".onnx"), options);
  if (mlir::failed(module))
    return 0;
  if (mlir::failed(mlir::verify(**module)))
    std::abort(); // the importer must build valid IR or report an error
  mlir::PassManager pm(context);
  dlc::buildGraphPipeline(pm);
  // The linalg phase's first pass: the composite regions the graph phase kept, expanded.
  dlc::graph::GraphDecomposeOptions expand;
  expand.maxTensorBytes = 64u << 20;
  pm.addPass(dlc::graph::createGraphDecompose(expand));
  (void)pm.run(**module);
  return 0;
}
