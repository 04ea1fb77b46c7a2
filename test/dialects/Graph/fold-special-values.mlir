// RUN: dlc-opt %s -canonicalize -split-input-file | FileCheck %s
// Elementwise ops fold by evaluating their scalar body (ScalarSemantics.cpp) with the
// arith/math folders: IEEE results, the same the compiled op computes.

// CHECK-LABEL: func @ieee
// CHECK-DAG: arith.constant dense<[0x7FC00000, 0x7F800000, 0xFF800000]> : tensor<3xf32>
// CHECK-DAG: arith.constant dense<0x7FC00000> : tensor<2xf32>
// CHECK-DAG: arith.constant dense<[0x7FC00000, -0.000000e+00, 2.000000e+00]> : tensor<3xf32>
// CHECK-DAG: arith.constant dense<[0x7FC00000, 0xFF800000]> : tensor<2xf32>
// CHECK-DAG: arith.constant dense<148.413162> : tensor<1xf32>
// CHECK-NOT: dlc_graph
func.func @ieee() -> (tensor<3xf32>, tensor<2xf32>, tensor<3xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) {
  %a = arith.constant dense<[0.0, 1.0, -1.0]> : tensor<3xf32>
  %z = arith.constant dense<0.0> : tensor<3xf32>
  // 0/0, 1/0, -1/0
  %d = dlc_graph.div %a, %z : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %n = arith.constant dense<[0x7FC00000, 2.0]> : tensor<2xf32>
  %o = arith.constant dense<[1.0, 0x7FC00000]> : tensor<2xf32>
  // max(NaN, 1), max(2, NaN)
  %m = dlc_graph.max %n, %o : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  // relu(NaN), relu(-0), relu(2)
  %rn = arith.constant dense<[0x7FC00000, -0.0, 2.0]> : tensor<3xf32>
  %r = dlc_graph.relu %rn : tensor<3xf32>
  // log(-1), log(0)
  %ln = arith.constant dense<[-1.0, 0.0]> : tensor<2xf32>
  %l = dlc_graph.log %ln : tensor<2xf32>
  %five = arith.constant dense<5.0> : tensor<1xf32>
  %zero = arith.constant dense<0.0> : tensor<1xf32>
  // fmod(5, 0)
  %fm = dlc_graph.fmod %five, %zero : tensor<1xf32>, tensor<1xf32> -> tensor<1xf32>
  %e = dlc_graph.exp %five : tensor<1xf32>
  return %d, %m, %r, %l, %fm, %e : tensor<3xf32>, tensor<2xf32>, tensor<3xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>
}

// -----

// Integer division by zero and INT_MIN / -1 (undefined in ONNX) fold as dlc defines them at
// run time (NumPy's answers): x / 0 = 0, x % 0 = 0, INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0.
// CHECK-LABEL: func @int_div_by_zero
// CHECK: arith.constant dense<[3, 0]> : tensor<2xi64>
// CHECK-NOT: dlc_graph
// CHECK-LABEL: func @int_min_by_minus_one
// CHECK-DAG: arith.constant dense<-128> : tensor<1xi8>
// CHECK-DAG: arith.constant dense<0> : tensor<1xi8>
// CHECK-NOT: dlc_graph
// CHECK-LABEL: func @int_fold
// CHECK: arith.constant dense<[3, 9]> : tensor<2xi64>
// CHECK-NOT: dlc_graph
func.func @int_div_by_zero() -> tensor<2xi64> {
  %i = arith.constant dense<[7, 9]> : tensor<2xi64>
  %j = arith.constant dense<[2, 0]> : tensor<2xi64>
  %d = dlc_graph.div %i, %j : tensor<2xi64>, tensor<2xi64> -> tensor<2xi64>
  return %d : tensor<2xi64>
}
func.func @int_min_by_minus_one() -> (tensor<1xi8>, tensor<1xi8>) {
  %i = arith.constant dense<-128> : tensor<1xi8>
  %j = arith.constant dense<-1> : tensor<1xi8>
  %d = dlc_graph.div %i, %j : tensor<1xi8>, tensor<1xi8> -> tensor<1xi8>
  %m = dlc_graph.mod %i, %j : tensor<1xi8>, tensor<1xi8> -> tensor<1xi8>
  return %d, %m : tensor<1xi8>, tensor<1xi8>
}
func.func @int_fold() -> tensor<2xi64> {
  %i = arith.constant dense<[7, 9]> : tensor<2xi64>
  %j = arith.constant dense<[2, 1]> : tensor<2xi64>
  %d = dlc_graph.div %i, %j : tensor<2xi64>, tensor<2xi64> -> tensor<2xi64>
  return %d : tensor<2xi64>
}
