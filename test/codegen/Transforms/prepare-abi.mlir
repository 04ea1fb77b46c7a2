// RUN: dlc-opt %s -split-input-file -dlc-prepare-abi -verify-diagnostics | FileCheck %s
// The model function becomes DPS over caller buffers and gets an I/O descriptor.

// CHECK: module attributes {dlc.descriptor = "dlc-module 1\0Ainput x%20in 1 2 2 3\0Aoutput y 1 2 2 3\0Aoutput output1 7 1 4\0A"}
// CHECK-LABEL: func.func @dlc_main(
// CHECK-SAME: %[[X:.*]]: memref<2x3xf32>, %[[Y:.*]]: memref<2x3xf32>, %[[Z:.*]]: memref<4xi64>)
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[X]] restrict
// CHECK: %[[R:.*]] = dlc_graph.relu %[[T]]
// CHECK: bufferization.materialize_in_destination %[[R]] in restrict writable %[[Y]]
// CHECK: bufferization.materialize_in_destination %{{.*}} in restrict writable %[[Z]]
// CHECK-NOT: @main_graph
func.func @main_graph(%x: tensor<2x3xf32> {dlc.name = "x in", dlc.dtype = 1 : i32})
    -> (tensor<2x3xf32> {dlc.name = "y", dlc.dtype = 1 : i32}, tensor<4xi64> {dlc.dtype = 7 : i32}) {
  %0 = dlc_graph.relu %x : tensor<2x3xf32>
  %c = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
  return %0, %c : tensor<2x3xf32>, tensor<4xi64>
}

// -----

// A collapsed result (a packed matmul's [M, N/NB, NB]) is materialized uncollapsed into
// the output buffer viewed the same way, so its producer can write the caller's buffer.
// CHECK-LABEL: func.func @dlc_main(
// CHECK-SAME: %{{.*}}: memref<4x64xf32>, %[[Y:.*]]: memref<4x64xf32>)
// CHECK: %[[G:.*]] = tensor.empty() : tensor<4x2x32xf32>
// CHECK: %[[V:.*]] = memref.expand_shape %[[Y]] {{\[}}[0], [1, 2]] output_shape [4, 2, 32] : memref<4x64xf32> into memref<4x2x32xf32>
// CHECK: bufferization.materialize_in_destination %[[G]] in restrict writable %[[V]]
func.func @main_graph(%x: tensor<4x64xf32> {dlc.name = "x", dlc.dtype = 1 : i32})
    -> (tensor<4x64xf32> {dlc.name = "y", dlc.dtype = 1 : i32}) {
  %e = tensor.empty() : tensor<4x2x32xf32>
  %c = tensor.collapse_shape %e [[0], [1, 2]] : tensor<4x2x32xf32> into tensor<4x64xf32>
  return %c : tensor<4x64xf32>
}

// -----

