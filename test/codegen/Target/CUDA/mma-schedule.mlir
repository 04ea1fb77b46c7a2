// RUN: dlc-opt %s --dlc-cuda-map-to-threads="warpgroups=false" | FileCheck %s
// RUN: dlc-opt %s --dlc-cuda-map-to-threads="warpgroups=false" --dlc-cuda-warp-mma | FileCheck %s --check-prefix=LANES
// RUN: dlc-opt %s --dlc-cuda-map-to-threads="warpgroups=false" --dlc-cuda-warp-mma --convert-linalg-to-loops --dlc-cuda-forall-to-launch | FileCheck %s --check-prefix=LAUNCH

// The warp-level schedule (map-to-threads{warpgroups=false}; the pipeline uses the
// warpgroup one, wgmma-schedule.mlir).
// A 100x72x20 matmul on tensor cores: 2x2 blocks of 64x64 (masked at the edges: the reads and writes are not in bounds), four warps
// each, 2x4 accumulator tiles of 16x8 read from C, carried over K in steps of 8, written back.
// CHECK-LABEL: func.func @matmul
// CHECK: scf.forall (%[[B:.*]]) in (4) {
// CHECK:   scf.forall (%[[W:.*]]) in (4) {
// CHECK:     affine.delinearize_index %[[B]] into (2, 2)
// CHECK:     affine.delinearize_index %[[W]] into (2, 2)
// CHECK-COUNT-8: vector.transfer_read %arg2{{.*}} {dlc.mma_role = "c"} : memref<100x72xf32>, vector<16x8xf32>
// CHECK:     scf.for %[[K:.*]] = %{{.*}} to %c20 step %{{.*}} iter_args({{.*}}) -> (vector<16x8xf32>, {{.*}}) {
// CHECK-COUNT-2: vector.transfer_read %arg0{{.*}} {dlc.mma_role = "a"} : memref<100x20xf32>, vector<16x8xf32>
// CHECK-COUNT-4: vector.transfer_read %arg1{{.*}} {dlc.mma_role = "b"} : memref<20x72xf32>, vector<8x8xf32>
// CHECK-COUNT-8: vector.contract
// CHECK:     }
// CHECK-COUNT-8: vector.transfer_write {{.*}} {dlc.mma_role = "c"}
// CHECK:   } {mapping = [#gpu.warp<x>]}
// CHECK: } {mapping = [#gpu.block<x>]}

// Each lane's fragments: A 4 values, B 2, C 2x2, loads clamped and masked, TF32 mma.sync.
// LANES: gpu.lane_id upper_bound 32
// LANES: scf.for {{.*}} -> (vector<2x2xf32>, {{.*}}) {
// LANES:   vector.from_elements {{.*}} : vector<4x1xf32>
// LANES:   vector.from_elements {{.*}} : vector<2x1xf32>
// LANES:   nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 8], tf32Enabled} : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>
// LANES-NOT: vector.contract
// LANES: scf.if
// LANES:   memref.store

// Four warps: 128 threads, the warp id thread_id x / 32.
// LAUNCH: gpu.launch_func @dlc_kernels::@k0
// LAUNCH: gpu.func @k0
// LAUNCH-SAME: known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 4, 1, 1>
// LAUNCH: gpu.thread_id x
// LAUNCH: arith.divui %{{.*}}, %c32
func.func @matmul(%a: memref<100x20xf32>, %b: memref<20x72xf32>, %c: memref<100x72xf32>) {
  linalg.matmul ins(%a, %b : memref<100x20xf32>, memref<20x72xf32>) outs(%c : memref<100x72xf32>)
  return
}

// Too few rows for one tile: the thread-mapped schedule.
// CHECK-LABEL: func.func @gemv
// CHECK: scf.forall ({{.*}}) in (64)
// CHECK: linalg.matmul
func.func @gemv(%a: memref<1x64xf32>, %b: memref<64x64xf32>, %c: memref<1x64xf32>) {
  linalg.matmul ins(%a, %b : memref<1x64xf32>, memref<64x64xf32>) outs(%c : memref<1x64xf32>)
  return
}
