// RUN: dlc-opt %s | dlc-opt | FileCheck %s
// Round-trip of every dlc_graph op's textual form.

// CHECK-LABEL: func @elementwise
func.func @elementwise(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %b: tensor<2x3xi1>) -> tensor<2x3xf32> {
  // CHECK: dlc_graph.add %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %0 = dlc_graph.add %x, %y : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %1 = dlc_graph.sub %0, %y : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %2 = dlc_graph.mul %1, %x : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  %3 = dlc_graph.div %2, %x : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  %4 = dlc_graph.pow %3, %x : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  %5 = dlc_graph.max %4, %x : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  %m1 = dlc_graph.min %5, %x : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: dlc_graph.fmod
  %m2 = dlc_graph.fmod %m1, %y : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %6 = dlc_graph.mod %m2, %y : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  // CHECK: dlc_graph.less {{.*}} -> tensor<2x3xi1>
  %c = dlc_graph.less %6, %x : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xi1>
  %e = dlc_graph.equal %6, %x : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xi1>
  %g = dlc_graph.greater_equal %6, %x : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xi1>
  %a = dlc_graph.and %c, %b : tensor<2x3xi1>, tensor<2x3xi1> -> tensor<2x3xi1>
  %o = dlc_graph.or %a, %e : tensor<2x3xi1>, tensor<2x3xi1> -> tensor<2x3xi1>
  %n = dlc_graph.not %o : tensor<2x3xi1>
  // CHECK: dlc_graph.where
  %7 = dlc_graph.where %n, %6, %y : tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %8 = dlc_graph.exp %7 : tensor<2x3xf32>
  %9 = dlc_graph.tanh %8 : tensor<2x3xf32>
  %10 = dlc_graph.sigmoid %9 : tensor<2x3xf32>
  %11 = dlc_graph.relu %10 : tensor<2x3xf32>
  // CHECK: dlc_graph.leaky_relu %{{.*}} {alpha = 1.000000e-01 : f32}
  %12 = dlc_graph.leaky_relu %11 {alpha = 0.1 : f32} : tensor<2x3xf32>
  // CHECK: dlc_graph.gelu %{{.*}} {approximate = "tanh"}
  %13 = dlc_graph.gelu %12 {approximate = "tanh"} : tensor<2x3xf32>
  // CHECK: dlc_graph.cast %{{.*}} : tensor<2x3xf32> to tensor<2x3xi64>
  %14 = dlc_graph.cast %13 : tensor<2x3xf32> to tensor<2x3xi64>
  %15 = dlc_graph.cast %14 : tensor<2x3xi64> to tensor<2x3xf32>
  return %15 : tensor<2x3xf32>
}

// CHECK-LABEL: func @nn
func.func @nn(%x: tensor<1x4x8x8xf32>, %w: tensor<8x2x3x3xf32>, %b: tensor<8xf32>,
              %s: tensor<8xf32>) -> tensor<1x8xf32> {
  // CHECK: dlc_graph.conv {{.*}} group = 2
  %0 = dlc_graph.conv %x, %w, %b : tensor<8xf32> {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 2} : tensor<1x4x8x8xf32>, tensor<8x2x3x3xf32> -> tensor<1x8x8x8xf32>
  %1 = dlc_graph.batch_norm %0, %s, %b, %b, %s {epsilon = 1.0e-5 : f32} : tensor<1x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<1x8x8x8xf32>
  // CHECK: dlc_graph.max_pool {{.*}} -> tensor<1x8x4x4xf32>
  %2 = dlc_graph.max_pool %1 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : tensor<1x8x8x8xf32> -> tensor<1x8x4x4xf32>
  %3 = dlc_graph.average_pool %2 {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false} : tensor<1x8x4x4xf32> -> tensor<1x8x4x4xf32>
  %4 = dlc_graph.global_average_pool %3 : tensor<1x8x4x4xf32> -> tensor<1x8x1x1xf32>
  // CHECK: dlc_graph.reshape {{.*}} -> tensor<1x8xf32>
  %5 = dlc_graph.reshape %4 : tensor<1x8x1x1xf32> -> tensor<1x8xf32>
  %6 = dlc_graph.softmax %5 {axis = 1} : tensor<1x8xf32>
  %7 = dlc_graph.log_softmax %6 {axis = 1} : tensor<1x8xf32>
  return %7 : tensor<1x8xf32>
}

