// CUDA (NVIDIA GPU) target passes: kernel schedules, launches, and the host side.
#ifndef DLC_CUDA_PASSES_TD
#define DLC_CUDA_PASSES_TD

include "mlir/Pass/PassBase.td"

def MapToThreads : Pass<"dlc-cuda-map-to-threads", "::mlir::func::FuncOp"> {
  let summary = "Thread-mapped schedule: each linalg op as block and thread foralls";
  let description = [{
    Every linalg op on buffers not yet inside a kernel (and every memref.copy, as a
    linalg.copy) becomes a kernel: an `scf.forall` over blocks (`#gpu.block<x>`)
    holding an `scf.forall` over `block-threads` threads (`#gpu.thread<x>`). Thread
    `t` of block `b` computes the point `b * block-threads + t` of the op's parallel
    dims, linearized in the order of the output's dims (consecutive threads write
    consecutive elements), with the reduction dims as loops of its own; threads past
    the last point do nothing. This is the level the CPU check runs
    (`dlc-cuda-forall-to-launch` is left out, the foralls become loops).
  }];
  let options = [Option<"blockThreads", "block-threads", "int64_t", /*default=*/"256",
                        "threads per block (a multiple of 32)">,
                 Option<"mma", "mma", "bool", /*default=*/"true",
                        "f32 contractions on tensor cores: 64x64 block tiles of four warps, "
                        "each 2x4 mma tiles of 16x8 (m16n8k8, TF32) accumulated over K in "
                        "steps of 8, written at warp level (masked whole-tile vector reads, "
                        "vector.contract, writes)">,
                 Option<"warpgroups", "warpgroups", "bool", /*default=*/"true",
                        "with mma: tiles per warpgroup instead (one per 64x64 block, "
                        "#gpu.warpgroup<x>, K in steps of 32, operands staged in shared "
                        "memory by dlc-cuda-warpgroup-mma)">,
                 Option<"epilogues", "epilogues", "bool", /*default=*/"true",
                        "with mma: an elementwise op right after a contraction that only it "
                        "reads the output of (bias, activation, residual) is computed on the "
                        "accumulators and written by the contraction's kernel">,
                 Option<"warpReductions", "warp-reductions", "bool", /*default=*/"true",
                        "f32 reductions along one dim of at least 32 elements: one warp per "
                        "output element, 8 warps per block, lanes striding the row with "
                        "vector<32> partials (dlc-cuda-warp-reduce makes them lanes)">];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::gpu::GPUDialect",
                           "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::linalg::LinalgDialect",
                           "::mlir::vector::VectorDialect"];
}

