// x86 CPU target: kernel passes, the lowering pipeline to LLVM and object emission.
#ifndef DLC_CODEGEN_TARGET_X86_PASSES_H
#define DLC_CODEGEN_TARGET_X86_PASSES_H

#include "codegen/Target/X86/IR/X86Dialect.h"
#include "codegen/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlir {
class RewritePatternSet;
class PatternBenefit;
} // namespace mlir

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace dlc::x86 {
using codegen::kParallelLoopAttr;
using codegen::kRuntimeCtxArgAttr;

#define GEN_PASS_DECL
#include "codegen/Target/X86/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "codegen/Target/X86/Passes.h.inc"

/// Integer dot products (DotProducts.cpp), per accumulator row and column block: with
/// AVX-512 VNNI (`vnni`), vector.contract of u8 x s8 in 4-byte K groups and 16 columns ->
/// dlc_x86.dot_u8s8; always, i16 x i16 in pairs and 8 columns -> dlc_x86.dot_i16 (AVX2);
/// with AVX512-BF16 (`bf16`), bf16 x bf16 in pairs and 16 f32 columns -> dlc_x86.dot_bf16.
void populateDotProductPatterns(mlir::RewritePatternSet &patterns, bool vnni, bool bf16,
                                mlir::PatternBenefit benefit);

/// Prefix of the functions that hold an outlined parallel loop body.
constexpr const char *kParallelBodyPrefix = "dlc_parallel_body_";

/// Target description for code generation.
struct TargetOptions {
  std::string cpu = "host"; // "host", "x86-64-v3", "x86-64-v4", or any LLVM CPU name
  int optLevel = 3;
  /// Print each op's kernel configuration (tiles, thread split) to stderr.
  bool dumpConfig = false;
  /// Stop after kernel selection, the kernels recorded as the function's
  /// `dlc.kernels` attribute (dlc verify).
  bool untilKernels = false;
  /// Testing only: a fault to inject: "wrong-epilogue" (dlc-cpu-tile-vectorize adds 1 to
  /// fused epilogues' results) or "shared-scratch" (no dlc-privatize-parallel-buffers).
  std::string injectFault;
  /// Testing only: the form of 8-bit weights, whatever the CPU has: "vnni" (4-byte K groups,
  /// 16 columns: where the CPU lacks VNNI, the dot products stay vector.contracts that LLVM
  /// lowers generically, so VNNI's packing and compensation run on any x86), "pairs" (AVX2's
  /// i16 pairs), "none" (the widening generic); "" the CPU's own. DLC_INT8_DOT_FORM sets it.
  std::string int8DotForm;
  /// Testing only: "dot" packs bf16 matmul weights in vdpbf16ps's form whatever the CPU
  /// has (without AVX512-BF16 the products stay vector.contracts that LLVM lowers
  /// generically), "none" never; "" the CPU's own. DLC_BF16_DOT_FORM sets it.
  std::string bf16DotForm;
};

/// linalg on tensors -> LLVM dialect with the runtime entry point.
void buildCpuLoweringPipeline(mlir::OpPassManager &pm, const TargetOptions &options);
/// Its last part, the host code of any target: bufferized loops, vectors and memrefs ->
/// LLVM dialect, dlc_main taking the buffer table, and the runtime entry point.
void buildCpuLLVMTail(mlir::OpPassManager &pm, const TargetOptions &options);

/// Resolves "host" to the host CPU name and feature string.
void resolveCpu(const TargetOptions &options, std::string &cpu, std::string &features);

/// LLVM's optimization pipeline at the options' level for `tm` (null: a target machine
/// for the options' CPU), then splitLargeBlocks and, in a process that carries
/// ThreadSanitizer's runtime, TSan's instrumentation: what the AOT and JIT paths both run.
llvm::Error optimizeModule(llvm::Module &llmod, const TargetOptions &options,
                           llvm::TargetMachine *tm = nullptr);

/// Splits every basic block of `llmod` longer than a few thousand instructions into
/// blocks joined by unconditional branches, so that instruction selection (quadratic
/// in a block's size) stays linear in the module's size, and marks a function it split
/// `optnone` (fast selection, no machine scheduling: long chains of vector math are
/// still superlinear there). optimizeModule runs it last.
void splitLargeBlocks(llvm::Module &llmod);

/// LLVM dialect module -> native object file bytes for the target.
mlir::LogicalResult emitObject(mlir::ModuleOp module, const TargetOptions &options,
                               std::string &object, std::string &error);
/// The same as `partitions` objects (split by functions), optimized and compiled
/// on that many threads; linked together they are the module.
mlir::LogicalResult emitObjects(mlir::ModuleOp module, const TargetOptions &options,
                                unsigned partitions, std::vector<std::string> &objects,
                                std::string &error);
/// LLVM dialect module -> textual LLVM IR (optimized at the option's level).
mlir::LogicalResult emitLLVMIR(mlir::ModuleOp module, const TargetOptions &options,
                               std::string &text, std::string &error);
} // namespace dlc::x86

#endif
