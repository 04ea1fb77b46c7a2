// RUN: dlc-opt %s --dlc-cuda-map-to-threads | FileCheck %s
// RUN: dlc-opt %s --dlc-cuda-map-to-threads --canonicalize --dlc-cuda-warpgroup-mma="wgmma=false" | FileCheck %s --check-prefix=LANES

// A direct 3x3 convolution (channel-blocked weights [cout/32][kh][kw][cin][32]) as an
// implicit GEMM: M = output columns (ow), N = the 32 output channels of a block, K = the
// input channels in steps of 32, the window (kh, kw) as loops around K carrying the
// accumulators; A's rows read at ow + kw (the tile's origin along that index).
// CHECK-LABEL: func.func @conv3x3
// CHECK: scf.forall (%{{.*}}) in (112) {
// CHECK:   scf.forall (%{{.*}}) in (1) {
// CHECK:     vector.transfer_read %arg2{{.*}} {dlc.mma_role = "c", permutation_map = #{{.*}}} : memref<56x56x2x32xf32>, vector<64x64xf32>
// CHECK:     scf.for %[[KH:.*]] = %{{.*}} to %c3 step %c1 iter_args
// CHECK:       scf.for %[[KW:.*]] = %{{.*}} to %c3{{.*}} step %c1{{.*}} iter_args
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %c64 step %c32 iter_args
// CHECK:           %[[ROW:.*]] = affine.apply #{{.*}}(%{{.*}}, %[[KH]])
// CHECK:           %[[COL:.*]] = affine.apply #{{.*}}(%{{.*}}, %[[KW]])
// CHECK:           vector.transfer_read %arg0[%[[ROW]], %[[COL]], %[[K]]], {{.*}} {dlc.mma_role = "a"} : memref<58x58x64xf32>, vector<64x32xf32>
// CHECK:           vector.transfer_read %arg1[%{{.*}}, %[[KH]], %[[KW]], %[[K]], %{{.*}}], {{.*}} {dlc.mma_role = "b"} : memref<2x3x3x64x32xf32>, vector<32x64xf32>
// CHECK:           vector.contract
// CHECK:     vector.transfer_write {{.*}} {dlc.mma_role = "c", permutation_map = #{{.*}}}
func.func @conv3x3(%x: memref<58x58x64xf32>, %w: memref<2x3x3x64x32xf32>, %y: memref<56x56x2x32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0 + d4, d1 + d5, d6)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d2, d4, d5, d6, d3)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<58x58x64xf32>, memref<2x3x3x64x32xf32>) outs(%y : memref<56x56x2x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  return
}
// The window loops carry each thread's 32 accumulators (an LLVM struct).
// LANES-LABEL: func.func @conv3x3
// LANES: scf.for {{.*}} -> (!llvm.struct<(f32
// LANES:   scf.for {{.*}} -> (!llvm.struct<(f32
// LANES:     scf.for {{.*}} -> (!llvm.struct<(f32
// LANES-COUNT-8: nvgpu.mma.sync

// Rows of fewer than 16 outputs: not a tensor-core tile (the linalg phase puts such
// convolutions through im2col for the GPU).
// CHECK-LABEL: func.func @conv_small
// CHECK-NOT: dlc.mma_role
// CHECK: mapping = [#gpu.thread<x>]
func.func @conv_small(%x: memref<9x9x64xf32>, %w: memref<2x3x3x64x32xf32>, %y: memref<7x7x2x32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0 + d4, d1 + d5, d6)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d2, d4, d5, d6, d3)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<9x9x64xf32>, memref<2x3x3x64x32xf32>) outs(%y : memref<7x7x2x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  return
}

// Dilation 2 (A read at ow + 2 kw) is still an implicit GEMM; stride 2 (2 ow + kw: rows
// of an A tile not consecutive) is not (the linalg phase sends strided convolutions
// through im2col).
// CHECK-LABEL: func.func @conv_dilated
// CHECK: vector.transfer_read %arg0{{.*}} {dlc.mma_role = "a"}
func.func @conv_dilated(%x: memref<60x60x64xf32>, %w: memref<2x3x3x64x32xf32>, %y: memref<56x56x2x32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0 + d4 * 2, d1 + d5 * 2, d6)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d2, d4, d5, d6, d3)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<60x60x64xf32>, memref<2x3x3x64x32xf32>) outs(%y : memref<56x56x2x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  return
}
// CHECK-LABEL: func.func @conv_strided
// CHECK-NOT: dlc.mma_role
// CHECK: mapping = [#gpu.thread<x>]
func.func @conv_strided(%x: memref<113x113x64xf32>, %w: memref<2x3x3x64x32xf32>, %y: memref<56x56x2x32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0 * 2 + d4, d1 * 2 + d5, d6)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d2, d4, d5, d6, d3)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<113x113x64xf32>, memref<2x3x3x64x32xf32>) outs(%y : memref<56x56x2x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  return
}
