// The CPU lowering pipeline: linalg on tensors -> bufferized loops -> LLVM dialect + entry point.
#include "codegen/Target/X86/CpuTarget.h"
#include "codegen/Target/X86/Passes.h"

// The conversions one by one: mlir/Conversion/Passes.h (all of them) took 15 s to parse.
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToFuncs/MathToFuncs.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace dlc::x86 {

/// canonicalize, cse: the clean-up after each rewriting step.
static void addCleanup(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void buildCpuLoweringPipeline(OpPassManager &pm, const TargetOptions &options) {
  using func::FuncOp;
  // Fuse producer/consumer elementwise generics into single loop nests.
  pm.addNestedPass<FuncOp>(codegen::createFuseElementwise());
  addCleanup(pm);
  // Long sums that get no vector partial sums accumulate in f64 (rounding grows with n).
  pm.addNestedPass<FuncOp>(createWidenLongSums());
  // Caller-owned input/output buffers, outputs computed in place (DPS).
  pm.addPass(codegen::createPrepareABI());
  // Padded inputs (convolutions, pools): zero only the halo.
  pm.addNestedPass<FuncOp>(codegen::createPadToHalo());
  // Each linalg op's kernel for the target CPU (KernelConfig.cpp decides; recorded on
  // the op as #dlc.kernel_config), normalization chains in row blocks...
  SelectKernelsOptions selection;
  selection.cpu = options.cpu;
  selection.dumpTarget = options.dumpConfig;
  pm.addNestedPass<FuncOp>(createSelectKernels(selection));
  // ... then register tiles and vectors as recorded.
  TileAndVectorizeOptions tiling;
  tiling.cpu = options.cpu;
  tiling.dumpConfig = options.dumpConfig;
  tiling.recordConfig = options.untilKernels;
  tiling.injectFault = options.injectFault;
  pm.addNestedPass<FuncOp>(createTileAndVectorize(tiling));
  // dlc verify stops here: the kernels are recorded on the function.
  if (options.untilKernels)
    return;
  // Polynomial exp/tanh/erf/...: no libm calls inside vector loops.
  pm.addNestedPass<FuncOp>(createMathApproximation());
  addCleanup(pm);
  // Weights as globals, tensors -> buffers, the arena (shared with every target). A
  // parallel loop's scratch tensors are made inside it: one buffer per thread.
  // (Testing only, --inject-fault=shared-scratch: threads share them, MaxViT's race,
  // which scripts/test --tsan must catch.)
  codegen::BuffersPipelineOptions buffers;
  buffers.privatizeParallelBuffers = options.injectFault != "shared-scratch";
  buffers.dumpArena = options.dumpConfig;
  codegen::buildBuffersPipeline(pm, buffers);
  // Large outputs written in whole cache lines bypass the caches...
  pm.addNestedPass<FuncOp>(createStreamingStores());
  // ... and large inputs read that way are prefetched ahead.
  pm.addNestedPass<FuncOp>(createPrefetchStreams());
  // Outer tile loops of parallel dims -> bodies the runtime's threads split.
  pm.addPass(createOutlineParallelLoops());
  buildCpuLLVMTail(pm, options);
}

void buildCpuLLVMTail(OpPassManager &pm, const TargetOptions &options) {
  using func::FuncOp;
  // Dot-product instructions (vpdpbusd, vpmaddwd) from their Pure stand-ins, now that
  // buffer deallocation, which rejects intrinsic calls, is done; bf16 conversions in
  // integer arithmetic where the CPU has no instruction for them.
  // Without AVX512-BF16, LLVM computes bf16 arithmetic in f32 and rounds each result
  // back through __truncsfbf2, a libcall nothing here provides: compute it in f32 here
  // (one rounding per op, as the hardware path), the conversions then in integers.
  if (!CpuTarget::resolve(options.cpu).bf16) {
    arith::ArithEmulateUnsupportedFloatsOptions emulate;
    emulate.sourceTypeStrs = {"bf16"};
    emulate.targetTypeStr = "f32";
    pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  }
  LowerIntrinsicsOptions intrinsics;
  intrinsics.cpu = options.cpu;
  pm.addNestedPass<FuncOp>(createLowerIntrinsics(intrinsics));
  // Loops; LLVM's vectorizer handles the inner loops for now.
  // Vector transfers to loads/stores; full unroll avoids per-iteration allocas.
  pm.addNestedPass<FuncOp>(
      createConvertVectorToSCFPass(VectorTransferToSCFOptions().enableFullUnroll()));
  pm.addNestedPass<FuncOp>(codegen::createStridedCopyToLinalg());
  pm.addNestedPass<FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createSCFToControlFlowPass());
  // expand-strided-metadata must precede lower-affine (TOOLCHAIN.md 2.2).
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  ConvertMathToFuncsOptions mathToFuncs;
  mathToFuncs.convertCtlz = false;
  pm.addPass(createConvertMathToFuncs(mathToFuncs));
  // Math: LLVM intrinsics where they exist, libm calls for the rest (f64 erf, tan,
  // ...), unrolled from vectors while vector ops can still be lowered.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertVectorToLLVMPass());
  // Intermediates through the runtime allocator (dlc_abi.h): no page faults per run.
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  // dlc_main takes the buffer table: no signature of 10,000 memrefs to convert.
  pm.addPass(codegen::createPackEntryArguments());
  // Bare pointers: the entry wrapper passes plain buffer addresses.
  ConvertFuncToLLVMPassOptions funcToLLVM;
  funcToLLVM.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(funcToLLVM));
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // Parallel loops call the runtime's thread pool; dlc_module_entry wraps dlc_main.
  pm.addPass(createLowerParallelCalls());
  pm.addPass(codegen::createAddEntryPoint());
}

} // namespace dlc::x86
