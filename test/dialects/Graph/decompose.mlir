// RUN: dlc-opt %s -dlc-decompose -split-input-file | FileCheck %s
// dlc-decompose: composite ops expressed with primitives.

// CHECK-LABEL: func @gemm
// CHECK: %[[T:.*]] = dlc_graph.transpose %arg1 {perm = array<i64: 1, 0>}
// CHECK: %[[M:.*]] = dlc_graph.matmul %arg0, %[[T]]
// CHECK: %[[A:.*]] = dlc_graph.mul %[[M]], %{{.*}} : tensor<2x4xf32>, tensor<f32>
// CHECK: %[[C:.*]] = dlc_graph.mul %arg2, %{{.*}} : tensor<4xf32>, tensor<f32>
// CHECK: dlc_graph.add %[[A]], %[[C]]
// CHECK-NOT: dlc_graph.gemm
func.func @gemm(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>, %c: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = dlc_graph.gemm %a, %b, %c : tensor<4xf32> {alpha = 2.0 : f32, beta = 0.5 : f32, transA = false, transB = true} : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func @softmax
// CHECK: %[[M:.*]] = dlc_graph.reduce_max %arg0 {axes = array<i64: 1>, keepdims = true}
// CHECK: %[[S:.*]] = dlc_graph.sub %arg0, %[[M]]
// CHECK: %[[E:.*]] = dlc_graph.exp %[[S]]
// CHECK: %[[Z:.*]] = dlc_graph.reduce_sum %[[E]] {axes = array<i64: 1>, keepdims = true}
// CHECK: %[[R:.*]] = dlc_graph.reciprocal %[[Z]]
// CHECK: dlc_graph.mul %[[E]], %[[R]]
func.func @softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = dlc_graph.softmax %x {axis = 1} : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// CHECK-LABEL: func @log_softmax
// CHECK: %[[S:.*]] = dlc_graph.sub %arg0
// CHECK: %[[L:.*]] = dlc_graph.log
// CHECK: dlc_graph.sub %[[S]], %[[L]]
func.func @log_softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = dlc_graph.log_softmax %x {axis = 1} : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// CHECK-LABEL: func @batch_norm
// CHECK: dlc_graph.sqrt
// CHECK: dlc_graph.reshape %{{.*}} : tensor<3xf32> -> tensor<3x1x1xf32>
// CHECK: dlc_graph.mul %arg0, %{{.*}} : tensor<1x3x4x4xf32>, tensor<3x1x1xf32>
// CHECK: dlc_graph.add %{{.*}}, %{{.*}} : tensor<1x3x4x4xf32>, tensor<3x1x1xf32>
func.func @batch_norm(%x: tensor<1x3x4x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>,
                      %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<1x3x4x4xf32> {
  %0 = dlc_graph.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-5 : f32} : tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32> -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

// CHECK-LABEL: func @layer_norm
// CHECK: %[[MEAN:.*]] = dlc_graph.reduce_mean %arg0 {axes = array<i64: 1, 2>, keepdims = true}
// CHECK: %[[D:.*]] = dlc_graph.sub %arg0, %[[MEAN]]
// CHECK: dlc_graph.reduce_mean %{{.*}} {axes = array<i64: 1, 2>, keepdims = true}
// CHECK: %[[SQRT:.*]] = dlc_graph.sqrt
// CHECK: %[[INV:.*]] = dlc_graph.reciprocal %[[SQRT]]
// CHECK: dlc_graph.mul %[[D]], %[[INV]]
// CHECK: dlc_graph.mul %{{.*}}, %arg1
// CHECK: dlc_graph.add %{{.*}}, %arg2
func.func @layer_norm(%x: tensor<2x3x4xf32>, %s: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<2x3x4xf32> {
  %0 = dlc_graph.layer_norm %x, %s, %b : tensor<4xf32> {axis = 1, epsilon = 1.0e-5 : f32} : tensor<2x3x4xf32>, tensor<3x4xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func @gelu
// CHECK-DAG: %[[SQRT1_2:.*]] = arith.constant dense<0.707106769> : tensor<f32>
// CHECK: dlc_graph.mul %arg0, %[[SQRT1_2]]
// CHECK: dlc_graph.erf
func.func @gelu(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = dlc_graph.gelu %x {approximate = "none"} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// CHECK-LABEL: func @gelu_tanh
// CHECK: dlc_graph.tanh
// CHECK-NOT: dlc_graph.erf
func.func @gelu_tanh(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = dlc_graph.gelu %x {approximate = "tanh"} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// CHECK-LABEL: func @clip
// CHECK: %[[LO:.*]] = dlc_graph.reshape %arg1 : tensor<1xf32> -> tensor<f32>
// CHECK: %[[MX:.*]] = dlc_graph.max %arg0, %[[LO]]
// CHECK: dlc_graph.min %[[MX]], %arg2
func.func @clip(%x: tensor<8xf32>, %lo: tensor<1xf32>, %hi: tensor<f32>) -> tensor<8xf32> {
  %0 = dlc_graph.clip %x, %lo, %hi : tensor<8xf32>, tensor<1xf32>, tensor<f32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// CHECK-LABEL: func @global_average_pool
// CHECK: dlc_graph.reduce_mean %arg0 {axes = array<i64: 2, 3>, keepdims = true}
func.func @global_average_pool(%x: tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32> {
  %0 = dlc_graph.global_average_pool %x : tensor<1x8x7x7xf32> -> tensor<1x8x1x1xf32>
  return %0 : tensor<1x8x1x1xf32>
}

// -----

// quantize / dequantize left over by the quantization passes: ONNX's reference math.
// CHECK-LABEL: func @quantize_per_axis
// CHECK: %[[S:.*]] = dlc_graph.reshape %arg1 : tensor<4xf32> -> tensor<1x4xf32>
// CHECK: %[[D:.*]] = dlc_graph.div %arg0, %[[S]]
// CHECK: %[[R:.*]] = dlc_graph.round %[[D]]
// CHECK: %[[Z:.*]] = dlc_graph.cast %{{.*}} {unsigned_input} : tensor<1x4xi8> to tensor<1x4xf32>
// CHECK: dlc_graph.add %[[R]], %[[Z]]
// CHECK: dlc_graph.min
// CHECK: dlc_graph.max
// CHECK: dlc_graph.cast {{.*}} : tensor<2x4xf32> to tensor<2x4xi8>
// CHECK-NOT: dlc_graph.quantize
func.func @quantize_per_axis(%x: tensor<2x4xf32>, %s: tensor<4xf32>, %z: tensor<4xi8>) -> tensor<2x4xi8> {
  %q = dlc_graph.quantize %x, %s, %z : tensor<4xi8> {axis = 1 : i64, block_size = 0 : i64, unsigned_output} : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xi8>
  return %q : tensor<2x4xi8>
}

// -----

// CHECK-LABEL: func @dequantize_blocked
// CHECK: dlc_graph.cast %arg0 : tensor<2x6xi8> to tensor<2x6xf32>
// CHECK: dlc_graph.expand {{.*}} -> tensor<2x3x2xf32>
// CHECK: dlc_graph.mul
// CHECK-NOT: dlc_graph.dequantize
func.func @dequantize_blocked(%x: tensor<2x6xi8>, %s: tensor<2x3xf32>) -> tensor<2x6xf32> {
  %d = dlc_graph.dequantize %x, %s {axis = 1 : i64, block_size = 2 : i64} : tensor<2x6xi8>, tensor<2x3xf32> -> tensor<2x6xf32>
  return %d : tensor<2x6xf32>
}