def WarpMma : Pass<"dlc-cuda-warp-mma", "::mlir::func::FuncOp"> {
  let summary = "Warp-level mma tiles -> lanes' fragments and nvgpu.mma.sync (TF32)";
  let description = [{
    In each forall over warps, the tensor-core schedule's whole-tile reads, contractions
    and writes (`dlc.mma_role` a, b, c) become what each of the warp's 32 lanes holds of
    them (mma.sync m16n8k8's fragment layout: A 4 values, B 2, C 2x2), loaded and stored
    by the lane itself (out-of-bounds elements read as 0 and not written), multiplied by
    `nvgpu.mma.sync` with TF32 inputs. The K loop carries the lanes' accumulators.
  }];
  let dependentDialects = ["::mlir::nvgpu::NVGPUDialect", "::mlir::gpu::GPUDialect",
                           "::mlir::vector::VectorDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect"];
}

def WarpReduce : Pass<"dlc-cuda-warp-reduce", "::mlir::func::FuncOp"> {
  let summary = "Warp-level row reductions -> one element per lane and shuffles";
  let description = [{
    In each forall over warps holding the row-reduction schedule (`dlc.warp_role`),
    the vector<32> values become each lane's element: the lanes read (`lanes`)
    load element `lane` of the row (the padding value past its end), elementwise
    ops and the loop over the row carry scalars, `vector.step` is the lane id, the
    partials' `vector.reduction` becomes five `gpu.shuffle xor` steps (every lane gets
    the total), and the warp's `result` store is done by lane 0.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect"];
}

def WarpgroupMma : Pass<"dlc-cuda-warpgroup-mma", "::mlir::func::FuncOp"> {
  let summary = "Warpgroup-level mma tiles -> shared-memory stages and wgmma or ldmatrix + mma.sync";
  let description = [{
    In each forall over warpgroups, the tensor-core schedule's tiles (`dlc.mma_role`
    a, b, c): per K step of 32, the 128 threads copy the A and B tiles (out-of-bounds
    elements as 0) into two shared-memory stages (`memref.alloc` in address space 3,
    which `dlc-cuda-forall-to-launch` makes the kernel's shared buffers) in the
    K-major core-matrix layout without swizzling (8 rows x 16 bytes, contiguous).
    With `wgmma` (sm_90a): after a proxy fence and a barrier, four
    `nvvm.wgmma.mma_async` m64n64k8 (TF32) read them through shared-memory matrix
    descriptors. Without: after a barrier, each of the four warps reads its 32x32
    quarter's fragments with `nvgpu.ldmatrix` (x4 for A's 16x8 tiles, x2 for B's
    K-major 8x8 ones: the core-matrix blocks are exactly mma.sync's TF32 fragments)
    and multiplies with `nvgpu.mma.sync` m16n8k8. Either way each thread's 32
    accumulators are an LLVM struct carried by the K loop, then stored (inside the
    buffer only).
  }];
  let options = [Option<"wgmma", "wgmma", "bool", /*default=*/"true",
                        "wgmma (sm_90a); false: ldmatrix + mma.sync (sm_80 and later)">];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect", "::mlir::LLVM::LLVMDialect",
                           "::mlir::nvgpu::NVGPUDialect", "::mlir::vector::VectorDialect",
                           "::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::affine::AffineDialect"];
}

def TilesToLoops : Pass<"dlc-cuda-tiles-to-loops", "::mlir::func::FuncOp"> {
  let summary = "CPU check: the tensor-core schedules' tiles as stack buffers and loops";
  let description = [{
    For `--cuda-schedule-on-cpu`: in each forall over warps or warpgroups, the
    schedule's whole-tile reads (`dlc.mma_role` a, b, c) fill buffers on the
    function's stack element by element, with the same masking the GPU lowerings use
    (out-of-bounds elements read as 0 and are not written); contractions are loops
    over those buffers and the accumulator tiles' writes store them back. The K
    loops carry the accumulator buffers.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def VectorLoads : Pass<"dlc-cuda-vector-loads", "::mlir::func::FuncOp"> {
  let summary = "A thread's vectors as 1-D loads and stores, 16-byte ones aligned";
  let description = [{
    The thread-mapped schedule's vectors of 4 elements (transfers and arithmetic on
    unit-dim vectors, vector<1x..x4xf32>) become 1-D `vector.load`/`vector.store` and
    arithmetic on vector<4xf32> (a read of one element broadcast over the vector, e.g.
    from a 0-d buffer, becomes a scalar load and a broadcast). Every 16-byte load and
    store gets `alignment = 16`
    (ld.global.v4 / st.global.v4): the schedule vectorizes only where the operands'
    offsets and strides are multiples of 4 elements, and device buffers (cuMemAlloc, the
    arena's 64-byte views) are aligned. GPU only: a CPU module's buffers need not be.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect", "::mlir::memref::MemRefDialect"];
}

def ForallToLaunch : Pass<"dlc-cuda-forall-to-launch", "::mlir::ModuleOp"> {
  let summary = "Block and thread foralls -> gpu.launch, outlined into one gpu.module";
  let description = [{
    Each top-level `scf.forall` mapped to blocks becomes a `gpu.launch` (its trip
    counts the grid; the foralls inside over threads, warps (32 threads) or
    warpgroups (128), which must agree, the block), with the block and thread ids in
    place of the induction variables; allocations in workgroup memory inside become
    the kernel's shared buffers (workgroup attributions, 128-byte aligned). Constants and
    memref views the kernel uses are moved into it, so a kernel's arguments are whole
    buffers (function arguments, allocations, globals) and scalars. Each launch is
    then outlined into the one `gpu.module @dlc_kernels` (targets: `chip`,
    `features`) as `gpu.func @k<N>`, and replaced by a `gpu.launch_func`.
  }];
  let options = [Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
                        "the GPU architecture (sm_80, ..., sm_90a)">,
                 Option<"features", "features", "std::string", /*default=*/"\"+ptx80\"",
                        "LLVM NVPTX features (the PTX ISA version)">];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::NVVM::NVVMDialect",
                           "::mlir::arith::ArithDialect"];
}

def LowerLaunches : Pass<"dlc-cuda-lower-launches", "::mlir::ModuleOp"> {
  let summary = "Host side: kernels embedded as PTX, launches as runtime calls";
  let description = [{
    Runs after `gpu-module-to-binary`. The PTX of `gpu.binary @dlc_kernels`
    becomes the exported string `dlc_cuda_ptx`; with `ptxas` (a path), also the cubin
    it assembles for the chip (`dlc_cuda_cubin`, `dlc_cuda_cubin_size`). The kernel
    table `dlc_cuda_kernels` has a line per kernel in kernel-index order: its name,
    grid `gx,gy,gz`, block `bx,by,bz`, dynamic shared memory bytes and parameter count. In the host
    functions, each `gpu.launch_func` becomes a call of the runtime's
    `dlc_cuda_launch(kernel, gx, gy, gz, bx, by, bz, shared_bytes, params,
    num_params)` with `params` an array of 8-byte kernel parameters (device
    addresses and scalars); an allocation becomes `dlc_cuda_alloc(bytes)` (device
    memory, the session's arena) and its deallocation `dlc_cuda_free`; a global
    (a weight) passed to a kernel becomes `dlc_cuda_constant(host_address,
    bytes)`, its device copy. Anything else that would touch memory on the host
    is an error naming the op: host code only sees device addresses.
  }];
  let options = [Option<"ptxas", "ptxas", "std::string", /*default=*/"\"\"",
                        "the CUDA toolkit's ptxas, to assemble a cubin (empty: PTX only)">];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect"];
}

#endif
