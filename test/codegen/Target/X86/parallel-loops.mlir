// RUN: dlc-opt %s -dlc-outline-parallel-loops | FileCheck %s
// A loop marked dlc.parallel becomes a body function over iterations [begin, end) and one
// call over all 8 iterations with the runtime context, dlc_main's new last argument; views
// and constants are re-created in the body, buffers passed in. An unmarked loop stays.

// CHECK: module attributes {dlc.runtime_ctx_arg}
// CHECK: func.func private @dlc_parallel_body_0(%{{.*}}: memref<64x32xf32>, %{{.*}}: memref<64x32xf32>, %[[BEGIN:.*]]: index, %[[END:.*]]: index, %{{.*}}: !llvm.ptr)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-DAG: arith.constant 2.000000e+00 : f32
// CHECK: scf.for %[[K:.*]] = %[[BEGIN]] to %[[END]] step %[[ONE]]
// CHECK: arith.muli %[[K]], %{{.*}}
// CHECK: memref.subview
// CHECK: linalg.generic
// CHECK: func.func @dlc_main(%{{.*}}: memref<64x32xf32>, %{{.*}}: memref<64x32xf32>, %[[CTX:.*]]: !llvm.ptr)
// CHECK: arith.constant 2.0
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT: call @dlc_parallel_body_0(%{{.*}}, %{{.*}}, %[[C0]], %[[C8]], %[[CTX]])
// CHECK-NOT: dlc.parallel
// CHECK: scf.for
// CHECK-NOT: call
// CHECK: return
module {
  func.func @dlc_main(%a: memref<64x32xf32>, %b: memref<64x32xf32>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c8 = arith.constant 8 : index
    %cst = arith.constant 2.0 : f32
    scf.for %i = %c0 to %c64 step %c8 {
      %sa = memref.subview %a[%i, 0] [8, 32] [1, 1] : memref<64x32xf32> to memref<8x32xf32, strided<[32, 1], offset: ?>>
      %sb = memref.subview %b[%i, 0] [8, 32] [1, 1] : memref<64x32xf32> to memref<8x32xf32, strided<[32, 1], offset: ?>>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%sa : memref<8x32xf32, strided<[32, 1], offset: ?>>) outs(%sb : memref<8x32xf32, strided<[32, 1], offset: ?>>) {
      ^bb0(%x: f32, %y: f32):
        %m = arith.mulf %x, %cst : f32
        linalg.yield %m : f32
      }
    } {dlc.parallel}
    scf.for %i = %c0 to %c64 step %c8 {
      %sb = memref.subview %b[%i, 0] [8, 32] [1, 1] : memref<64x32xf32> to memref<8x32xf32, strided<[32, 1], offset: ?>>
      linalg.fill ins(%cst : f32) outs(%sb : memref<8x32xf32, strided<[32, 1], offset: ?>>)
    }
    return
  }
}
