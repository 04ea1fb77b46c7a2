// RUN: dlc-opt %s -dlc-graph-pipeline -dlc-linalg-pipeline -dlc-llvm-pipeline | FileCheck %s
// The whole CPU pipeline: a module with only LLVM dialect, the runtime entry
// point and the descriptor.

// dlc_main takes the buffer table (dlc-pack-entry-arguments) and loads each slot;
// the entry forwards the table.
// CHECK: llvm.func internal @dlc_main(%[[TABLE:[^:]*]]: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-DAG: llvm.getelementptr %[[TABLE]][0]
// CHECK-DAG: llvm.getelementptr %[[TABLE]][1]
// CHECK: llvm.mlir.global external constant @dlc_module_descriptor("dlc-module 1\0Ainput x 1 2 4 16\0Aoutput y 1 2 4 16\0A\00")
// CHECK: llvm.func @dlc_module_entry(%[[BUFS:.*]]: !llvm.ptr, %{{.*}}: !llvm.ptr) -> i32
// CHECK: llvm.call @dlc_main(%[[BUFS]],
// CHECK-NOT: dlc_graph.
// CHECK-NOT: linalg.
func.func @main_graph(%x: tensor<4x16xf32> {dlc.name = "x", dlc.dtype = 1 : i32})
    -> (tensor<4x16xf32> {dlc.name = "y", dlc.dtype = 1 : i32}) {
  %0 = dlc_graph.softmax %x {axis = 1} : tensor<4x16xf32>
  %1 = dlc_graph.gelu %0 {approximate = "none"} : tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}
