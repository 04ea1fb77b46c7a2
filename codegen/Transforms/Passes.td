// Target-independent codegen passes: the runtime ABI, constants, buffers and the arena,
// fusion of elementwise ops. Any target's pipeline may use them.
#ifndef DLC_CODEGEN_TRANSFORMS_PASSES_TD
#define DLC_CODEGEN_TRANSFORMS_PASSES_TD

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

#endif
