// FuzzContext.h - the MLIR context the fuzz targets share between inputs.
#ifndef DLC_TEST_FUZZ_FUZZCONTEXT_H
#define DLC_TEST_FUZZ_FUZZCONTEXT_H

#include "compiler/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <memory>

namespace dlc::fuzz {

/// A context with every dlc dialect loaded, shared by consecutive inputs (creating one
/// per input would dominate the time) and replaced every 2000 inputs, so that what
/// random inputs unique into it (attributes, types, names) does not pile up.
inline mlir::MLIRContext &sharedContext() {
  static std::unique_ptr<mlir::MLIRContext> context;
  static int uses = 0;
  if (!context || ++uses == 2000) {
    dlc::registerPassesAndPipelines();
    mlir::DialectRegistry registry;
    dlc::registerDialects(registry);
    context = std::make_unique<mlir::MLIRContext>(registry,
                                                  mlir::MLIRContext::Threading::DISABLED);
    context->loadAllAvailableDialects();
    uses = 0;
  }
  return *context;
}

} // namespace dlc::fuzz

#endif
