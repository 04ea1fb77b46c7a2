// RUN: dlc-opt %s -canonicalize -split-input-file | FileCheck %s
// Folding of the shape subgraphs exporters emit, and of trivial ops.

// CHECK-LABEL: func @shape_chain
// CHECK-NOT: dlc_graph.shape
// CHECK-NOT: dlc_graph.gather
// CHECK-NOT: dlc_graph.concat
// CHECK: %[[R:.*]] = dlc_graph.reshape %arg0 : tensor<2x3x4xf32> -> tensor<2x12xf32>
// CHECK: return %[[R]]
func.func @shape_chain(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %s = dlc_graph.shape %x : tensor<2x3x4xf32> -> tensor<3xi64>
  %i0 = arith.constant dense<0> : tensor<i64>
  %d0 = dlc_graph.gather %s, %i0 {axis = 0} : tensor<3xi64>, tensor<i64> -> tensor<i64>
  %u0 = dlc_graph.reshape %d0 : tensor<i64> -> tensor<1xi64>
  %i1 = arith.constant dense<[1, 2]> : tensor<2xi64>
  %d12 = dlc_graph.gather %s, %i1 {axis = 0} : tensor<3xi64>, tensor<2xi64> -> tensor<2xi64>
  %one = arith.constant dense<1> : tensor<i64>
  %p = dlc_graph.reduce_sum %d12 {axes = array<i64>, keepdims = false} : tensor<2xi64> -> tensor<2xi64>
  %m = dlc_graph.mul %d12, %one : tensor<2xi64>, tensor<i64> -> tensor<2xi64>
  %c = dlc_graph.concat %u0, %m {axis = 0} : (tensor<1xi64>, tensor<2xi64>) -> tensor<3xi64>
  %r = dlc_graph.reshape %x : tensor<2x3x4xf32> -> tensor<2x12xf32>
  return %r : tensor<2x12xf32>
}

// -----

// CHECK-LABEL: func @int_math
// CHECK: arith.constant dense<[6, 12]> : tensor<2xi64>
func.func @int_math() -> tensor<2xi64> {
  %a = arith.constant dense<[2, 3]> : tensor<2xi64>
  %b = arith.constant dense<[3, 4]> : tensor<2xi64>
  %m = dlc_graph.mul %a, %b : tensor<2xi64>, tensor<2xi64> -> tensor<2xi64>
  return %m : tensor<2xi64>
}

// -----

// CHECK-LABEL: func @broadcast_fold
// CHECK: arith.constant dense<{{\[}}[11, 12], [21, 22]]> : tensor<2x2xi64>
func.func @broadcast_fold() -> tensor<2x2xi64> {
  %a = arith.constant dense<[[10], [20]]> : tensor<2x1xi64>
  %b = arith.constant dense<[1, 2]> : tensor<2xi64>
  %s = dlc_graph.add %a, %b : tensor<2x1xi64>, tensor<2xi64> -> tensor<2x2xi64>
  return %s : tensor<2x2xi64>
}

// -----

// CHECK-LABEL: func @predicates
// CHECK: arith.constant dense<[true, false]> : tensor<2xi1>
func.func @predicates() -> tensor<2xi1> {
  %a = arith.constant dense<[1.0, 5.0]> : tensor<2xf32>
  %b = arith.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %l = dlc_graph.less %a, %b : tensor<2xf32>, tensor<2xf32> -> tensor<2xi1>
  return %l : tensor<2xi1>
}

// -----

// CHECK-LABEL: func @data_movement
// CHECK-DAG: arith.constant dense<{{\[}}[1, 3], [2, 4]]> : tensor<2x2xi64>
// CHECK-DAG: arith.constant dense<[4, 3]> : tensor<2xi64>
// CHECK-DAG: arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
func.func @data_movement() -> (tensor<2x2xi64>, tensor<2xi64>, tensor<2xf32>) {
  %a = arith.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %t = dlc_graph.transpose %a {perm = array<i64: 1, 0>} : tensor<2x2xi64> -> tensor<2x2xi64>
  %v = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
  %s = dlc_graph.slice %v {starts = array<i64: 3>, sizes = array<i64: 2>, steps = array<i64: -1>} : tensor<4xi64> -> tensor<2xi64>
  %c = dlc_graph.cast %v : tensor<4xi64> to tensor<4xf32>
  %h = dlc_graph.slice %c {starts = array<i64: 0>, sizes = array<i64: 2>, steps = array<i64: 1>} : tensor<4xf32> -> tensor<2xf32>
  return %t, %s, %h : tensor<2x2xi64>, tensor<2xi64>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func @trivial
// CHECK-NOT: dlc_graph.identity
// CHECK-NOT: dlc_graph.transpose
// CHECK: %[[R:.*]] = dlc_graph.reshape %arg0 : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK: return %[[R]]
func.func @trivial(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %i = dlc_graph.identity %x : tensor<2x3xf32>
  %t = dlc_graph.transpose %i {perm = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<2x3xf32>
  %r1 = dlc_graph.reshape %t : tensor<2x3xf32> -> tensor<6xf32>
  %r2 = dlc_graph.reshape %r1 : tensor<6xf32> -> tensor<3x2xf32>
  return %r2 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func @unsigned_cast_fold
// CHECK: arith.constant dense<[2.000000e+02, 1.000000e+00]> : tensor<2xf32>
func.func @unsigned_cast_fold() -> tensor<2xf32> {
  %a = arith.constant dense<[-56, 1]> : tensor<2xi8>
  %c = dlc_graph.cast %a {unsigned_input} : tensor<2xi8> to tensor<2xf32>
  return %c : tensor<2xf32>
}

// -----

// Mod takes the divisor's sign (Python), fmod the dividend's (C).
// CHECK-LABEL: func @remainders
// CHECK-DAG: arith.constant dense<[1, -2, 2, -1]> : tensor<4xi64>
// CHECK-DAG: arith.constant dense<[1, 1, -1, -1]> : tensor<4xi64>
func.func @remainders() -> (tensor<4xi64>, tensor<4xi64>) {
  %a = arith.constant dense<[7, 7, -7, -7]> : tensor<4xi64>
  %b = arith.constant dense<[3, -3, 3, -3]> : tensor<4xi64>
  %m = dlc_graph.mod %a, %b : tensor<4xi64>, tensor<4xi64> -> tensor<4xi64>
  %f = dlc_graph.fmod %a, %b : tensor<4xi64>, tensor<4xi64> -> tensor<4xi64>
  return %m, %f : tensor<4xi64>, tensor<4xi64>
}