// CHECK-LABEL: func @contraction_and_shape
func.func @contraction_and_shape(%a: tensor<2x1x4x8xf32>, %b: tensor<3x8x5xf32>,
                                 %m: tensor<4x8xf32>, %n: tensor<5x8xf32>, %c: tensor<5xf32>,
                                 %i: tensor<2x3xi64>) -> tensor<4x5xf32> {
  // CHECK: dlc_graph.matmul {{.*}} -> tensor<2x3x4x5xf32>
  %0 = dlc_graph.matmul %a, %b : tensor<2x1x4x8xf32>, tensor<3x8x5xf32> -> tensor<2x3x4x5xf32>
  %1 = dlc_graph.gemm %m, %n, %c : tensor<5xf32> {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = true} : tensor<4x8xf32>, tensor<5x8xf32> -> tensor<4x5xf32>
  %2 = dlc_graph.transpose %1 {perm = array<i64: 1, 0>} : tensor<4x5xf32> -> tensor<5x4xf32>
  %3 = dlc_graph.concat %2, %2 {axis = 0} : (tensor<5x4xf32>, tensor<5x4xf32>) -> tensor<10x4xf32>
  // CHECK: dlc_graph.split {{.*}} -> tensor<3x4xf32>, tensor<7x4xf32>
  %4:2 = dlc_graph.split %3 {axis = 0, sizes = array<i64: 3, 7>} : tensor<10x4xf32> -> tensor<3x4xf32>, tensor<7x4xf32>
  %5 = dlc_graph.slice %4#1 {starts = array<i64: 6, 0>, sizes = array<i64: 4, 4>, steps = array<i64: -1, 1>} : tensor<7x4xf32> -> tensor<4x4xf32>
  %6 = dlc_graph.gather %5, %i {axis = 0} : tensor<4x4xf32>, tensor<2x3xi64> -> tensor<2x3x4xf32>
  %7 = dlc_graph.reduce_sum %6 {axes = array<i64: 0, 1>, keepdims = false} : tensor<2x3x4xf32> -> tensor<4xf32>
  %8 = dlc_graph.expand %7 : tensor<4xf32> -> tensor<5x4xf32>
  %9 = dlc_graph.pad %8 {pads = array<i64: 0, 1, 0, 0>, mode = "edge", value = 0.0 : f64} : tensor<5x4xf32> -> tensor<5x5xf32>
  %10 = dlc_graph.layer_norm %9, %c {axis = 1, epsilon = 1.0e-5 : f32} : tensor<5x5xf32>, tensor<5xf32> -> tensor<5x5xf32>
  %11 = dlc_graph.identity %10 : tensor<5x5xf32>
  %12 = dlc_graph.slice %11 {starts = array<i64: 0, 0>, sizes = array<i64: 4, 5>, steps = array<i64: 1, 1>} : tensor<5x5xf32> -> tensor<4x5xf32>
  return %12 : tensor<4x5xf32>
}

// -----

// CHECK-LABEL: func @math_and_bits
func.func @math_and_bits(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xi1>) {
  // CHECK: dlc_graph.tan
  %0 = dlc_graph.tan %x : tensor<4xf32>
  %1 = dlc_graph.asin %0 : tensor<4xf32>
  %2 = dlc_graph.acos %1 : tensor<4xf32>
  %3 = dlc_graph.atan %2 : tensor<4xf32>
  %4 = dlc_graph.sinh %3 : tensor<4xf32>
  %5 = dlc_graph.cosh %4 : tensor<4xf32>
  %6 = dlc_graph.asinh %5 : tensor<4xf32>
  %7 = dlc_graph.acosh %6 : tensor<4xf32>
  %8 = dlc_graph.atanh %7 : tensor<4xf32>
  %9 = dlc_graph.sign %8 : tensor<4xf32>
  // CHECK: dlc_graph.round
  %10 = dlc_graph.round %9 : tensor<4xf32>
  // CHECK: dlc_graph.is_inf %{{.*}} {detect_negative = false, detect_positive = true} : tensor<4xf32> -> tensor<4xi1>
  %inf = dlc_graph.is_inf %10 {detect_positive = true, detect_negative = false} : tensor<4xf32> -> tensor<4xi1>
  // CHECK: dlc_graph.is_nan
  %nan = dlc_graph.is_nan %10 : tensor<4xf32> -> tensor<4xi1>
  %both = dlc_graph.or %inf, %nan : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>
  // CHECK: dlc_graph.bitwise_not
  %b0 = dlc_graph.bitwise_not %i : tensor<4xi32>
  %b1 = dlc_graph.bitwise_and %b0, %i : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  %b2 = dlc_graph.bitwise_or %b1, %i : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  %b3 = dlc_graph.bitwise_xor %b2, %i : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  // CHECK: dlc_graph.shift_left
  %b4 = dlc_graph.shift_left %b3, %i : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  %b5 = dlc_graph.shift_right %b4, %i : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  // CHECK: dlc_graph.shift_right_arith
  %b6 = dlc_graph.shift_right_arith %b5, %i : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  return %10, %b6, %both : tensor<4xf32>, tensor<4xi32>, tensor<4xi1>
}

