// RUN: dlc-opt %s | dlc-opt | FileCheck %s
// #dlc.kernel_config prints and parses back; absent fields stay absent.

#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// CHECK-LABEL: func @configs
func.func @configs(%a: tensor<64x32xf32>, %b: tensor<32x128xf32>, %c: tensor<64x128xf32>,
                   %x: tensor<64x1000xf32>, %r: tensor<64xf32>) -> (tensor<64x128xf32>, tensor<64xf32>) {
  // CHECK: linalg.matmul {dlc.kernel_config = #dlc.kernel_config<contraction, tiles = [8, 32, 1], interchange = [1, 0, 2], split = 1, epilogue>}
  %0 = linalg.matmul {dlc.kernel_config = #dlc.kernel_config<contraction, tiles = [8, 32, 1], interchange = [1, 0, 2], split = 1, epilogue>}
         ins(%a, %b : tensor<64x32xf32>, tensor<32x128xf32>) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  // CHECK: linalg.generic {{.*}}dlc.kernel_config = #dlc.kernel_config<generic, tiles = [1, 32], partial_sums>
  %1 = linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]}
         ins(%x : tensor<64x1000xf32>) outs(%r : tensor<64xf32>)
         attrs = {dlc.kernel_config = #dlc.kernel_config<generic, tiles = [1, 32], partial_sums>} {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %0, %1 : tensor<64x128xf32>, tensor<64xf32>
}

// Partial results across the last of several trailing reductions that combine by max (a
// max over a whole tensor whose loops did not collapse).
#all = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#none = affine_map<(d0, d1, d2) -> ()>
// CHECK-LABEL: func @max_over_all
func.func @max_over_all(%x: tensor<1x128x256xf32>, %init: tensor<f32>) -> tensor<f32> {
  // CHECK: linalg.generic {{.*}}dlc.kernel_config = #dlc.kernel_config<generic, tiles = [1, 1, 8], partial_sums>
  %0 = linalg.generic {indexing_maps = [#all, #none], iterator_types = ["reduction", "reduction", "reduction"]}
         ins(%x : tensor<1x128x256xf32>) outs(%init : tensor<f32>)
         attrs = {dlc.kernel_config = #dlc.kernel_config<generic, tiles = [1, 1, 8], partial_sums>} {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %0 : tensor<f32>
}
