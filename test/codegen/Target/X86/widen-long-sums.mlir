// RUN: dlc-opt %s -split-input-file -dlc-widen-long-sums | FileCheck %s
// f32 sums that add 8192 or more values into each result one after the other accumulate
// in f64, then are truncated. Reductions that get vector partial sums across one row
// (one innermost reduction loop, or trailing loops that collapse into one), shorter sums
// and contractions stay f32.

// A sum over 3 x 4096 values with a producer (x - b, b broadcast over the 3) fused into
// its body: its loops do not collapse into one.
// CHECK-LABEL: func @long_sum
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : f64) outs(%{{.*}} : tensor<2xf64>)
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<2x3x4096xf32>, tensor<2x4096xf32>) outs(%[[F]] : tensor<2xf64>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %[[B:.*]]: f32, %[[ACC:.*]]: f64):
// CHECK:   %[[M:.*]] = arith.subf %[[IN]], %[[B]] : f32
// CHECK:   %[[E:.*]] = arith.extf %[[M]] : f32 to f64
// CHECK:   %[[A:.*]] = arith.addf %[[E]], %[[ACC]] : f64
// CHECK:   linalg.yield %[[A]] : f64
// CHECK: %[[T:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<2xf64>) outs(%{{.*}} : tensor<2xf32>)
// CHECK:   arith.truncf %{{.*}} : f64 to f32
// CHECK: return %[[T]]
#in = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bc = affine_map<(d0, d1, d2) -> (d0, d2)>
#out = affine_map<(d0, d1, d2) -> (d0)>
func.func @long_sum(%x: tensor<2x3x4096xf32>, %b: tensor<2x4096xf32>) -> tensor<2xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2xf32>
  %1 = linalg.fill ins(%zero : f32) outs(%0 : tensor<2xf32>) -> tensor<2xf32>
  %2 = linalg.generic {indexing_maps = [#in, #bc, #out], iterator_types = ["parallel", "reduction", "reduction"]} ins(%x, %b : tensor<2x3x4096xf32>, tensor<2x4096xf32>) outs(%1 : tensor<2xf32>) {
  ^bb0(%in: f32, %bb: f32, %acc: f32):
    %3 = arith.subf %in, %bb : f32
    %4 = arith.addf %acc, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<2xf32>
  return %2 : tensor<2xf32>
}

// -----

// One innermost reduction of 16384: vector partial sums, stays f32.
// CHECK-LABEL: func @row_sum
// CHECK-NOT: f64
#rin = affine_map<(d0, d1) -> (d0, d1)>
#rout = affine_map<(d0, d1) -> (d0)>
func.func @row_sum(%x: tensor<2x16384xf32>) -> tensor<2xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2xf32>
  %1 = linalg.fill ins(%zero : f32) outs(%0 : tensor<2xf32>) -> tensor<2xf32>
  %2 = linalg.generic {indexing_maps = [#rin, #rout], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x16384xf32>) outs(%1 : tensor<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %3 = arith.addf %in, %acc : f32
    linalg.yield %3 : f32
  } -> tensor<2xf32>
  return %2 : tensor<2xf32>
}

// -----

// 4096 values per result (a column sum): unchanged.
// CHECK-LABEL: func @short_sum
// CHECK-NOT: f64
#in2 = affine_map<(d0, d1) -> (d0, d1)>
#out2 = affine_map<(d0, d1) -> (d1)>
func.func @short_sum(%x: tensor<4096x2xf32>) -> tensor<2xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2xf32>
  %1 = linalg.fill ins(%zero : f32) outs(%0 : tensor<2xf32>) -> tensor<2xf32>
  %2 = linalg.generic {indexing_maps = [#in2, #out2], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<4096x2xf32>) outs(%1 : tensor<2xf32>) {
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

// A column sum of 8192 (its reduction loop is not innermost) onto a non-zero initial
// value: widened, the initial value too.
// CHECK-LABEL: func @onto_init
// CHECK: %[[W:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<2xf32>) outs(%{{.*}} : tensor<2xf64>)
// CHECK:   arith.extf
// CHECK: linalg.generic {{.*}} outs(%[[W]] : tensor<2xf64>)
#in4 = affine_map<(d0, d1) -> (d0, d1)>
#out4 = affine_map<(d0, d1) -> (d1)>
func.func @onto_init(%x: tensor<8192x2xf32>, %init: tensor<2xf32>) -> tensor<2xf32> {
  %2 = linalg.generic {indexing_maps = [#in4, #out4], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<8192x2xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %3 = arith.addf %in, %acc : f32
    linalg.yield %3 : f32
  } -> tensor<2xf32>
  return %2 : tensor<2xf32>
}
