// RUN: dlc-opt %s -dlc-flatten-constants | FileCheck %s

// CHECK-LABEL: func @weights
// CHECK: %[[SPLAT:.*]] = arith.constant dense<1.000000e+00> : tensor<16x8xf32>
// CHECK: %[[FLAT:.*]] = arith.constant dense<{{.*}}> : tensor<128xf32>
// CHECK: %[[W:.*]] = tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [16, 8]
// CHECK: return %[[W]], %[[SPLAT]]
func.func @weights() -> (tensor<16x8xf32>, tensor<16x8xf32>) {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.5]]> : tensor<16x8xf32>
  // Splats are left alone: they fold into fills.
  %s = arith.constant dense<1.0> : tensor<16x8xf32>
  return %w, %s : tensor<16x8xf32>, tensor<16x8xf32>
}
