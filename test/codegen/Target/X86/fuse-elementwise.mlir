// RUN: dlc-opt %s -dlc-fuse-elementwise | FileCheck %s
// Elementwise producers fuse into elementwise consumers, never into a contraction.

// CHECK-LABEL: func @no_fusion_into_contraction
// CHECK: %[[SCALED:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: arith.mulf
// CHECK: linalg.matmul ins(%[[SCALED]], %arg1
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK-NOT: linalg.generic
func.func @no_fusion_into_contraction(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %c2 = arith.constant 2.0 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %c2 : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %mm = linalg.matmul ins(%s, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %add = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<4x16xf32>, tensor<16xf32>) outs(%e2 : tensor<4x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  %relu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%add : tensor<4x16xf32>) outs(%e2 : tensor<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  return %relu : tensor<4x16xf32>
}
