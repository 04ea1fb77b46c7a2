// The CPU lowering pipeline: linalg on tensors -> bufferized loops -> LLVM dialect + entry point.
#include "codegen/Target/X86/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;

namespace dlc::x86 {

void buildCpuLoweringPipeline(OpPassManager &pm, const TargetOptions &options) {
  std::string tileVectorize = "func.func(dlc-cpu-tile-vectorize{dump-config=" +
                              std::string(options.dumpConfig ? "true" : "false") +
                              " record-config=" + (options.untilKernels ? "true" : "false") +
                              (options.injectFault.empty()
                                   ? std::string()
                                   : " inject-fault=" + options.injectFault) +
                              "})";
  // Each step with the reason it is there. Textual pass names keep this list
  // readable and stable across MLIR's C++ API renames.
  const char *steps[] = {
      // Fuse producer/consumer elementwise generics into single loop nests.
      "func.func(dlc-fuse-elementwise)",
      "canonicalize", "cse",
      // Long sums that get no vector partial sums accumulate in f64 (rounding grows with n).
      "func.func(dlc-widen-long-sums)",
      // Caller-owned input/output buffers, outputs computed in place (DPS).
      "dlc-prepare-abi",
      // Padded inputs (convolutions, pools): zero only the halo.
      "func.func(dlc-pad-to-halo)",
      // Register tiles and vectors for every linalg op (KernelConfig.cpp decides).
      tileVectorize.c_str(),
      // Polynomial exp/tanh/erf/...: no libm calls inside vector loops.
      "func.func(dlc-math-approximation)",
      "canonicalize", "cse",
      // Weights as flat globals (after canonicalization, which would undo it).
      "func.func(dlc-flatten-constants)",
      // Output chains that CSE made share a link with another writer are kept apart...
      "func.func(dlc-isolate-output-chains)",
      // ... so each output is computed in its buffer, and producers of padded tensors
      // write into the padded buffer's interior.
      "eliminate-empty-tensors",
      // ... and a residual read of such a producer's result reads the padded buffer.
      "func.func(dlc-read-padded-interior)",
      // A training step's parameters and optimizer state: mutable memref globals.
      "dlc-lower-global-state",
      // A parallel loop's scratch tensors are made inside it: one buffer per thread.
      "func.func(dlc-privatize-parallel-buffers)",
      // Constants -> globals in O(n) (bufferization's own lookup is O(n) per constant).
      "dlc-constants-to-globals",
      // Tensors -> buffers; intermediates become allocations.
      "one-shot-bufferize",
      "canonicalize", "cse",
      // Free every intermediate; hoist what can be hoisted.
      "func.func(buffer-hoisting)",
      "buffer-deallocation-pipeline",
      "convert-bufferization-to-memref",
      // Intermediates share one arena by liveness (frees were all at the end).
      options.dumpConfig ? "func.func(dlc-plan-arena{dump-config=true})"
                         : "func.func(dlc-plan-arena)",
      // Large outputs written in whole cache lines bypass the caches.
      "func.func(dlc-streaming-stores)",
      // ... and large inputs read that way are prefetched ahead.
      "func.func(dlc-prefetch-streams)",
      // Outer tile loops of parallel dims -> bodies the runtime's threads split.
      "dlc-outline-parallel-loops",
      // Loops; LLVM's vectorizer handles the inner loops for now.
      // Vector transfers to loads/stores; full unroll avoids per-iteration allocas.
      "func.func(convert-vector-to-scf{full-unroll=true})",
      "func.func(dlc-strided-copy-to-linalg)",
      "func.func(convert-linalg-to-loops)",
      "convert-scf-to-cf",
      // expand-strided-metadata must precede lower-affine (TOOLCHAIN.md 2.2).
      "expand-strided-metadata", "lower-affine",
      "convert-math-to-funcs{convert-ctlz=0}",
      // Math: LLVM intrinsics where they exist, libm calls for the rest (f64 erf, tan,
      // ...), unrolled from vectors while vector ops can still be lowered.
      "convert-math-to-llvm", "convert-math-to-libm",
      "convert-vector-to-llvm",
      // Intermediates through the runtime allocator (dlc_abi.h): no page faults per run.
      "finalize-memref-to-llvm{use-generic-functions=1}",
      "convert-arith-to-llvm", "convert-index-to-llvm",
      // dlc_main takes the buffer table: no signature of 10,000 memrefs to convert.
      "dlc-pack-entry-arguments",
      // Bare pointers: the entry wrapper passes plain buffer addresses.
      "convert-func-to-llvm{use-bare-ptr-memref-call-conv=1}",
      "convert-cf-to-llvm", "convert-ub-to-llvm",
      "reconcile-unrealized-casts",
      "dlc-lower-parallel-calls",
      "dlc-add-entry-point",
  };
  for (const char *step : steps) {
    // Testing only: threads share a parallel loop's scratch buffers (MaxViT's race, which
    // scripts/test --tsan must catch).
    if (options.injectFault == "shared-scratch" &&
        StringRef(step) == "func.func(dlc-privatize-parallel-buffers)")
      continue;
    if (failed(parsePassPipeline(step, pm)))
      llvm::report_fatal_error(llvm::Twine("dlc: bad pipeline step ") + step);
    if (options.untilKernels && step == tileVectorize.c_str())
      return;
  }
}

} // namespace dlc::x86
