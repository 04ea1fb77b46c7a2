// RUN: dlc-opt %s -split-input-file -dlc-cpu-select-kernels=cpu=x86-64-v3 -dlc-cpu-tile-vectorize=cpu=x86-64-v3 -canonicalize | FileCheck %s
// AVX2 kernels (16 ymm registers of 8 floats): a 6 x 16 matmul register tile (12
// accumulators, 2 loads of B, a broadcast of A), 8 x 8 transposes in registers
// (unpack, shuffle, blend), and no #dlc.kernel_config left once applied.

// CHECK-LABEL: func @matmul
// CHECK: scf.for %{{.*}} = %c0 to %c60 step %c6
// CHECK: scf.for %{{.*}} = %c0 to %c128 step %c16
// CHECK: scf.for {{.*}} -> (vector<6x16xf32>)
// CHECK-COUNT-6: vector.fma {{.*}} : vector<16xf32>
// The last 4 rows: a partial tile.
// CHECK: scf.for {{.*}} -> (vector<4x16xf32>)
// CHECK-NOT: dlc.kernel_config
func.func @matmul(%a: tensor<64x256xf32>, %b: tensor<256x128xf32>, %c: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x256xf32>, tensor<256x128xf32>) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %0 : tensor<64x128xf32>
}

// -----

// CHECK-LABEL: func @transpose
// CHECK: scf.for %{{.*}} step %c8
// CHECK: scf.for %{{.*}} step %c8
// CHECK: vector.transfer_read {{.*}} : tensor<128x64xf32>, vector<8x8xf32>
// CHECK: vector.shuffle
// CHECK-COUNT-8: llvm.inline_asm asm_dialect = intel "vblendps
// CHECK-NOT: dlc.kernel_config
#t = affine_map<(d0, d1) -> (d1, d0)>
#o = affine_map<(d0, d1) -> (d0, d1)>
func.func @transpose(%x: tensor<128x64xf32>, %y: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %0 = linalg.generic {indexing_maps = [#t, #o], iterator_types = ["parallel", "parallel"]}
         ins(%x : tensor<128x64xf32>) outs(%y : tensor<64x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<64x128xf32>
  return %0 : tensor<64x128xf32>
}
