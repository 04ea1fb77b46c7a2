// RUN: dlc-opt %s -dlc-prepare-abi | FileCheck %s
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
