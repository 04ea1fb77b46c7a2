// RUN: dlc-opt %s -dlc-channels-last -canonicalize -split-input-file | FileCheck %s
// Convs run in NHWC; the layout transposes sink through elementwise ops and
// keepdims reductions and cancel between consecutive convs.

// conv -> relu -> conv -> add(residual) -> mean over H, W: one transpose in, one out.
// CHECK-LABEL: func @residual_block
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x6x6xf32>)
// CHECK: %[[T:.*]] = dlc_graph.transpose %[[X]] {perm = array<i64: 0, 2, 3, 1>}
// CHECK: %[[C1:.*]] = dlc_graph.conv_nhwc %[[T]], %{{.*}}, %{{.*}} : tensor<8xf32> {{.*}} : tensor<1x6x6x8xf32>, tensor<3x3x8x8xf32> -> tensor<1x6x6x8xf32>
// CHECK: %[[R:.*]] = dlc_graph.relu %[[C1]] : tensor<1x6x6x8xf32>
// CHECK: %[[C2:.*]] = dlc_graph.conv_nhwc %[[R]]
// CHECK: %[[A:.*]] = dlc_graph.add %[[C2]], %[[T]] : tensor<1x6x6x8xf32>, tensor<1x6x6x8xf32>
// CHECK: %[[S:.*]] = dlc_graph.mul %[[A]], %{{.*}} : tensor<1x6x6x8xf32>, tensor<1x1x1x8xf32>
// CHECK: %[[M:.*]] = dlc_graph.reduce_mean %[[S]] {axes = array<i64: 1, 2>, keepdims = true} : tensor<1x6x6x8xf32> -> tensor<1x1x1x8xf32>
// CHECK: %[[O:.*]] = dlc_graph.transpose %[[M]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NOT: dlc_graph.transpose
// CHECK: return %[[O]]
func.func @residual_block(%x: tensor<1x8x6x6xf32>) -> tensor<1x8x1x1xf32> {
  %w = arith.constant dense<0.5> : tensor<8x8x3x3xf32>
  %b = arith.constant dense<1.0> : tensor<8xf32>
  %s = arith.constant dense<[[[2.0]], [[3.0]], [[4.0]], [[5.0]], [[6.0]], [[7.0]], [[8.0]], [[9.0]]]> : tensor<8x1x1xf32>
  %0 = dlc_graph.conv %x, %w, %b : tensor<8xf32> {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1} : tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32> -> tensor<1x8x6x6xf32>
  %1 = dlc_graph.relu %0 : tensor<1x8x6x6xf32>
  %2 = dlc_graph.conv %1, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1} : tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32> -> tensor<1x8x6x6xf32>
  %3 = dlc_graph.add %2, %x : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32> -> tensor<1x8x6x6xf32>
  %4 = dlc_graph.mul %3, %s : tensor<1x8x6x6xf32>, tensor<8x1x1xf32> -> tensor<1x8x6x6xf32>
  %5 = dlc_graph.reduce_mean %4 {axes = array<i64: 2, 3>, keepdims = true} : tensor<1x8x6x6xf32> -> tensor<1x8x1x1xf32>
  return %5 : tensor<1x8x1x1xf32>
}

// -----

