// The compiler's named phases as pass pipelines, narrated, and their registration.
#include "compiler/Pipelines.h"

#include "codegen/Conversion/GraphToLinalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "codegen/Target/CUDA/Passes.h"
#include "codegen/Target/X86/KernelConfig.h"
#include "dialects/Codegen/IR/CodegenDialect.h"
#include "dialects/Graph/Transforms/Passes.h"
#include "passes/Autodiff/GradientBuilder.h"
#include "passes/Autodiff/Passes.h"
#include "passes/Autodiff/Training.h"
#include "passes/Quantization/Passes.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

#include <limits>
#include <mutex>

using namespace mlir;

namespace dlc {

void buildGraphPipeline(OpPassManager &pm, const GraphPipelineOptions &options) {
  // Training: parameters become arguments before anything can fold them.
  if (options.training)
    pm.addPass(autodiff::createParamsToArgs(options.training->frozen));
  else if (!options.gradOf.empty() && options.gradInitializers)
    pm.addPass(autodiff::createParamsToArgs(std::set<std::string>()));
  // Fold what the importer left (shape chains, identities, constant math).
  pm.addPass(createCanonicalizerPass());
  // Autodiff rules exist only for primitives: differentiating builds expand everything now.
  bool differentiates = options.training || !options.gradOf.empty();
  // Exporters' MatMul-Softmax-MatMul chains -> dlc_graph.attention (inference only).
  if (!differentiates)
    pm.addPass(graph::createGraphRaiseAttention());
  // Matmuls and gemms of dequantized 8-bit operands -> integer products (inference).
  if (!differentiates) {
    quantization::QuantizeContractionsOptions quantize;
    quantize.report = options.report;
    pm.addPass(quantization::createQuantizeContractions(quantize));
  }
  // Composite ops (gemm, softmax, norms, gelu, clip, pools) -> primitives; inference keeps
  // attention, rnn, gru and lstm whole until the linalg phase.
  graph::GraphDecomposeOptions decompose;
  decompose.keepRegions = !differentiates;
  pm.addPass(graph::createGraphDecompose(decompose));
  // Constant parameters of the expanded ops (e.g. BatchNorm scale) fold now.
  pm.addPass(createCanonicalizerPass());
  // Loss, gradients and optimizer update as one step (differentiating the primitives,
  // before inference-only rewrites).
  if (options.training) {
    pm.addPass(autodiff::createTrainingStep(*options.training));
    pm.addPass(createCanonicalizerPass());
  }
  // Gradients, differentiating the primitives (before inference-only rewrites).
  if (!options.gradOf.empty()) {
    autodiff::AutodiffOptions autodiffOptions;
    autodiffOptions.loss = options.gradOf;
    pm.addNestedPass<func::FuncOp>(autodiff::createAutodiff(autodiffOptions));
    pm.addPass(createCanonicalizerPass());
  }
  // Inference BatchNorm after a conv (now a per-channel mul + add) goes into its weights.
  pm.addPass(graph::createGraphFoldConvAffine());
  // --precision=bf16: matmul and conv operands rounded to bf16 (the folded weights too).
  if (options.bf16) {
    pm.addPass(quantization::createBf16Contractions());
    pm.addPass(createCanonicalizerPass());
  }
  // Convolutions in NHWC; the layout transposes cancel between consecutive convs.
  pm.addPass(graph::createGraphChannelsLast());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createSymbolDCEPass());
}

