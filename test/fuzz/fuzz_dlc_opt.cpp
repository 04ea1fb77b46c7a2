// fuzz_dlc_opt.cpp - libFuzzer target: `dlc-opt` on textual IR: parse and verify with every
// dlc dialect, then the graph pipeline on what verifies.
#include "compiler/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <memory>
#include <string>

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
  std::string text(reinterpret_cast<const char *>(data), size);
  mlir::ParserConfig config(context.get());
  auto module = mlir::parseSourceString<mlir::ModuleOp>(text, config);
  if (!module)
    return 0;
  mlir::PassManager pm(context.get());
  dlc::buildGraphPipeline(pm);
  (void)pm.run(*module);
  return 0;
}
