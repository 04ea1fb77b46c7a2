// RUN: dlc-opt %s -dlc-graph-pipeline -dlc-linalg-pipeline -dlc-llvm-pipeline | FileCheck %s
// A matmul big enough to split: its outer tile loop is dispatched through the runtime
// (dlc_runtime_parallel_for with a chunk trampoline and a closure), and the entry point
// hands its context argument to dlc_main. A tiny elementwise op stays on one thread.

// CHECK: llvm.func internal @dlc_parallel_body_0(
// CHECK: llvm.func internal @dlc_main({{.*}}, %[[CTX:[^ ]*]]: !llvm.ptr) {
// CHECK: llvm.alloca
// CHECK: %[[FN:.*]] = llvm.mlir.addressof @dlc_parallel_body_0_chunk
// CHECK: llvm.call @dlc_runtime_parallel_for(%[[CTX]], %{{.*}}, %[[FN]], %{{.*}})
// CHECK: llvm.func @dlc_runtime_parallel_for(!llvm.ptr, i64, !llvm.ptr, !llvm.ptr)
// CHECK: llvm.func internal @dlc_parallel_body_0_chunk(%{{.*}}: !llvm.ptr, %[[B:.*]]: i64, %[[E:.*]]: i64)
// CHECK: llvm.load
// CHECK: llvm.call @dlc_parallel_body_0({{.*}}%[[B]], %[[E]], %{{.*}})
// CHECK-NOT: dlc_parallel_body_1
// CHECK: llvm.func @dlc_module_entry(%[[BUFS:.*]]: !llvm.ptr, %[[RT:.*]]: !llvm.ptr) -> i32
// CHECK: llvm.call @dlc_main({{.*}}, %[[RT]])
func.func @main_graph(%x: tensor<256x256xf32> {dlc.name = "x", dlc.dtype = 1 : i32},
                      %w: tensor<256x256xf32> {dlc.name = "w", dlc.dtype = 1 : i32})
    -> (tensor<256x256xf32> {dlc.name = "y", dlc.dtype = 1 : i32},
        tensor<4xf32> {dlc.name = "z", dlc.dtype = 1 : i32}) {
  %0 = dlc_graph.matmul %x, %w : tensor<256x256xf32>, tensor<256x256xf32> -> tensor<256x256xf32>
  %c = arith.constant dense<1.0> : tensor<4xf32>
  %1 = dlc_graph.add %c, %c : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0, %1 : tensor<256x256xf32>, tensor<4xf32>
}