// Depthwise convs take the NHWC form (weights [KH, KW, 1, C]); pools take their
// channels_last form; other grouped convs and integer convs stay NCHW, and the
// transpose stops there.
// CHECK-LABEL: func @depthwise_and_grouped
// CHECK: dlc_graph.conv_nhwc {{.*}} {dilations = array<i64: 1, 1>, group = 4 : i64{{.*}}} : tensor<1x5x5x4xf32>, tensor<3x3x1x4xf32> -> tensor<1x5x5x4xf32>
// CHECK: dlc_graph.max_pool {{.*}}channels_last{{.*}} : tensor<1x5x5x4xf32> -> tensor<1x5x5x4xf32>
// CHECK: dlc_graph.transpose {{.*}} {perm = array<i64: 0, 3, 1, 2>}
// CHECK: dlc_graph.conv {{.*}}group = 2
// CHECK: dlc_graph.conv {{.*}}: tensor<1x4x5x5xi32>
func.func @depthwise_and_grouped(%x: tensor<1x4x5x5xf32>, %xi: tensor<1x4x5x5xi32>) -> (tensor<1x4x5x5xf32>, tensor<1x4x5x5xi32>) {
  %wd = arith.constant dense<0.5> : tensor<4x1x3x3xf32>
  %wg = arith.constant dense<0.5> : tensor<4x2x1x1xf32>
  %wi = arith.constant dense<1> : tensor<4x4x1x1xi32>
  %0 = dlc_graph.conv %x, %wd {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 4} : tensor<1x4x5x5xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x5x5xf32>
  %1 = dlc_graph.max_pool %0 {kernel = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : tensor<1x4x5x5xf32> -> tensor<1x4x5x5xf32>
  %2 = dlc_graph.conv %1, %wg {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2} : tensor<1x4x5x5xf32>, tensor<4x2x1x1xf32> -> tensor<1x4x5x5xf32>
  %3 = dlc_graph.conv %xi, %wi {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1} : tensor<1x4x5x5xi32>, tensor<4x4x1x1xi32> -> tensor<1x4x5x5xi32>
  return %2, %3 : tensor<1x4x5x5xf32>, tensor<1x4x5x5xi32>
}

// -----

// Transposes sink into every user at once (x * sigmoid(x)) and stay when a user
// cannot take them (reshape).
// CHECK-LABEL: func @silu
// CHECK: %[[C:.*]] = dlc_graph.conv_nhwc
// CHECK: %[[S:.*]] = dlc_graph.sigmoid %[[C]] : tensor<1x3x3x2xf32>
// CHECK: %[[M:.*]] = dlc_graph.mul %[[C]], %[[S]] : tensor<1x3x3x2xf32>, tensor<1x3x3x2xf32>
// CHECK: %[[T:.*]] = dlc_graph.transpose %[[M]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK: dlc_graph.reshape %[[T]]
func.func @silu(%x: tensor<1x2x3x3xf32>) -> tensor<1x18xf32> {
  %w = arith.constant dense<0.5> : tensor<2x2x1x1xf32>
  %0 = dlc_graph.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1} : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x3x3xf32>
  %1 = dlc_graph.sigmoid %0 : tensor<1x2x3x3xf32>
  %2 = dlc_graph.mul %0, %1 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32> -> tensor<1x2x3x3xf32>
  %3 = dlc_graph.reshape %2 : tensor<1x2x3x3xf32> -> tensor<1x18xf32>
  return %3 : tensor<1x18xf32>
}

// -----

// A training step's parameter: the forward's transpose of it is not reused to sink
// the gradient's transpose into the update (that kept the forward copy alive until
// the update at the end of the step); the update stays in the parameter's layout.
// CHECK-LABEL: func @parameter_update
// CHECK: %[[W:.*]] = ml_program.global_load @w
// CHECK: %[[GT:.*]] = dlc_graph.transpose %arg1
// CHECK: %[[N:.*]] = dlc_graph.sub %[[W]], %[[GT]]
// CHECK: ml_program.global_store @w = %[[N]]
ml_program.global private mutable @w(dense<1.0> : tensor<4x4xf32>) : tensor<4x4xf32>
func.func @parameter_update(%x: tensor<2x4xf32>, %g: tensor<4x4xf32>) -> tensor<2x4xf32> {
  %w = ml_program.global_load @w : tensor<4x4xf32>
  %wt = dlc_graph.transpose %w {perm = array<i64: 1, 0>} : tensor<4x4xf32> -> tensor<4x4xf32>
  %y = dlc_graph.matmul %x, %wt : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %gt = dlc_graph.transpose %g {perm = array<i64: 1, 0>} : tensor<4x4xf32> -> tensor<4x4xf32>
  %n = dlc_graph.sub %w, %gt : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  ml_program.global_store @w = %n : tensor<4x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// x * transpose(x) by a self-inverse perm: moving the mul above the transpose would read
// the same transpose again (the operands swapped forever, a hang in difftest), so it stays.
// CHECK-LABEL: func @times_own_transpose
// CHECK: %[[T:.*]] = dlc_graph.transpose %arg0 {perm = array<i64: 1, 0, 2>}
// CHECK: %[[M:.*]] = dlc_graph.mul %[[T]], %arg0
// CHECK: return %[[M]]
func.func @times_own_transpose(%x: tensor<2x2x16xf32>) -> tensor<2x2x16xf32> {
  %0 = dlc_graph.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<2x2x16xf32> -> tensor<2x2x16xf32>
  %1 = dlc_graph.mul %0, %x : tensor<2x2x16xf32>, tensor<2x2x16xf32> -> tensor<2x2x16xf32>
  return %1 : tensor<2x2x16xf32>
}
