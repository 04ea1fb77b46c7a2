// RUN: dlc-opt %s -dlc-graph-pipeline -dlc-linalg-pipeline -dlc-llvm-pipeline | FileCheck %s
// The whole CPU pipeline: a module with only LLVM dialect, the runtime entry
// point and the descriptor.

// CHECK: llvm.func internal @dlc_main(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK: llvm.mlir.global external constant @dlc_module_descriptor("dlc-module 1\0Ainput x 1 2 4 16\0Aoutput y 1 2 4 16\0A\00")
// CHECK: llvm.func @dlc_module_entry(%[[BUFS:.*]]: !llvm.ptr, %{{.*}}: !llvm.ptr) -> i32
// CHECK: llvm.getelementptr %[[BUFS]][0]
// CHECK: llvm.getelementptr %[[BUFS]][1]
// CHECK: llvm.call @dlc_main
// CHECK-NOT: dlc_graph.
// CHECK-NOT: linalg.
func.func @main_graph(%x: tensor<4x16xf32> {dlc.name = "x", dlc.dtype = 1 : i32})
    -> (tensor<4x16xf32> {dlc.name = "y", dlc.dtype = 1 : i32}) {
  %0 = dlc_graph.softmax %x {axis = 1} : tensor<4x16xf32>
  %1 = dlc_graph.gelu %0 {approximate = "none"} : tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}
