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
/// columns (or half or a quarter of it): the target's register tile width. Strided
/// convolutions, and stride-1 ones of at most `im2colPixels` output pixels per image,
/// run as im2col and a packed GEMM. With `bf16Weights`, packed weights whose values are
/// all exactly bf16 are stored as bf16 and widened in the kernel; with `bf16DotLanes` > 0
/// too, such matmuls and convs take the bf16 dot form (pairs of K, that many columns per
/// block).
void populateContractionLoweringPatterns(mlir::RewritePatternSet &patterns,
                                         int64_t packBlock = 32, int64_t im2colPixels = 0,
                                         bool bf16Weights = false, int64_t bf16DotLanes = 0);
/// A target's integer dot-product instruction: `lanes` 32-bit sums of `group` products
/// each. Groups of 4 multiply u8 activations by s8 weights (x86 AVX-512 VNNI vpdpbusd, 16
/// lanes); groups of 2 multiply i16 by i16, the 8-bit operands widened (x86 AVX2
/// vpmaddwd, 8 lanes). Lanes 0: none.
struct DotForm {
  int64_t lanes = 0;
  int64_t group = 4;
  /// Operands widened to i16 (vpmaddwd) rather than bytes.
  bool wide() const { return group == 2; }
};

/// 8-bit integer matmuls and convolutions; with a dot form, constant weights are packed
/// for it (DotForm).
void populateIntegerContractionLoweringPatterns(mlir::RewritePatternSet &patterns,
                                                DotForm form = {});
/// Weight-only quantized matmuls (dlc_graph.dequant_matmul): codes packed one byte each in
/// blocks of `packBlock` columns, dequantized in the kernel.
void populateWeightOnlyContractionLoweringPatterns(mlir::RewritePatternSet &patterns,
                                                   int64_t packBlock = 32);
void populatePoolingLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateReductionLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateDataMovementLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateIndexingLoweringPatterns(mlir::RewritePatternSet &patterns);
/// Ops whose result sizes the model computes when it runs (NonZero).
void populateDataDependentLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateNonMaxSuppressionLoweringPatterns(mlir::RewritePatternSet &patterns);
/// String constants and elementwise calls of the runtime's string functions, which
/// declareStringFunctions declares in the module first.
void populateStringLoweringPatterns(mlir::RewritePatternSet &patterns);
void declareStringFunctions(mlir::ModuleOp module);
} // namespace dlc::conversion

#endif