// Run-time checks: each gets a code (1, 2, ... in order) and an `error` record with its
// message; dlc_main returns the code of the first that failed, 0 when none did.
// CHECK: dlc.descriptor = "dlc-module 1\0Ainput i 7 1 3\0Aoutput y 1 1 3\0Aerror 1 node%20%27g%27%20%28Gather%29:%20bad\0Aerror 2 second\0A"
// CHECK-LABEL: func.func @dlc_main(
// CHECK-SAME: -> i32
// CHECK: %[[S:.*]] = memref.alloca() : memref<i32>
// CHECK: memref.store %{{.*}}, %[[S]][] : memref<i32>
// CHECK: %[[F:.*]] = tensor.extract %{{.*}}[] : tensor<i32>
// CHECK: %[[BAD:.*]] = arith.cmpi ne, %[[F]], %{{.*}} : i32
// CHECK: %[[CUR:.*]] = memref.load %[[S]][] : memref<i32>
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[CUR]], %{{.*}} : i32
// CHECK: %[[BOTH:.*]] = arith.andi %[[BAD]], %[[FIRST]] : i1
// CHECK: %[[NEXT:.*]] = arith.select %[[BOTH]], %c1_i32, %[[CUR]] : i32
// CHECK: memref.store %[[NEXT]], %[[S]][] : memref<i32>
// CHECK: arith.select %{{.*}}, %c2_i32, %{{.*}} : i32
// CHECK-NOT: dlc_graph.runtime_check
// CHECK: %[[RET:.*]] = memref.load %[[S]][] : memref<i32>
// CHECK: return %[[RET]] : i32
func.func @main_graph(%i: tensor<3xi64> {dlc.name = "i", dlc.dtype = 7 : i32})
    -> (tensor<3xf32> {dlc.name = "y", dlc.dtype = 1 : i32}) {
  %f = arith.constant dense<0> : tensor<i32>
  %g = arith.constant dense<1> : tensor<i8>
  dlc_graph.runtime_check %f {message = "node 'g' (Gather): bad"} : tensor<i32>
  dlc_graph.runtime_check %g {message = "second"} : tensor<i8>
  %y = arith.constant dense<1.0> : tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

// Symbolic dims: a `dim` record each (by name), dims written `?name`; dlc_main takes
// dynamic memrefs and records each buffer's dims as symbol indices (-1: static).
// CHECK: dlc.descriptor = "dlc-module 1\0Adim batch 1 64\0Adim seq 1 512\0Ainput x 1 3 ?batch ?seq 8\0Aoutput y 1 2 ?batch 8\0A"
// CHECK-LABEL: func.func @dlc_main(
// CHECK-SAME: %{{.*}}: memref<?x?x8xf32>, %{{.*}}: memref<?x8xf32>)
// CHECK-SAME: dlc.buffer_dims = [array<i64: 0, 1, -1>, array<i64: 0, -1>]
func.func @main_graph(%x: tensor<?x?x8xf32> {dlc.name = "x", dlc.dtype = 1 : i32, dlc.dims = ["batch", "seq", ""]})
    -> (tensor<?x8xf32> {dlc.name = "y", dlc.dtype = 1 : i32, dlc.dims = ["batch", ""]})
    attributes {dlc.dim_ranges = {seq = array<i64: 1, 512>, batch = array<i64: 1, 64>}} {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x8xf32>
  %y = tensor.empty(%b) : tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

// An output dim that is no symbol of its own cannot be described.
func.func @main_graph(%x: tensor<?xf32> {dlc.name = "x", dlc.dtype = 1 : i32, dlc.dims = ["n"]})
    -> (tensor<?xf32> {dlc.name = "y", dlc.dtype = 1 : i32, dlc.dims = ["4*n"]})
    attributes {dlc.dim_ranges = {n = array<i64: 1, 8>}} {
  // expected-error @-3 {{output 'y': dim 0 is 4*n, not one of the model's symbolic dims (--dims)}}
  return %x : tensor<?xf32>
}

// -----

// A computed dim (NonZero's count): declared `computed` (an unused one is dropped), its
// output a flat buffer of the greatest size viewed at the run's sizes, the count written
// into the dims table, which dlc_main takes after the outputs.
// CHECK: dlc.descriptor = "dlc-module 1\0Adim y.count 0 12 computed\0Ainput x 1 2 3 4\0Aoutput y 7 2 2 ?y.count\0A"
// CHECK-LABEL: func.func @dlc_main(
// CHECK-SAME: %{{.*}}: memref<3x4xf32>, %[[Y:.*]]: memref<24xi64>, %[[T:.*]]: memref<1xi64>)
// CHECK: %[[N:.*]] = tensor.dim %[[R:.*]], %c1
// CHECK: %[[I:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: memref.store %[[I]], %[[T]][%c0]
// CHECK: %[[V:.*]] = memref.reinterpret_cast %[[Y]] to offset: [0], sizes: [2, %[[N]]], strides: [%[[N]], 1]
// CHECK: bufferization.materialize_in_destination %[[R]] in restrict writable %[[V]]
func.func @main_graph(%x: tensor<3x4xf32> {dlc.name = "x", dlc.dtype = 1 : i32})
    -> (tensor<2x?xi64> {dlc.name = "y", dlc.dtype = 7 : i32, dlc.dims = ["", "y.count"]})
    attributes {dlc.dim_ranges = {y.count = array<i64: 0, 12>, unused.count = array<i64: 0, 12>},
                dlc.computed_dims = ["y.count", "unused.count"]} {
  %0 = dlc_graph.nonzero %x {count = "y.count"} : tensor<3x4xf32> -> tensor<2x?xi64>
  return %0 : tensor<2x?xi64>
}
