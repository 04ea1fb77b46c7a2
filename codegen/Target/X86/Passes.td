// CPU (x86) target passes.
#ifndef DLC_X86_PASSES_TD
#define DLC_X86_PASSES_TD

include "mlir/Pass/PassBase.td"

def PrepareABI : Pass<"dlc-prepare-abi", "::mlir::ModuleOp"> {
  let summary = "Give the model function the runtime ABI: caller-owned buffers, DPS outputs";
  let description = [{
    Rewrites `func.func @main_graph(tensors) -> tensors` into
    `func.func @dlc_main(memref inputs..., memref outputs...)`: inputs enter
    as `bufferization.to_tensor restrict`, results are written with
    `bufferization.materialize_in_destination` into the output buffers, so
    one-shot bufferization computes in place without copies. Records the I/O
    descriptor text (see runtime/dlc_abi.h) as the module attribute
    `dlc.descriptor`. With `dlc_graph.runtime_check`s, dlc_main returns an i32
    status: 0, or the code (1, 2, ... in walk order) of the first check that
    failed, whose message the descriptor's `error <code> <message>` record holds.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::tensor::TensorDialect"];
}

def PackEntryArguments : Pass<"dlc-pack-entry-arguments", "::mlir::ModuleOp"> {
  let summary = "dlc_main takes the buffer table (void **) instead of one memref per tensor";
  let description = [{
    Runs before convert-func-to-llvm. Replaces `dlc_main`'s memref arguments
    (static, strided) by one leading `!llvm.ptr`, the runtime's buffer table:
    each buffer's descriptor is built at entry from the pointer loaded from
    its slot. A model with 10,000 outputs then has a two-argument function, so
    the signature conversion (whose argument replacement queries op order
    after every insertion: quadratic) never sees 10,000 memrefs. Marks
    the module with `dlc.packed_buffers` for dlc-add-entry-point.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def AddEntryPoint : Pass<"dlc-add-entry-point", "::mlir::ModuleOp"> {
  let summary = "Emit the dlc_module_entry wrapper and dlc_module_descriptor (LLVM dialect)";
  let description = [{
    Runs after lowering to the LLVM dialect with bare-pointer memrefs. Adds
    `dlc_module_entry(void **buffers, void *ctx) -> i32`, which unpacks the
    buffer array and calls `dlc_main`, and the NUL-terminated global
    `dlc_module_descriptor` holding the module's `dlc.descriptor`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def StridedCopyToLinalg : Pass<"dlc-strided-copy-to-linalg"> {
  let summary = "Rewrite memref.copy between non-contiguous buffers as loops";
  let description = [{
    `finalize-memref-to-llvm` turns a copy of strided memrefs into a call to
    `memrefCopy` from MLIR's runner-utils library, which neither compiled
    models nor the JIT link. A static copy whose innermost dim is contiguous
    on both sides becomes loops of vector loads and stores along that dim;
    any other becomes linalg.copy (plain loops).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect", "::mlir::arith::ArithDialect"];
}

def ConstantsToGlobals : Pass<"dlc-constants-to-globals", "::mlir::ModuleOp"> {
  let summary = "Tensor constants as private constant memref.globals, before bufferization";
  let description = [{
    What one-shot-bufferize does to a tensor `arith.constant`
    (`memref.get_global` of a 64-byte-aligned private constant global, read
    only), done first in linear time: bufferization looks each constant's
    value up by scanning every global of the module, which took minutes for a
    chain of 100,000 Adds with their own constants. Identical values share one
    global.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect"];
}

def FlattenConstants : Pass<"dlc-flatten-constants"> {
  let summary = "Store multi-dimensional tensor constants as 1-D data plus a reshape";
  let description = [{
    A rank-N `arith.constant` becomes a rank-1 constant and a
    `tensor.expand_shape`. Bufferized, that is one flat `memref.global` and
    a free view; in LLVM, one flat data array instead of millions of nested
    constant arrays (which made translating ResNet-18's weights take
    seconds).
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def PadToHalo : Pass<"dlc-pad-to-halo"> {
  let summary = "Rewrite tensor.pad as a filled halo with the source inserted in place";
  let description = [{
    A static constant `tensor.pad` becomes fills of its halo slabs (each
    element once) and a `tensor.insert_slice` of the source into the
    interior. With `eliminate-empty-tensors` before bufferization the
    source's producer then writes into the padded buffer directly: no copy
    and no fill of the interior for every padded convolution input.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"];
}

def IsolateOutputChains : Pass<"dlc-isolate-output-chains", "::mlir::func::FuncOp"> {
  let summary = "An output's chain of in-place tensors is not shared with other writers";
  let description = [{
    `eliminate-empty-tensors` computes each output in the caller's buffer: the
    `tensor.empty` at the root of its chain (the ops that wrote it in place)
    becomes a `to_tensor restrict` of the output buffer, a promise that the
    buffer is reached through that chain alone. Values CSE shared between
    chains break it: two ReduceMax ops over all axes accumulated from one -inf
    fill, two Concats with the same first input shared that first insert, and
    one output came back holding the other's values. This pass runs right
    before `eliminate-empty-tensors` and
    1. gives each user of a fresh tensor (empty, or filled with a constant:
       cheap to remake) its own copy;
    2. keeps any other chain with a link that another op writes in place out
       of the output buffer (its root becomes `bufferization.alloc_tensor`;
       the output is copied at the end).
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::tensor::TensorDialect"];
}

def PrivatizeParallelBuffers : Pass<"dlc-privatize-parallel-buffers", "::mlir::func::FuncOp"> {
  let summary = "Empty tensors used inside a parallel loop are made inside it";
  let description = [{
    A `tensor.empty` defined outside a loop marked `dlc.parallel` and used as a
    destination inside it (the partial sums of a peeled reduction tile, one
    empty shared by CSE with other ops) bufferizes to one allocation outside
    the loop. The runtime's threads run the loop's iterations at once, so that
    buffer is a data race (MaxViT's softmax gave different answers run to run
    at 2 threads). Each such use gets its own copy of the empty tensor, made
    right before the user, so it bufferizes inside the loop: one buffer per
    iteration, from the runtime allocator's per-thread cache. Runs right
    before bufferization (CSE would merge the copies back).
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def PlanArena : Pass<"dlc-plan-arena", "::mlir::func::FuncOp"> {
  let summary = "Intermediate buffers as views of one arena, reused by liveness";
  let description = [{
    Every static top-level `memref.alloc` of a function becomes a
    `memref.view` into one 64-byte aligned arena allocated at the top of the
    function and freed at its end. A buffer lives from its allocation to the
    last top-level op that uses it or any view of it (buffer-deallocation puts
    the frees at the end of the function, which kept every intermediate alive
    for the whole run); buffers whose spans do not intersect share memory,
    placed largest first at the lowest free offset. The working set of a model
    shrinks to its peak of live intermediates, so it stays in the caches, and
    one block per run comes from the runtime allocator. Buffers returned,
    passed to calls or allocated inside loops stay plain allocations.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect"];
  let options = [Option<"dumpConfig", "dump-config", "bool", /*default=*/"false",
                        "Print the arena's size and what is live at its peak to stderr (dlc compile --dump-config)">];
}

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

def ReadPaddedInterior : Pass<"dlc-read-padded-interior", "::mlir::func::FuncOp"> {
  let summary = "Later readers of a value computed in place in a padded buffer read its interior";
  let description = [{
    After `eliminate-empty-tensors`, a producer whose result is inserted
    into a padded tensor computes in that tensor's interior, and the
    insertion is a no-op; one-shot bufferization still treats it as a write
    and copies the value out and back when it is read again later (a
    ResNet residual). This pass makes those later readers read an
    `extract_slice` of the padded tensor instead. Run it right before
    `one-shot-bufferize` (folding would undo it).
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def LowerGlobalState : Pass<"dlc-lower-global-state", "::mlir::ModuleOp"> {
  let summary = "ml_program globals (a training step's state) as memref globals";
  let description = [{
    Right before bufferization: `ml_program.global` becomes a mutable
    `memref.global`, `global_load` a read-only `to_tensor` of it, and
    `global_store` a `materialize_in_destination` into it, which bufferization
    knows reads the stored value.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::bufferization::BufferizationDialect"];
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
    sums. Everything else is vectorized along its innermost dimension. Tile
    sizes come from `KernelConfig.cpp`; an op whose tiling or vectorization
    fails stays as it is and later becomes scalar loops, never an error.
  }];
  let options = [Option<"dumpConfig", "dump-config", "bool", /*default=*/"false",
                        "Print each op's kernel configuration to stderr (dlc compile --dump-config)">,
                 Option<"recordConfig", "record-config", "bool", /*default=*/"false",
                        "Record each kernel as the function's `dlc.kernels` attribute: "
                        "[{node, epilogue, config}] in program order (dlc verify)">,
                 Option<"injectFault", "inject-fault", "std::string", /*default=*/"\"\"",
                        "Testing only: 'wrong-epilogue' adds 1 to every fused epilogue's "
                        "result (dlc verify's test of a broken build)">];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect",
                           "::mlir::tensor::TensorDialect", "::mlir::linalg::LinalgDialect"];
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

def FuseElementwise : Pass<"dlc-fuse-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Fuse elementwise linalg producers into elementwise consumers and plain reductions";
  let description = [{
    Upstream elementwise fusion, restricted to all-parallel consumers and
    one-input reductions (sum of squares): fusing into a contraction would
    hide it from KernelConfig (a LayerNorm fused into the following MatMul's
    body is no longer a matmul, and each element would be recomputed K times).
    A producer with several users fuses only when it is a few arith ops over a
    full and a broadcast tensor (a normalization's x - mean[row]): recomputing
    it in each user is cheaper than writing and re-reading it.
    Reshapes are propagated through consumers toward the contraction's,
    convolution's or reduction's shape. The rewrites are bounded: a pattern
    cycle costs fusion, not the model; `strict` fails the pass instead (tests).
  }];
  let options = [
    Option<"strict", "strict", "bool", /*default=*/"false",
           "Fail when the rewrites do not converge within their budget">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
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
