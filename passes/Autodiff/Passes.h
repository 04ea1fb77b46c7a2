// Autodiff passes (declarations generated from Passes.td).
#ifndef DLC_PASSES_AUTODIFF_PASSES_H
#define DLC_PASSES_AUTODIFF_PASSES_H

#include "dialects/Graph/IR/GraphOps.h"
#include "passes/Autodiff/TrainingOptions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Pass/Pass.h"

namespace dlc::autodiff {
#define GEN_PASS_DECL
#include "passes/Autodiff/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "passes/Autodiff/Passes.h.inc"
} // namespace dlc::autodiff

#endif
