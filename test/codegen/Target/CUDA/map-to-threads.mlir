// RUN: dlc-opt %s --dlc-cuda-map-to-threads="mma=false" | FileCheck %s
// RUN: dlc-opt %s --dlc-cuda-map-to-threads="block-threads=128 mma=false" | FileCheck %s --check-prefix=T128
// RUN: not dlc-opt %s --dlc-cuda-map-to-threads="block-threads=100" 2>&1 | FileCheck %s --check-prefix=BAD

// A matmul: one thread per output element (48 x 40 = 1920 points: 8 blocks of 256),
// consecutive threads on consecutive columns, the K loop the thread's own.
// CHECK-LABEL: func.func @matmul
// CHECK: scf.forall (%[[B:.*]]) in (8) {
// CHECK:   scf.forall (%[[T:.*]]) in (256) {
// CHECK:     %[[P:.*]] = affine.apply #{{.*}}(%[[B]], %[[T]])
// CHECK:     %[[IN:.*]] = arith.cmpi ult, %[[P]], %c1920
// CHECK:     scf.if %[[IN]] {
// CHECK:       %[[IJ:.*]]:2 = affine.delinearize_index %[[P]] into (48, 40)
// CHECK:       linalg.matmul ins({{.*}} : memref<1x64xf32, {{.*}}>, memref<64x1xf32, {{.*}}>)
// CHECK:   } {mapping = [#gpu.thread<x>]}
// CHECK: } {mapping = [#gpu.block<x>]}
// T128: scf.forall ({{.*}}) in (15)
// T128: scf.forall ({{.*}}) in (128)
// BAD: block-threads must be a multiple of 32 up to 1024
func.func @matmul(%a: memref<48x64xf32>, %b: memref<64x40xf32>, %c: memref<48x40xf32>) {
  linalg.matmul ins(%a, %b : memref<48x64xf32>, memref<64x40xf32>) outs(%c : memref<48x40xf32>)
  return
}

// A transposing copy: the points follow the *output's* dims, so consecutive threads
// write consecutive elements; a small op gets one block of a whole number of warps.
// CHECK-LABEL: func.func @transpose
// CHECK: scf.forall ({{.*}}) in (1) {
// CHECK:   scf.forall ({{.*}}) in (32) {
// CHECK:     arith.cmpi ult, %{{.*}}, %c12
// CHECK:     affine.delinearize_index %{{.*}} into (4, 3)
// CHECK:     linalg.generic
func.func @transpose(%x: memref<3x4xf32>, %y: memref<4x3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<3x4xf32>) outs(%y : memref<4x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// memref.copy becomes a kernel too; an op with no points goes.
// CHECK-LABEL: func.func @copy_and_empty
// CHECK: scf.forall
// CHECK:   linalg.copy
// CHECK-NOT: linalg.fill
func.func @copy_and_empty(%x: memref<16xf32>, %y: memref<16xf32>, %z: memref<0x4xf32>) {
  memref.copy %x, %y : memref<16xf32> to memref<16xf32>
  %c = arith.constant 0.0 : f32
  linalg.fill ins(%c : f32) outs(%z : memref<0x4xf32>)
  return
}
