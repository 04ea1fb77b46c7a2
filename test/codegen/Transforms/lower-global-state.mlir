// RUN: dlc-opt %s -dlc-lower-global-state | FileCheck %s

// A training step's state: ml_program globals become memref globals, a load a
// read-only view of the global's buffer, a store a copy into it; each store moves up
// to right after the last read of the old value (through any view of it) and the
// computation of the new one, so the new value's buffer is not live to the end.
// CHECK: memref.global "private" @w : memref<2x2xf32> = dense<1.000000e+00> {alignment = 64 : i64}
// CHECK-LABEL: func @step
// CHECK: %[[W:.*]] = bufferization.to_tensor %{{.*}} restrict : memref<2x2xf32>
// CHECK: %[[M:.*]] = bufferization.to_tensor %{{.*}} restrict : memref<4xf32>
// CHECK: %[[M2:.*]] = arith.addf %[[M]], %arg0
// CHECK-NEXT: %[[MBUF:.*]] = memref.get_global @m
// CHECK-NEXT: bufferization.materialize_in_destination %[[M2]] in restrict writable %[[MBUF]]
// CHECK: %[[W2:.*]] = arith.subf %[[W]],
// CHECK: %[[WV:.*]] = tensor.collapse_shape %[[W]]
// CHECK: %[[Y:.*]] = arith.mulf %[[WV]], %arg1
// CHECK-NEXT: %[[WBUF:.*]] = memref.get_global @w
// CHECK-NEXT: bufferization.materialize_in_destination %[[W2]] in restrict writable %[[WBUF]]
// CHECK-NEXT: arith.mulf %[[Y]], %[[Y]]
// CHECK-NEXT: return
ml_program.global private mutable @w(dense<1.0> : tensor<2x2xf32>) : tensor<2x2xf32>
ml_program.global private mutable @m(dense<0.0> : tensor<4xf32>) : tensor<4xf32>
func.func @step(%g: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %w = ml_program.global_load @w : tensor<2x2xf32>
  %m = ml_program.global_load @m : tensor<4xf32>
  %m2 = arith.addf %m, %g : tensor<4xf32>
  %w2d = tensor.expand_shape %m2 [[0, 1]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>
  %w2 = arith.subf %w, %w2d : tensor<2x2xf32>
  %wv = tensor.collapse_shape %w [[0, 1]] : tensor<2x2xf32> into tensor<4xf32>
  %y = arith.mulf %wv, %x : tensor<4xf32>
  %z = arith.mulf %y, %y : tensor<4xf32>
  ml_program.global_store @m = %m2 : tensor<4xf32>
  ml_program.global_store @w = %w2 : tensor<2x2xf32>
  return %z : tensor<4xf32>
}
