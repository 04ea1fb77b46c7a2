// Quantization passes (declarations generated from Passes.td).
#ifndef DLC_PASSES_QUANTIZATION_PASSES_H
#define DLC_PASSES_QUANTIZATION_PASSES_H

#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Pass/Pass.h"

namespace dlc::quantization {
#define GEN_PASS_DECL
#include "passes/Quantization/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "passes/Quantization/Passes.h.inc"
} // namespace dlc::quantization

#endif
