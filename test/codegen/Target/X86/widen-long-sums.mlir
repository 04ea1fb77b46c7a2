// RUN: dlc-opt %s -split-input-file -dlc-widen-long-sums | FileCheck %s
// f32 sums of 8192 or more values per result accumulate in f64 (their rounding grows
// with the values each partial sum adds), then are truncated; shorter sums, and
// contractions, stay f32.

// A mean's sum over 3 x 4096 values, with a producer (x * 2) fused into its body.
// CHECK-LABEL: func @long_sum
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : f64) outs(%{{.*}} : tensor<2xf64>)
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<2x3x4096xf32>) outs(%[[F]] : tensor<2xf64>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f64):
// CHECK:   %[[M:.*]] = arith.mulf %[[IN]], %{{.*}} : f32
// CHECK:   %[[E:.*]] = arith.extf %[[M]] : f32 to f64
// CHECK:   %[[A:.*]] = arith.addf %[[E]], %[[ACC]] : f64
// CHECK:   linalg.yield %[[A]] : f64
// CHECK: %[[T:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<2xf64>) outs(%{{.*}} : tensor<2xf32>)
// CHECK:   arith.truncf %{{.*}} : f64 to f32
// CHECK: return %[[T]]
#in = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d0)>
func.func @long_sum(%x: tensor<2x3x4096xf32>) -> tensor<2xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %two = arith.constant 2.000000e+00 : f32
  %0 = tensor.empty() : tensor<2xf32>
  %1 = linalg.fill ins(%zero : f32) outs(%0 : tensor<2xf32>) -> tensor<2xf32>
  %2 = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction", "reduction"]} ins(%x : tensor<2x3x4096xf32>) outs(%1 : tensor<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %3 = arith.mulf %in, %two : f32
    %4 = arith.addf %acc, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<2xf32>
  return %2 : tensor<2xf32>
}

// -----

// 4096 values per result: unchanged.
// CHECK-LABEL: func @short_sum
// CHECK-NOT: f64
#in2 = affine_map<(d0, d1) -> (d0, d1)>
#out2 = affine_map<(d0, d1) -> (d0)>
func.func @short_sum(%x: tensor<2x4096xf32>) -> tensor<2xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2xf32>
  %1 = linalg.fill ins(%zero : f32) outs(%0 : tensor<2xf32>) -> tensor<2xf32>
  %2 = linalg.generic {indexing_maps = [#in2, #out2], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x4096xf32>) outs(%1 : tensor<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %3 = arith.addf %in, %acc : f32
    linalg.yield %3 : f32
  } -> tensor<2xf32>
  return %2 : tensor<2xf32>
}

// -----

// A matmul with K = 8192 is a contraction: left to KernelConfig in f32.
// CHECK-LABEL: func @long_matmul
// CHECK-NOT: f64
func.func @long_matmul(%a: tensor<4x8192xf32>, %b: tensor<8192x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4x4xf32>
  %1 = linalg.fill ins(%zero : f32) outs(%0 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %2 = linalg.matmul ins(%a, %b : tensor<4x8192xf32>, tensor<8192x4xf32>) outs(%1 : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %2 : tensor<4x4xf32>
}

// -----

// A sum onto a non-zero initial value widens that value too.
// CHECK-LABEL: func @onto_init
// CHECK: %[[W:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<2xf32>) outs(%{{.*}} : tensor<2xf64>)
// CHECK:   arith.extf
// CHECK: linalg.generic {{.*}} outs(%[[W]] : tensor<2xf64>)
#in4 = affine_map<(d0, d1) -> (d0, d1)>
#out4 = affine_map<(d0, d1) -> (d0)>
func.func @onto_init(%x: tensor<2x8192xf32>, %init: tensor<2xf32>) -> tensor<2xf32> {
  %2 = linalg.generic {indexing_maps = [#in4, #out4], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x8192xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %3 = arith.addf %in, %acc : f32
    linalg.yield %3 : f32
  } -> tensor<2xf32>
  return %2 : tensor<2xf32>
}
