// fuzz_dlc_opt.cpp - libFuzzer target: `dlc-opt` on textual IR: parse and verify with every
// dlc dialect, then the graph pipeline on what verifies.
#include "FuzzContext.h"
#include "compiler/ParserWorkarounds.h"
#include "compiler/Pipelines.h"
#include "dialects/Graph/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext *context = &dlc::fuzz::sharedContext();
  mlir::ScopedDiagnosticHandler quiet(context, [](mlir::Diagnostic &) {
    return mlir::success();
  });
  std::string text(reinterpret_cast<const char *>(data), size);
  // dlc-opt rejects what MLIR 22's own parsers crash on, before parsing.
  if (!dlc::findParserCrashHazard(text).empty())
    return 0;
  mlir::ParserConfig config(context);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(text, config);
  if (!module)
    return 0;
  mlir::PassManager pm(context);
  dlc::buildGraphPipeline(pm);
  // The linalg phase's first pass: the composite regions the graph phase kept, expanded.
  dlc::graph::GraphDecomposeOptions expand;
  expand.maxTensorBytes = 64u << 20;
  pm.addPass(dlc::graph::createGraphDecompose(expand));
  (void)pm.run(*module);
  return 0;
}
