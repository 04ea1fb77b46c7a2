// CUDA (NVIDIA GPU) target: kernel schedules, launches, the lowering pipeline to PTX.
#ifndef DLC_CODEGEN_TARGET_CUDA_PASSES_H
#define DLC_CODEGEN_TARGET_CUDA_PASSES_H

#include "codegen/Target/CUDA/GpuTarget.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <string>

namespace dlc::cuda {

#define GEN_PASS_DECL
#include "codegen/Target/CUDA/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "codegen/Target/CUDA/Passes.h.inc"

/// Stride-1 convolutions of at most this many output pixels per image go through im2col
/// for the GPU (the linalg phase); larger ones (rows of 16 pixels and more when square)
/// stay direct, which the tensor-core schedule takes as implicit GEMMs.
constexpr int64_t kIm2colPixels = 255;

/// The gpu.module every kernel is outlined into.
constexpr const char *kKernelModule = "dlc_kernels";

/// What `dlc compile --target=cuda:...` generates code for.
struct TargetOptions {
  GpuTarget gpu = *GpuTarget::parse("sm_80");
  int optLevel = 3;
  /// Print the target and each kernel's schedule to stderr.
  bool dumpConfig = false;
  /// Testing: lower the schedules (block and thread foralls) as loops through the x86
  /// pipeline instead of mapping them to the GPU: a CPU module computing what the
  /// kernels compute (dlc compile --cuda-schedule-on-cpu).
  bool scheduleOnCpu = false;
  /// The CUDA toolkit (libdevice, ptxas); empty: $CUDA_HOME, else /usr/local/cuda.
  std::string toolkit;
};

/// The CUDA toolkit directory `options` use (see TargetOptions::toolkit).
std::string toolkitPath(const TargetOptions &options);

/// linalg on tensors -> kernels in PTX (a gpu.binary) and host code in the LLVM dialect
/// that launches them through the runtime (or, scheduleOnCpu, a CPU module).
void buildCudaLoweringPipeline(mlir::OpPassManager &pm, const TargetOptions &options);

} // namespace dlc::cuda

#endif