// CHECK-LABEL: func @arg_reductions
func.func @arg_reductions(%x: tensor<2x3xf32>) -> (tensor<2x1xi64>, tensor<3xi64>, tensor<2xf32>) {
  // CHECK: dlc_graph.arg_max %{{.*}} {axis = 1 : i64, keepdims = true, select_last_index = false} : tensor<2x3xf32> -> tensor<2x1xi64>
  %0 = dlc_graph.arg_max %x {axis = 1 : i64, keepdims = true, select_last_index = false} : tensor<2x3xf32> -> tensor<2x1xi64>
  // CHECK: dlc_graph.arg_min
  %1 = dlc_graph.arg_min %x {axis = 0 : i64, keepdims = false, select_last_index = true} : tensor<2x3xf32> -> tensor<3xi64>
  // CHECK: dlc_graph.reduce_prod
  %2 = dlc_graph.reduce_prod %x {axes = array<i64: 1>, keepdims = false} : tensor<2x3xf32> -> tensor<2xf32>
  return %0, %1, %2 : tensor<2x1xi64>, tensor<3xi64>, tensor<2xf32>
}

// CHECK-LABEL: func @gather_elements
func.func @gather_elements(%x: tensor<2x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x1xf32> {
  // CHECK: dlc_graph.gather_elements %{{.*}}, %{{.*}} {axis = 1 : i64} : tensor<2x3xf32>, tensor<2x1xi64> -> tensor<2x1xf32>
  %0 = dlc_graph.gather_elements %x, %i {axis = 1 : i64} : tensor<2x3xf32>, tensor<2x1xi64> -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// CHECK-LABEL: func @scatter_gather_nd
func.func @scatter_gather_nd(%d: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>, %e: tensor<4x3xi64>) -> (tensor<4x3xf32>, tensor<2x3xf32>, tensor<4x3xf32>) {
  // CHECK: dlc_graph.scatter_nd {{.*}} {axis = 0 : i64, reduction = "add"}
  %0 = dlc_graph.scatter_nd %d, %i, %u {axis = 0 : i64, reduction = "add"} : tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32> -> tensor<4x3xf32>
  // CHECK: dlc_graph.gather_nd {{.*}} {batch_dims = 0 : i64}
  %1 = dlc_graph.gather_nd %d, %i {batch_dims = 0 : i64} : tensor<4x3xf32>, tensor<2x1xi64> -> tensor<2x3xf32>
  // CHECK: dlc_graph.scatter_elements
  %2 = dlc_graph.scatter_elements %d, %e, %d {axis = 1 : i64, reduction = "none"} : tensor<4x3xf32>, tensor<4x3xi64>, tensor<4x3xf32> -> tensor<4x3xf32>
  return %0, %1, %2 : tensor<4x3xf32>, tensor<2x3xf32>, tensor<4x3xf32>
}

// CHECK-LABEL: func @integer_contraction
func.func @integer_contraction(%a: tensor<2x4x8xi8>, %b: tensor<8x5xi8>) -> tensor<2x4x5xi32> {
  // CHECK: dlc_graph.matmul_integer %{{.*}}, %{{.*}} {lhs_unsigned} : tensor<2x4x8xi8>, tensor<8x5xi8> -> tensor<2x4x5xi32>
  %0 = dlc_graph.matmul_integer %a, %b {lhs_unsigned} : tensor<2x4x8xi8>, tensor<8x5xi8> -> tensor<2x4x5xi32>
  return %0 : tensor<2x4x5xi32>
}

// CHECK-LABEL: func @quantization
func.func @quantization(%x: tensor<2x4xf32>, %s: tensor<4xf32>, %z: tensor<4xi8>, %t: tensor<f32>) -> tensor<2x4xf32> {
  // CHECK: dlc_graph.quantize %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xi8> {axis = 1 : i64, block_size = 0 : i64, unsigned_output} : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xi8>
  %q = dlc_graph.quantize %x, %s, %z : tensor<4xi8> {axis = 1 : i64, block_size = 0 : i64, unsigned_output} : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xi8>
  // CHECK: dlc_graph.dequantize %{{.*}}, %{{.*}} {axis = 0 : i64, block_size = 0 : i64, unsigned_input} : tensor<2x4xi8>, tensor<f32> -> tensor<2x4xf32>
  %d = dlc_graph.dequantize %q, %t {axis = 0 : i64, block_size = 0 : i64, unsigned_input} : tensor<2x4xi8>, tensor<f32> -> tensor<2x4xf32>
  return %d : tensor<2x4xf32>
}
