// fuzz_onnx.cpp - libFuzzer target: the ONNX importer, from a serialized ModelProto up to a
// verified dlc_graph module, then the graph phase (shape inference, folding, fusion).
// One context serves many inputs (creating one per input would dominate the time); it is
// replaced every 2000 inputs so that attributes uniqued from random models do not pile up.
#include "FuzzUtil.h"
#include "compiler/Pipelines.h"
#include "frontends/Onnx/Importer.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include <cstdlib>
#include <memory>

static std::unique_ptr<mlir::MLIRContext> context;
static int uses = 0;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!context || ++uses == 2000) {
    dlc::registerPassesAndPipelines();
    mlir::DialectRegistry registry;
    dlc::registerDialects(registry);
    context = std::make_unique<mlir::MLIRContext>(registry,
                                                  mlir::MLIRContext::Threading::DISABLED);
    context->loadAllAvailableDialects();
    uses = 0;
  }
  mlir::ScopedDiagnosticHandler quiet(context.get(), [](mlir::Diagnostic &) {
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
  mlir::PassManager pm(context.get());
  dlc::buildGraphPipeline(pm);
  (void)pm.run(**module);
  return 0;
}
