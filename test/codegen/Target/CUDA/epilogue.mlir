// RUN: dlc-opt %s --dlc-cuda-map-to-threads | FileCheck %s
// RUN: dlc-opt %s --dlc-cuda-map-to-threads --canonicalize --dlc-cuda-warpgroup-mma="wgmma=false" | FileCheck %s --check-prefix=LANES
// RUN: dlc-opt %s --dlc-cuda-map-to-threads --canonicalize --dlc-cuda-tiles-to-loops | FileCheck %s --check-prefix=CPU
// RUN: dlc-opt %s --dlc-cuda-map-to-threads="epilogues=false" | FileCheck %s --check-prefix=OFF

// relu(A x B + bias) in one kernel: the accumulator tile (C, an arena view nothing reads
// later) goes through the bias (read as a tile broadcast along the rows) and the max
// before it is written to Y.
// CHECK-LABEL: func.func @bias_relu
// CHECK: scf.forall
// CHECK:   scf.for
// CHECK:     vector.contract
// CHECK:   vector.transfer_read %arg2[%{{.*}}], %{{.*}} {dlc.mma_role = "e", in_bounds = [true, false], permutation_map = #{{.*}}} : memref<72xf32>, vector<64x64xf32>
// CHECK:   arith.addf {{.*}} : vector<64x64xf32>
// CHECK:   arith.maximumf {{.*}} : vector<64x64xf32>
// CHECK:   vector.transfer_write {{.*}}, %arg3[{{.*}}] {dlc.mma_role = "c"} : vector<64x64xf32>, memref<100x72xf32>
// CHECK: } {mapping = [#gpu.block<x>]}
// CHECK-NOT: scf.forall
// CHECK: return

// Each thread's 32 accumulators: bias loaded per element, add, max, stored to Y.
// LANES-LABEL: func.func @bias_relu
// LANES-COUNT-32: arith.maximumf {{.*}} : f32
// LANES-NOT: vector<64x64xf32>
// LANES: return

// The CPU check: a loop over the accumulator buffer computing the epilogue per element.
// CPU-LABEL: func.func @bias_relu
// CPU: memref.load %arg2
// CPU: arith.addf {{.*}} : f32
// CPU: arith.maximumf {{.*}} : f32
// CPU: memref.store {{.*}}, %arg3
// CPU-NOT: vector<64x64xf32>

// OFF-LABEL: func.func @bias_relu
// OFF: vector.transfer_write {{.*}} {dlc.mma_role = "c"} : vector<64x64xf32>, memref<100x72xf32>
// OFF: scf.forall ({{.*}}) in (8)
func.func @bias_relu(%a: memref<100x40xf32>, %b: memref<40x72xf32>, %bias: memref<72xf32>,
                     %y: memref<100x72xf32>) {
  %arena = memref.alloc() : memref<28800xi8>
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %acc = memref.view %arena[%c0][] : memref<28800xi8> to memref<100x72xf32>
  linalg.fill ins(%cst : f32) outs(%acc : memref<100x72xf32>)
  linalg.matmul ins(%a, %b : memref<100x40xf32>, memref<40x72xf32>) outs(%acc : memref<100x72xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                                   affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc, %bias : memref<100x72xf32>, memref<72xf32>) outs(%y : memref<100x72xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %s = arith.addf %x, %c : f32
    %r = arith.maximumf %s, %cst : f32
    linalg.yield %r : f32
  }
  memref.dealloc %arena : memref<28800xi8>
  return
}

// The accumulator is read again later: the epilogue stays a kernel of its own.
// CHECK-LABEL: func.func @acc_read_later
// CHECK: vector.transfer_write {{.*}} {dlc.mma_role = "c"} : vector<64x64xf32>, memref<100x72xf32>
// CHECK-NOT: dlc.mma_role = "e"
// CHECK: scf.forall ({{.*}}) in (8)
// CHECK: linalg.copy
func.func @acc_read_later(%a: memref<100x40xf32>, %b: memref<40x72xf32>,
                          %y: memref<100x72xf32>, %z: memref<100x72xf32>) {
  %arena = memref.alloc() : memref<28800xi8>
  %c0 = arith.constant 0 : index
  %acc = memref.view %arena[%c0][] : memref<28800xi8> to memref<100x72xf32>
  linalg.matmul ins(%a, %b : memref<100x40xf32>, memref<40x72xf32>) outs(%acc : memref<100x72xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<100x72xf32>) outs(%y : memref<100x72xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.tanh %x : f32
    linalg.yield %r : f32
  }
  memref.copy %acc, %z : memref<100x72xf32> to memref<100x72xf32>
  memref.dealloc %arena : memref<28800xi8>
  return
}

// The epilogue's output takes bytes of the contraction's input (the arena reused A's
// place): blocks would overwrite what others still read. Not fused.
// CHECK-LABEL: func.func @output_over_input
// CHECK: vector.transfer_write {{.*}} {dlc.mma_role = "c"}
// CHECK-NOT: dlc.mma_role = "e"
// CHECK: scf.forall ({{.*}}) in (8)
func.func @output_over_input(%b: memref<40x72xf32>, %y: memref<100x72xf32>) {
  %arena = memref.alloc() : memref<60000xi8>
  %c0 = arith.constant 0 : index
  %c28800 = arith.constant 28800 : index
  %a = memref.view %arena[%c0][] : memref<60000xi8> to memref<100x40xf32>
  %acc = memref.view %arena[%c28800][] : memref<60000xi8> to memref<100x72xf32>
  %out = memref.view %arena[%c0][] : memref<60000xi8> to memref<100x72xf32>
  linalg.matmul ins(%a, %b : memref<100x40xf32>, memref<40x72xf32>) outs(%acc : memref<100x72xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<100x72xf32>) outs(%out : memref<100x72xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.tanh %x : f32
    linalg.yield %r : f32
  }
  memref.copy %out, %y : memref<100x72xf32> to memref<100x72xf32>
  memref.dealloc %arena : memref<60000xi8>
  return
}

// The epilogue's other input is the accumulator itself through another view (here its
// transpose read as a reshaped buffer): the fused kernel would not have written it. Not
// fused.
// CHECK-LABEL: func.func @reads_acc_through_a_view
// CHECK: vector.transfer_write {{.*}} {dlc.mma_role = "c"}
// CHECK-NOT: dlc.mma_role = "e"
// CHECK: scf.forall
func.func @reads_acc_through_a_view(%a: memref<64x40xf32>, %b: memref<40x64xf32>,
                                    %y: memref<64x64xf32>) {
  %arena = memref.alloc() : memref<16384xi8>
  %c0 = arith.constant 0 : index
  %acc = memref.view %arena[%c0][] : memref<16384xi8> to memref<64x64xf32>
  %alias = memref.view %arena[%c0][] : memref<16384xi8> to memref<64x64xf32>
  linalg.matmul ins(%a, %b : memref<64x40xf32>, memref<40x64xf32>) outs(%acc : memref<64x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j, i)>,
                                   affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc, %alias : memref<64x64xf32>, memref<64x64xf32>) outs(%y : memref<64x64xf32>) {
  ^bb0(%x: f32, %t: f32, %o: f32):
    %s = arith.addf %x, %t : f32
    linalg.yield %s : f32
  }
  memref.dealloc %arena : memref<16384xi8>
  return
}
