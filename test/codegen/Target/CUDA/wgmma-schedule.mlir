// RUN: dlc-opt %s --dlc-cuda-map-to-threads | FileCheck %s
// RUN: dlc-opt %s --dlc-cuda-map-to-threads --dlc-cuda-warpgroup-mma | FileCheck %s --check-prefix=WGMMA
// RUN: dlc-opt %s --dlc-cuda-map-to-threads --dlc-cuda-warpgroup-mma --convert-linalg-to-loops --dlc-cuda-forall-to-launch="chip=sm_90a" | FileCheck %s --check-prefix=LAUNCH
// RUN: dlc-opt %s --dlc-cuda-map-to-threads --dlc-cuda-tiles-to-loops | FileCheck %s --check-prefix=CPU
// RUN: dlc-opt %s --dlc-cuda-map-to-threads --dlc-cuda-warpgroup-mma="wgmma=false" | FileCheck %s --check-prefix=LDMATRIX
// RUN: dlc-opt %s --dlc-cuda-map-to-threads="warpgroups=false" --canonicalize --dlc-cuda-warp-mma | FileCheck %s --check-prefix=FOLDED

// The warpgroup schedule of a 100x72x40 matmul: 2x2 blocks of one warpgroup, each a 64x64
// accumulator tile read from C (masked), carried over K in steps of 32, written back.
// CHECK-LABEL: func.func @matmul
// CHECK: scf.forall (%[[B:.*]]) in (4) {
// CHECK:   scf.forall (%{{.*}}) in (1) {
// CHECK:     vector.transfer_read %arg2{{.*}} {dlc.mma_role = "c"} : memref<100x72xf32>, vector<64x64xf32>
// CHECK:     scf.for %{{.*}} = %{{.*}} to %c40 step %c32 iter_args({{.*}}) -> (vector<64x64xf32>) {
// CHECK:       vector.transfer_read %arg0{{.*}} {dlc.mma_role = "a"} : memref<100x40xf32>, vector<64x32xf32>
// CHECK:       vector.transfer_read %arg1{{.*}} {dlc.mma_role = "b"} : memref<40x72xf32>, vector<32x64xf32>
// CHECK:       vector.contract
// CHECK:     vector.transfer_write {{.*}} {dlc.mma_role = "c"}
// CHECK:   } {mapping = [#gpu.warpgroup<x>]}
// CHECK: } {mapping = [#gpu.block<x>]}

// Per K step: both tiles copied by the 128 threads into two shared stages (K-major core
// matrices), a proxy fence and a barrier, four m64n64k8 TF32 wgmma on shared-memory
// descriptors (leading byte offset 128, stride byte offset 1024: (8 << 16) | (64 << 32)),
// committed and waited for, a barrier; 32 accumulators per thread in a struct.
// WGMMA: gpu.thread_id x
// WGMMA: %[[SA:.*]] = memref.alloc() : memref<2048xf32, 3>
// WGMMA: %[[SB:.*]] = memref.alloc() : memref<2048xf32, 3>
// WGMMA-COUNT-32: llvm.insertvalue
// WGMMA: scf.for {{.*}} -> (!llvm.struct<(f32, f32
// WGMMA-COUNT-16: memref.store {{.*}}, %[[SA]]
// WGMMA-COUNT-16: memref.store {{.*}}, %[[SB]]
// WGMMA: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// WGMMA-NEXT: gpu.barrier
// WGMMA-NEXT: nvvm.wgmma.fence.aligned
// WGMMA: arith.constant 274878431232 : i64
// WGMMA-COUNT-4: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// WGMMA: nvvm.wgmma.commit.group.sync.aligned
// WGMMA-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// WGMMA-NEXT: gpu.barrier
// WGMMA-NOT: vector.contract
// WGMMA-COUNT-32: llvm.extractvalue

// Without wgmma (sm_80 ... sm_90): the same stages; after a barrier each warp reads, per
// k8 step, two A fragments (ldmatrix x4) and four B fragments (x2) and does 8 mma.sync.
// LDMATRIX: scf.for {{.*}} -> (!llvm.struct<(f32, f32
// LDMATRIX: gpu.barrier
// LDMATRIX-COUNT-2: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<2048xf32, 3> -> vector<4x1xf32>
// LDMATRIX-COUNT-4: nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = false} : memref<2048xf32, 3> -> vector<2x1xf32>
// LDMATRIX-COUNT-8: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 8], tf32Enabled}
// LDMATRIX-NOT: wgmma

// One warpgroup: 128 threads; the stages are the kernel's shared buffers, 128-byte aligned.
// LAUNCH: gpu.func @k0({{.*}}) workgroup(%{{.*}} : memref<2048xf32, 3> {llvm.align = 128 : i64}, %{{.*}} : memref<2048xf32, 3> {llvm.align = 128 : i64}) kernel
// LAUNCH-SAME: known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 4, 1, 1>
// LAUNCH-NOT: memref.alloc

// The CPU check: tiles as stack buffers in the entry block, loops over them.
// CPU-LABEL: func.func @matmul
// CPU-NEXT: memref.alloca() : memref<32x64xf32>
// CPU-NEXT: memref.alloca() : memref<64x32xf32>
// CPU-NEXT: memref.alloca() : memref<64x64xf32>
// CPU: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (memref<64x64xf32>)
// CPU-NOT: vector.
func.func @matmul(%a: memref<100x40xf32>, %b: memref<40x72xf32>, %c: memref<100x72xf32>) {
  linalg.matmul ins(%a, %b : memref<100x40xf32>, memref<40x72xf32>) outs(%c : memref<100x72xf32>)
  return
}

// K = 8: the mma.sync K loop has one step and is folded away; the tiles are lowered all
// the same.
// FOLDED-LABEL: func.func @one_step
// FOLDED-NOT: scf.for {{.*}} iter_args
// FOLDED-COUNT-8: nvgpu.mma.sync
// FOLDED-NOT: vector.contract
func.func @one_step(%a: memref<64x8xf32>, %b: memref<8x64xf32>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x8xf32>, memref<8x64xf32>) outs(%c : memref<64x64xf32>)
  return
}
