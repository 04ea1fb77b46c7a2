// Conversion passes from dlc_graph to linalg, and the pattern-population entry points.
#ifndef DLC_CODEGEN_CONVERSION_GRAPHTOLINALG_PASSES_H
#define DLC_CODEGEN_CONVERSION_GRAPHTOLINALG_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

namespace dlc::conversion {
#define GEN_PASS_DECL
#include "codegen/Conversion/GraphToLinalg/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "codegen/Conversion/GraphToLinalg/Passes.h.inc"

void populateElementwiseLoweringPatterns(mlir::RewritePatternSet &patterns);
/// Matmuls and convolutions; constant weights are packed in blocks of `packBlock`
/// columns (or half or a quarter of it): the target's register tile width.
void populateContractionLoweringPatterns(mlir::RewritePatternSet &patterns,
                                         int64_t packBlock = 32);
/// 8-bit integer matmuls; with `dotLanes` > 0 constant weights are packed for a dot
/// product of that many 32-bit lanes over 4-byte K groups.
void populateIntegerContractionLoweringPatterns(mlir::RewritePatternSet &patterns,
                                                int64_t dotLanes = 0);
void populatePoolingLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateReductionLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateDataMovementLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateIndexingLoweringPatterns(mlir::RewritePatternSet &patterns);
} // namespace dlc::conversion

#endif
