// The compiler's named phases as pass pipelines (also registered for dlc-opt).
#ifndef DLC_COMPILER_PIPELINES_H
#define DLC_COMPILER_PIPELINES_H

#include "codegen/Target/X86/Passes.h"
#include "passes/Autodiff/TrainingOptions.h"
#include "mlir/Pass/PassManager.h"

#include <optional>

namespace dlc {

/// Opt-in steps of the graph phase.
struct GraphPipelineOptions {
  /// Append the gradients of this output (its sum) with respect to every float
  /// input as extra outputs `grad_<input>` (`dlc compile --grad-of`); empty: none.
  std::string gradOf;
  /// With gradOf: also the gradients of the float initializers (`grad_<name>`).
  bool gradInitializers = false;
  /// Build a training step (`dlc compile --train`); none: inference.
  std::optional<autodiff::TrainingOptions> training;
  /// Report what the quantization passes made of each quantized op (stderr; `dlc compile
  /// --dump-config`).
  bool report = false;
  /// Round matmul and conv operands to bf16 (`dlc compile --precision=bf16`).
  bool bf16 = false;
};

/// graph: canonicalize and fold, raise attention, expand composite ops (inference keeps
/// attention and recurrences whole), [autodiff,] clean up (dlc_graph -> dlc_graph).
void buildGraphPipeline(mlir::OpPassManager &pm, const GraphPipelineOptions &options = {});
/// linalg: expand the composite regions, then primitive dlc_graph -> linalg/tensor/arith/math
/// on tensors, constant weights packed for `target`'s register tiles. `maxTensorBytes`
/// bounds what the expansions create (0: no limit). `bf16Weights` (--precision=bf16, whose
/// graph phase rounded the weights): packed weights stored as bf16. `gpu` (--target=cuda):
/// every KxK convolution of whole channel blocks through im2col and the packed GEMM, the
/// form the tensor-core schedule takes.
void buildLinalgPipeline(mlir::OpPassManager &pm, const x86::TargetOptions &target = {},
                         uint64_t maxTensorBytes = 0, bool bf16Weights = false,
                         bool gpu = false);
/// llvm: linalg on tensors -> LLVM dialect with the runtime entry point (x86).
void buildLLVMPipeline(mlir::OpPassManager &pm, const x86::TargetOptions &target);

/// Registers dlc passes and the pipelines `dlc-graph-pipeline`,
/// `dlc-linalg-pipeline`, `dlc-llvm-pipeline` (idempotent).
void registerPassesAndPipelines();
/// Every dialect the compiler may produce or consume.
void registerDialects(mlir::DialectRegistry &registry);

} // namespace dlc

#endif
