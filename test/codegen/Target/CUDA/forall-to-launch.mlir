// RUN: dlc-opt %s --dlc-cuda-map-to-threads --convert-linalg-to-loops --dlc-cuda-forall-to-launch="chip=sm_90a" --canonicalize | FileCheck %s

// Two kernels in one gpu.module for the chip; the arena's views and the index math move
// into the kernels, so the launches pass whole buffers: the argument, the arena and the
// weight. Four elements a thread: 75 points, one block of three warps.
// CHECK: module attributes {gpu.container_module}
// CHECK: func.func @two(%[[X:.*]]: memref<300xf32>, %[[Y:.*]]: memref<300xf32>)
// CHECK-DAG: %[[W:.*]] = memref.get_global @w
// CHECK-DAG: %[[A:.*]] = memref.alloc() : memref<1280xi8>
// CHECK: gpu.launch_func @dlc_kernels::@k0 blocks in (%c1, %c1, %c1) threads in (%c96, %c1, %c1) args(%[[A]] : memref<1280xi8>, %[[X]] : memref<300xf32>, %[[W]] : memref<300xf32>)
// CHECK: gpu.launch_func @dlc_kernels::@k1 blocks in (%c1, %c1, %c1) threads in (%c96, %c1, %c1) args(%[[A]] : memref<1280xi8>, %[[Y]] : memref<300xf32>)
// CHECK: gpu.module @dlc_kernels [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">]
// CHECK: gpu.func @k0(%{{.*}}: memref<1280xi8>, %{{.*}}: memref<300xf32>, %{{.*}}: memref<300xf32>) kernel
// CHECK:   gpu.block_id x
// CHECK:   gpu.thread_id x
// CHECK:   memref.view
// CHECK: gpu.func @k1
memref.global "private" constant @w : memref<300xf32> = dense<1.0>
func.func @two(%x: memref<300xf32>, %y: memref<300xf32>) {
  %w = memref.get_global @w : memref<300xf32>
  %arena = memref.alloc() : memref<1280xi8>
  %c0 = arith.constant 0 : index
  %t = memref.view %arena[%c0][] : memref<1280xi8> to memref<300xf32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%x, %w : memref<300xf32>, memref<300xf32>) outs(%t : memref<300xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%t : memref<300xf32>) outs(%y : memref<300xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  memref.dealloc %arena : memref<1280xi8>
  return
}
