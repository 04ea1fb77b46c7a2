// RUN: dlc-opt %s -dlc-fold-conv-affine -split-input-file | FileCheck %s
// A per-channel constant scale and shift after a conv go into its weights and bias.

// CHECK-LABEL: func @scale_and_shift
// CHECK-DAG: %[[W:.*]] = arith.constant dense<{{\[\[\[\[}}2.000000e+00]]], {{\[\[\[}}-3.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense<[1.200000e+01, -1.900000e+01]> : tensor<2xf32>
// CHECK: %[[C:.*]] = dlc_graph.conv %arg0, %[[W]], %[[B]]
// CHECK-NOT: dlc_graph.mul
// CHECK-NOT: dlc_graph.add
// CHECK: return %[[C]]
func.func @scale_and_shift(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = arith.constant dense<[[[[1.0]]], [[[1.0]]]]> : tensor<2x1x1x1xf32>
  %b = arith.constant dense<[5.0, 6.0]> : tensor<2xf32>
  %s = arith.constant dense<[[[2.0]], [[-3.0]]]> : tensor<2x1x1xf32>
  %t = arith.constant dense<[[[2.0]], [[-1.0]]]> : tensor<2x1x1xf32>
  %0 = dlc_graph.conv %x, %w, %b : tensor<2xf32> {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x4x4xf32>
  %1 = dlc_graph.mul %0, %s : tensor<1x2x4x4xf32>, tensor<2x1x1xf32> -> tensor<1x2x4x4xf32>
  %2 = dlc_graph.add %t, %1 : tensor<2x1x1xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}

// -----

// A conv result with another user, or a scale that varies along width, stays.
// CHECK-LABEL: func @not_per_channel
// CHECK: dlc_graph.mul
// CHECK: dlc_graph.add
func.func @not_per_channel(%x: tensor<1x1x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = arith.constant dense<1.0> : tensor<2x1x1x1xf32>
  %s = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %t = arith.constant dense<1.0> : tensor<2x1x1xf32>
  %0 = dlc_graph.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x4x4xf32>
  %1 = dlc_graph.mul %0, %s : tensor<1x2x4x4xf32>, tensor<4xf32> -> tensor<1x2x4x4xf32>
  %2 = dlc_graph.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x4x4xf32>
  %3 = dlc_graph.add %2, %t : tensor<1x2x4x4xf32>, tensor<2x1x1xf32> -> tensor<1x2x4x4xf32>
  %4 = dlc_graph.add %3, %2 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  return %1, %4 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}
