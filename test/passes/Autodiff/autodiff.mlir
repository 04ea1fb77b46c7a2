// RUN: dlc-opt %s -split-input-file -dlc-autodiff="wrt=w,b" | FileCheck %s
// Reverse mode over the Differentiable interface: one result per differentiated
// argument, contributions of a value used twice added, a broadcast bias's gradient
// summed back to its shape, relu's gradient masked by its input.

// CHECK-LABEL: func @mlp
// CHECK-SAME: -> (tensor<f32> {dlc.name = "loss"}, tensor<3x2xf32> {dlc.name = "grad_w"}, tensor<2xf32> {dlc.name = "grad_b"})
// CHECK: %[[PRE:.*]] = dlc_graph.add %{{.*}}, %arg2
// CHECK: %[[ACT:.*]] = dlc_graph.relu %[[PRE]]
// CHECK: dlc_graph.reduce_mean
// CHECK: %[[G1:.*]] = dlc_graph.mul %{{.*}}, %[[ACT]]
// CHECK: %[[G2:.*]] = dlc_graph.mul %{{.*}}, %[[ACT]]
// CHECK: %[[GACT:.*]] = dlc_graph.add %[[G1]], %[[G2]]
// CHECK: %[[POS:.*]] = dlc_graph.greater %[[PRE]]
// CHECK: %[[GPRE:.*]] = dlc_graph.where %[[POS]], %[[GACT]]
// CHECK: %[[GB:.*]] = dlc_graph.reduce_sum %[[GPRE]] {axes = array<i64: 0>, keepdims = true}
// CHECK: %[[GBR:.*]] = dlc_graph.reshape %[[GB]] : tensor<1x2xf32> -> tensor<2xf32>
// CHECK: %[[XT:.*]] = dlc_graph.transpose %arg0 {perm = array<i64: 1, 0>}
// CHECK: %[[GW:.*]] = dlc_graph.matmul %[[XT]], %[[GPRE]]
// CHECK: return %{{.*}}, %[[GW]], %[[GBR]]
func.func @mlp(%x: tensor<4x3xf32> {dlc.name = "x"}, %w: tensor<3x2xf32> {dlc.name = "w"}, %bias: tensor<2xf32> {dlc.name = "b"}) -> (tensor<f32> {dlc.name = "loss"}) {
  %0 = dlc_graph.matmul %x, %w : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
  %1 = dlc_graph.add %0, %bias : tensor<4x2xf32>, tensor<2xf32> -> tensor<4x2xf32>
  %2 = dlc_graph.relu %1 : tensor<4x2xf32>
  %3 = dlc_graph.mul %2, %2 : tensor<4x2xf32>, tensor<4x2xf32> -> tensor<4x2xf32>
  %4 = dlc_graph.reduce_mean %3 {axes = array<i64: 0, 1>, keepdims = false} : tensor<4x2xf32> -> tensor<f32>
  return %4 : tensor<f32>
}

// -----

// An argument the loss does not depend on gets zeros; integer ops off the
// gradient path (shape arithmetic) need no rule.
// CHECK-LABEL: func @unused
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK: return %{{.*}}, %{{.*}}, %[[Z]]
func.func @unused(%x: tensor<2xf32> {dlc.name = "w"}, %y: tensor<2xf32> {dlc.name = "b"}, %i: tensor<2xi64> {dlc.name = "i"}) -> (tensor<2xf32> {dlc.name = "out"}) {
  %0 = dlc_graph.exp %x : tensor<2xf32>
  %1 = dlc_graph.add %i, %i : tensor<2xi64>, tensor<2xi64> -> tensor<2xi64>
  return %0 : tensor<2xf32>
}
