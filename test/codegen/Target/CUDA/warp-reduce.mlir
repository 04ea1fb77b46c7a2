// RUN: dlc-opt %s --dlc-cuda-map-to-threads | FileCheck %s
// RUN: dlc-opt %s --dlc-cuda-map-to-threads --canonicalize --dlc-cuda-warp-reduce | FileCheck %s --check-prefix=LANES
// RUN: dlc-opt %s --dlc-cuda-map-to-threads="warp-reductions=false" | FileCheck %s --check-prefix=OFF

// The max of each of 10 rows of 100 (a softmax's first step) into its init: a warp per
// row, 8 warps per block (2 blocks, the last 6 warps idle); lanes stride the row 32 at a
// time (masked past its end) with their partials, which are then reduced and combined
// into the output.
// CHECK-LABEL: func.func @row_max
// CHECK: scf.forall (%[[B:.*]]) in (2) {
// CHECK:   scf.forall (%[[W:.*]]) in (8) {
// CHECK:     %[[P:.*]] = affine.apply {{.*}}(%[[B]], %[[W]])
// CHECK:     scf.if
// CHECK:       scf.for %[[K:.*]] = %c0 to %c100 step %c32 iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<32xf32>) {
// CHECK:         vector.step : vector<32xindex>
// CHECK:         vector.transfer_read %arg0[%[[P]], %[[K]]], %{{.*}} {dlc.warp_role = "lanes"} : memref<10x100xf32>, vector<32xf32>
// CHECK:         arith.maximumf {{.*}} : vector<32xf32>
// CHECK:         arith.select {{.*}} : vector<32xi1>, vector<32xf32>
// CHECK:       vector.reduction <maximumf>, %{{.*}} : vector<32xf32> into f32
// CHECK:       memref.load %arg1[%[[P]]]
// CHECK:       arith.maximumf {{.*}} : f32
// CHECK:       memref.store {{.*}}, %arg1[%[[P]]] {dlc.warp_role = "result"}
// CHECK:   } {mapping = [#gpu.warp<x>]}
// CHECK: } {mapping = [#gpu.block<x>]}

// Each lane holds one element: lane l reads element k + l (clamped, and masked past the
// row's end: the lane keeps its partial); the partials meet in five xor shuffles; lane 0
// stores.
// LANES: gpu.lane_id upper_bound 32
// LANES: scf.for {{.*}} -> (f32) {
// LANES:   memref.load %arg0
// LANES:   arith.select {{.*}} : f32
// LANES:   arith.maximumf {{.*}} : f32
// LANES-COUNT-5: gpu.shuffle  xor
// LANES: arith.cmpi eq
// LANES: scf.if
// LANES-NEXT: memref.store
// LANES-NOT: vector<32

// Off: a thread per row.
// OFF: scf.forall ({{.*}}) in (32)
// OFF: mapping = [#gpu.thread<x>]
// OFF-NOT: gpu.warp
func.func @row_max(%x: memref<10x100xf32>, %m: memref<10xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<10x100xf32>) outs(%m : memref<10xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %o, %a : f32
    linalg.yield %r : f32
  }
  return
}

// Rows shorter than a warp: a thread per output element.
// CHECK-LABEL: func.func @short_rows
// CHECK: mapping = [#gpu.thread<x>]
// CHECK-NOT: gpu.warp
func.func @short_rows(%x: memref<10x16xf32>, %m: memref<10xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<10x16xf32>) outs(%m : memref<10xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %o, %a : f32
    linalg.yield %r : f32
  }
  return
}