void buildLinalgPipeline(OpPassManager &pm, const x86::TargetOptions &target,
                         uint64_t maxTensorBytes, bool bf16Weights, bool gpu) {
  // The composite regions the graph phase kept whole (attention, recurrences) -> primitives,
  // then the graph phase's cleanup over what they became (only when there were any).
  graph::GraphDecomposeOptions decompose;
  decompose.cleanup = true;
  decompose.maxTensorBytes = maxTensorBytes;
  pm.addPass(graph::createGraphDecompose(decompose));
  // One parameterized pattern per op family; weights packed for the target's tiles.
  conversion::ConvertGraphToLinalgOptions lowering;
  x86::CpuTarget cpu = x86::CpuTarget::resolve(target.cpu);
  lowering.packBlock = x86::packedWeightColumns(cpu);
  // GPU: stride-1 convolutions with rows of at least a tensor-core tile (16 output pixels,
  // i.e. images of 16x16 and more) stay direct and take the tensor cores as implicit
  // GEMMs; smaller ones (and strided ones) go through im2col.
  lowering.im2colPixels = gpu ? cuda::kIm2colPixels : x86::im2colConvPixels(cpu);
  lowering.bf16Weights = bf16Weights;
  // bf16 matmuls in vdpbf16ps's form where the CPU has it (or DLC_BF16_DOT_FORM=dot).
  lowering.bf16DotLanes =
      target.bf16DotForm == "dot" || (cpu.bf16 && target.bf16DotForm != "none") ? 16 : 0;
  // 8-bit products: VNNI's u8 x s8 in 4-byte groups, else AVX2's exact i16 pairs.
  lowering.int8DotLanes = cpu.vnni ? 16 : cpu.vectorBits >= 256 ? 8 : 0;
  lowering.int8DotGroup = cpu.vnni ? 4 : 2;
  if (target.int8DotForm == "vnni" || target.int8DotForm == "pairs") {
    bool vnni = target.int8DotForm == "vnni";
    lowering.int8DotLanes = vnni ? 16 : 8;
    lowering.int8DotGroup = vnni ? 4 : 2;
  } else if (target.int8DotForm == "none") {
    lowering.int8DotLanes = 0;
  }
  pm.addPass(conversion::createConvertGraphToLinalg(lowering));
  // Dynamic dims (--dims): sizes read from intermediate results are read from the inputs
  // instead, so each result keeps its one use and fuses into its consumer's tile.
  pm.addPass(memref::createResolveRankedShapeTypeResultDimsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void buildLLVMPipeline(OpPassManager &pm, const x86::TargetOptions &target) {
  x86::buildCpuLoweringPipeline(pm, target);
}

void registerDialects(DialectRegistry &registry) {
  registry.insert<graph::GraphDialect, codegen::DlcDialect, x86::X86Dialect>();
  autodiff::registerGradientRules(registry);
  registerAllDialects(registry);
  registerAllExtensions(registry);
  // The kernels of a GPU module are translated to LLVM IR (for NVPTX) inside the compiler.
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

namespace {
struct CudaPipelineOptions : PassPipelineOptions<CudaPipelineOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("the GPU architecture (sm_80 ... sm_90a)"),
                           llvm::cl::init("sm_80")};
};
} // namespace

void registerPassesAndPipelines() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerAllPasses();
    graph::registerGraphPasses();
    autodiff::registerAutodiffPasses();
    quantization::registerQuantizationPasses();
    conversion::registerGraphToLinalgPasses();
    codegen::registerTransformsPasses();
    x86::registerX86Passes();
    cuda::registerCUDAPasses();
    PassPipelineRegistration<>("dlc-graph-pipeline", "dlc graph phase (canonicalize, decompose)",
                               [](OpPassManager &pm) { buildGraphPipeline(pm); });
    PassPipelineRegistration<>("dlc-linalg-pipeline", "dlc lowering of dlc_graph to linalg",
                               [](OpPassManager &pm) { buildLinalgPipeline(pm); });
    PassPipelineRegistration<CudaPipelineOptions>(
        "dlc-cuda-pipeline", "dlc lowering of linalg to PTX kernels and host code",
        [](OpPassManager &pm, const CudaPipelineOptions &options) {
          cuda::TargetOptions target;
          if (std::optional<cuda::GpuTarget> gpu = cuda::GpuTarget::parse(options.chip))
            target.gpu = *gpu;
          else
            llvm::errs() << "dlc-cuda-pipeline: unknown chip '" << options.chip
                         << "' (expected " << cuda::GpuTarget::supported() << "); using sm_80\n";
          cuda::buildCudaLoweringPipeline(pm, target);
        });
    PassPipelineRegistration<>("dlc-llvm-pipeline", "dlc lowering of linalg to LLVM (host CPU)",
                               [](OpPassManager &pm) { buildLLVMPipeline(pm, {}); });
  });
}

} // namespace dlc
