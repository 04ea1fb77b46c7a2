// The CUDA lowering pipeline: linalg on tensors -> the shared bufferization and arena ->
// kernel schedules -> gpu.launch -> NVVM -> PTX, host code through the x86 tail.
#include "codegen/Target/CUDA/Passes.h"
#include "codegen/Target/X86/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"

#include <cstdlib>

using namespace mlir;

namespace dlc::cuda {

std::string toolkitPath(const TargetOptions &options) {
  // The compiler's own checks (LowerLaunches) name a missing libdevice; MLIR's message
  // for a missing directory is the fallback.
  if (!options.toolkit.empty())
    return options.toolkit;
  for (const char *var : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"})
    if (const char *dir = std::getenv(var); dir && *dir)
      return dir;
  return "/usr/local/cuda";
}

static void addCleanup(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void buildCudaLoweringPipeline(OpPassManager &pm, const TargetOptions &options) {
  using func::FuncOp;
  // Unit dims out of the loop nests (a 1x1 convolution's window, a batch of 1): what is
  // left of a contraction is one the tensor-core schedule can take.
  pm.addPass(createLinalgFoldUnitExtentDimsPass());
  addCleanup(pm);
  // The shared, target-independent part (as on the CPU): elementwise chains fused, the
  // runtime ABI (caller-owned buffers, outputs computed in place), padded inputs' halos,
  // weights as globals, tensors -> buffers, intermediates in one arena by liveness.
  pm.addNestedPass<FuncOp>(codegen::createFuseElementwise());
  addCleanup(pm);
  pm.addPass(codegen::createPrepareABI());
  pm.addNestedPass<FuncOp>(codegen::createPadToHalo());
  addCleanup(pm);
  codegen::BuffersPipelineOptions buffers;
  buffers.privatizeParallelBuffers = false; // kernels are not the CPU's parallel loops
  buffers.dumpArena = options.dumpConfig;
  codegen::buildBuffersPipeline(pm, buffers);
  // Kernel schedules: every linalg op (and copy) as block and thread foralls.
  MapToThreadsOptions threads;
  threads.blockThreads = options.gpu.blockThreads;
  pm.addNestedPass<FuncOp>(createMapToThreads(threads));
  pm.addNestedPass<FuncOp>(createConvertLinalgToLoopsPass());
  addCleanup(pm);
  x86::TargetOptions cpu;
  cpu.cpu = "x86-64-v3";
  cpu.optLevel = options.optLevel;
  if (options.scheduleOnCpu) {
    // The check of the schedules: the foralls as loops, run by the CPU (the tensor-core
    // tiles as buffers and loops, read and written with the GPU lowerings' masking).
    pm.addNestedPass<FuncOp>(createTilesToLoops());
    pm.addPass(createForallToForLoopPass());
    x86::buildCpuLLVMTail(pm, cpu);
    return;
  }
  // Warpgroup tiles -> shared-memory stages and wgmma (sm_90a) or ldmatrix + mma.sync
  // (warp tiles, from map-to-threads{warpgroups=false}: lanes' mma.sync fragments); warps'
  // row reductions -> lanes and shuffles; threads' vectors -> aligned 16-byte accesses.
  pm.addNestedPass<FuncOp>(createWarpMma());
  WarpgroupMmaOptions staged;
  staged.wgmma = options.gpu.tensorCore == TensorCore::Wgmma;
  pm.addNestedPass<FuncOp>(createWarpgroupMma(staged));
  pm.addNestedPass<FuncOp>(createWarpReduce());
  pm.addNestedPass<FuncOp>(createVectorLoads());
  // Foralls -> gpu.launch -> gpu.func in gpu.module @dlc_kernels.
  ForallToLaunchOptions launch;
  launch.chip = options.gpu.chip;
  launch.features = options.gpu.features;
  pm.addPass(createForallToLaunch(launch));
  addCleanup(pm);
  // Kernels: loops and strided memrefs -> NVVM (kernel arguments as bare pointers).
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createConvertNVGPUToNVVMPass());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  // The threads' vectors (broadcasts, 16-byte loads and stores) -> LLVM vectors.
  kernels.addPass(createConvertVectorToLLVMPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  // NVVM ops written as inline PTX (wgmma) -> llvm.inline_asm.
  kernels.addPass(createConvertNVVMToLLVMPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  // PTX (libdevice linked from the toolkit).
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  binary.toolkitPath = toolkitPath(options);
  pm.addPass(createGpuModuleToBinaryPass(binary));
  // Host: the PTX embedded, launches as runtime calls, then the CPU's lowering to LLVM.
  // The cubin too where the toolkit has ptxas (the driver JIT-compiles the PTX otherwise).
  LowerLaunchesOptions host;
  std::string ptxas = toolkitPath(options) + "/bin/ptxas";
  if (llvm::sys::fs::can_execute(ptxas))
    host.ptxas = ptxas;
  pm.addPass(createLowerLaunches(host));
  x86::buildCpuLLVMTail(pm, cpu);
}

} // namespace dlc::cuda
