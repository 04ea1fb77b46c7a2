// CPU (x86) target passes: kernels (tiling, vectorization), math, caches, threads.
#ifndef DLC_X86_PASSES_TD
#define DLC_X86_PASSES_TD

include "mlir/Pass/PassBase.td"

def StreamingStores : Pass<"dlc-streaming-stores", "::mlir::func::FuncOp"> {
  let summary = "Non-temporal stores for whole cache lines written to large outputs";
  let description = [{
    A vector write of whole 64-byte lines along the contiguous innermost dim
    of a function output of 4 MiB or more becomes a non-temporal
    `vector.store` (no read-for-ownership of the line, no eviction of the
    working set) when its address is 64-byte aligned at run time, and stays a
    normal write otherwise (the ABI does not require aligned buffers). An
    `sfence` ends each iteration of the top-level loop holding such stores, so
    every thread fences its own share of a parallel loop. Runs on bufferized
    IR, before parallel loops are outlined.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect", "::mlir::arith::ArithDialect"];
}

def PrefetchStreams : Pass<"dlc-prefetch-streams", "::mlir::func::FuncOp"> {
  let summary = "Software prefetch ahead of whole-line reads of large inputs";
  let description = [{
    A vector read of whole 64-byte lines along the contiguous innermost dim
    of a function input of 4 MiB or more, inside a loop, gets one prefetch
    per line 8 KiB ahead of it. The hardware prefetchers alone leave a
    compute-heavy pass over such an input (gelu before a LayerNorm) waiting
    on memory. Runs on bufferized IR, before parallel loops are outlined.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def SelectKernels : Pass<"dlc-cpu-select-kernels", "::mlir::func::FuncOp"> {
  let summary = "Choose each linalg op's kernel for the target CPU (#dlc.kernel_config)";
  let description = [{
    Resolves the target (`cpu`: ISA and vector width, registers, caches, cores;
    CpuTarget.cpp) and records on every linalg op that will be tiled on its own
    a `#dlc.kernel_config` (KernelConfig.cpp decides: kind, register tiles,
    loop order, the loop the threads split, partial sums, a fused epilogue).
    Normalization chains whose root gets a `row_block` are then tiled by blocks
    of rows (RowBlocks.cpp, reading the attributes), trailing reduction loops
    that are contiguous in every operand are collapsed into one, and every op
    is chosen again on its final shape. dlc-cpu-tile-vectorize, right after,
    only reads the attributes.
  }];
  let options = [Option<"cpu", "cpu", "std::string", /*default=*/"\"host\"",
                        "host, x86-64-v3, x86-64-v4 or an LLVM x86 CPU name">,
                 Option<"dumpTarget", "dump-target", "bool", /*default=*/"false",
                        "Print the resolved target to stderr (dlc compile --dump-config)">];
  let dependentDialects = ["::dlc::codegen::DlcDialect", "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect", "::mlir::linalg::LinalgDialect"];
}

def TileAndVectorize : Pass<"dlc-cpu-tile-vectorize", "::mlir::func::FuncOp"> {
  let summary = "Tile linalg ops to register-sized blocks and vectorize them (x86)";
  let description = [{
    Contractions (matmul, batched matmul, packed-weight matmuls) get a
    register tile (RM x RN, the init fused into the tile, K stepped by one,
    accumulators hoisted into registers: CPU-GEMM-NOTES variant b).
    Implicit-GEMM convolutions are tiled to TOW pixels x one channel block
    with kh/kw tiles of 1 folded away (CONV-NOTES route c); named
    convolutions and pools to one output row, decomposed to 1-D and
    vectorized. An elementwise op that is a kernel's only user is its
    epilogue: tiled with the kernel's tile, the kernel fused in. Chains
    feeding a per-row statistic (normalizations, softmax) are first tiled
    by blocks of rows (RowBlocks.cpp); row reductions keep vector partial
    sums. Everything else is vectorized along its innermost dimension. Every
    choice is read from the op's `#dlc.kernel_config` (dlc-cpu-select-kernels
    writes them; the attributes are removed here); an op whose tiling or
    vectorization fails stays as it is and later becomes scalar loops, never an
    error. `cpu` picks the vector lowerings (AVX2: 8x8 transposes; with
    AVX-512 VNNI, u8 x s8 contractions in 4-byte K groups become
    `dlc_x86.dot_u8s8`, DotProducts.cpp).
  }];
  let options = [Option<"dumpConfig", "dump-config", "bool", /*default=*/"false",
                        "Print each op's kernel configuration to stderr (dlc compile --dump-config)">,
                 Option<"recordConfig", "record-config", "bool", /*default=*/"false",
                        "Record each kernel as the function's `dlc.kernels` attribute: "
                        "[{node, epilogue, config}] in program order (dlc verify)">,
                 Option<"injectFault", "inject-fault", "std::string", /*default=*/"\"\"",
                        "Testing only: 'wrong-epilogue' adds 1 to every fused epilogue's "
                        "result (dlc verify's test of a broken build)">,
                 Option<"cpu", "cpu", "std::string", /*default=*/"\"host\"",
                        "the target CPU, as for dlc-cpu-select-kernels">];
  // LLVM: AVX2's 8x8 transposes blend with inline assembly.
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect",
                           "::mlir::tensor::TensorDialect", "::mlir::linalg::LinalgDialect",
                           "::mlir::LLVM::LLVMDialect", "::dlc::x86::X86Dialect"];
}

def LowerIntrinsics : Pass<"dlc-x86-lower-intrinsics", "::mlir::func::FuncOp"> {
  let summary = "dlc_x86 ops to their LLVM intrinsics, once buffers are final";
  let description = [{
    Each `dlc_x86.dot_u8s8` becomes a call of `llvm.x86.avx512.vpdpbusd.512`,
    each `dlc_x86.dot_i16` one of `llvm.x86.avx2.pmadd.wd` plus the accumulator,
    and the weight tile either reads becomes one vector load (a flattened
    transfer). Runs after buffer deallocation, which rejects intrinsic calls
    (their memory effects are unknown to it). For a `cpu` without AVX512-BF16,
    f32 <-> bf16 conversions become integer arithmetic (round to nearest even):
    LLVM would otherwise call `__truncsfbf2`, which neither the JIT nor an AOT
    library linked on Debian 12 (libgcc 12) can resolve.
  }];
  let options = [Option<"cpu", "cpu", "std::string", /*default=*/"\"host\"",
                        "the target CPU (host, x86-64-v3, x86-64-v4, or an LLVM CPU name)">];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect", "::mlir::arith::ArithDialect"];
}

def MathApproximation : Pass<"dlc-math-approximation"> {
  let summary = "Replace f32 transcendental math ops by polynomial approximations";
  let description = [{
    exp, log, tanh, erf, ... on f32 scalars and vectors become arithmetic (a
    few ulp of error), so vector loops never call libm (ELTWISE-NOTES.md);
    log scales denormal inputs first. sin and cos stay libm calls (the
    polynomial's range reduction fails for large arguments). Powers with constant exponents become
    multiplications or square roots; other powers and other element types
    keep their libm calls. max/min against a constant (ReLU, Clip) become
    compare + select, one vmaxps/vminps on x86 (NaN stays NaN).
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect", "::mlir::math::MathDialect"];
}

def WidenLongSums : Pass<"dlc-widen-long-sums", "::mlir::func::FuncOp"> {
  let summary = "Accumulate long f32 sums in f64";
  let description = [{
    A reduction whose body adds an f32 value into its accumulator (a sum, a
    mean, a sum of squares, after fusion of its producers), that adds at
    least 8192 values into each result element, and that tiling will not give
    vector partial sums across one row (KernelConfig's getsPartialSums: those
    add only about sqrt(n) values each) accumulates in f64 and is truncated
    to f32 after. An f32 sum's rounding grows with the values each
    partial sum adds; a mean over 11,088 values, as a LayerNorm of a constant
    padded region divides x - mean by sqrt(eps), was off by 3 % where ONNX
    Runtime is exact. Contractions and convolutions are left alone.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def OutlineParallelLoops : Pass<"dlc-outline-parallel-loops", "::mlir::ModuleOp"> {
  let summary = "Outline loops marked dlc.parallel into bodies the runtime's threads split";
  let description = [{
    Runs on buffers and scf loops. Gives `dlc_main` a trailing `!llvm.ptr`
    argument (the runtime context of dlc_abi.h; module attribute
    `dlc.runtime_ctx_arg`) and turns each `scf.for` marked `dlc.parallel` with
    static bounds into `func.call @dlc_parallel_body_N(captures..., 0, trips,
    ctx)`, the body running iterations [begin, end). Constants, globals and
    views are re-created inside; other captures must be identity-layout static
    memrefs or scalars, else the loop stays sequential.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect"];
}
def LowerParallelCalls : Pass<"dlc-lower-parallel-calls", "::mlir::ModuleOp"> {
  let summary = "Dispatch outlined parallel bodies through dlc_runtime_parallel_for (LLVM dialect)";
  let description = [{
    Each call of a `dlc_parallel_body_N` becomes a stack closure holding its
    captures and `dlc_runtime_parallel_for(ctx, end - begin, chunk, closure)`,
    where the generated `dlc_parallel_body_N_chunk(closure, begin, end)`
    unpacks the closure and calls the body.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif
