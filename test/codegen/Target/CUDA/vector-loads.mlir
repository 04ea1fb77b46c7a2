// RUN: dlc-opt %s --dlc-cuda-map-to-threads --convert-linalg-to-loops --canonicalize --dlc-cuda-vector-loads | FileCheck %s

// x + s, s a 0-d buffer: four elements per thread, 16-byte aligned vector accesses; the
// scalar is one load broadcast over the vector (no transfer is left for LLVM).
// CHECK-LABEL: func.func @add_scalar
// CHECK: scf.forall
// CHECK:   scf.forall
// CHECK-DAG: %[[S:.*]] = memref.load %arg1[] : memref<f32>
// CHECK-DAG: vector.broadcast %[[S]] : f32 to vector<4xf32>
// CHECK-DAG: vector.load {{.*}} {alignment = 16 : i64} : memref<4xf32, {{.*}}>, vector<4xf32>
// CHECK: vector.store {{.*}} {alignment = 16 : i64} : memref<4xf32, {{.*}}>, vector<4xf32>
// CHECK-NOT: vector.transfer_read
func.func @add_scalar(%x: memref<8x16xf32>, %s: memref<f32>, %y: memref<8x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>,
                                   affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : memref<8x16xf32>, memref<f32>) outs(%y : memref<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  }
  return
}
