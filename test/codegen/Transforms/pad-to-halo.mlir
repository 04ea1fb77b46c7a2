// RUN: dlc-opt %s -dlc-pad-to-halo -split-input-file | FileCheck %s
// tensor.pad becomes fills of the halo slabs (each halo element once) in a fresh
// buffer placed before the source's producer, and the source inserted in place.

// CHECK-LABEL: func @pad_nhwc
// CHECK: %[[A:.*]] = bufferization.alloc_tensor() : tensor<1x5x6x2xf32>
// CHECK: %[[S0:.*]] = tensor.extract_slice %[[A]][0, 0, 0, 0] [1, 1, 6, 2] [1, 1, 1, 1]
// CHECK: %[[F0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[S0]] : tensor<1x1x6x2xf32>)
// CHECK: %[[I0:.*]] = tensor.insert_slice %[[F0]] into %[[A]][0, 0, 0, 0] [1, 1, 6, 2]
// CHECK: tensor.extract_slice %[[I0]][0, 4, 0, 0] [1, 1, 6, 2]
// CHECK: tensor.extract_slice %{{.*}}[0, 1, 0, 0] [1, 3, 2, 2]
// CHECK: %[[I3:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 1, 0, 0] [1, 3, 2, 2]
// CHECK-NOT: linalg.fill
// CHECK: %[[X:.*]] = linalg.generic
// CHECK: tensor.insert_slice %[[X]] into %[[I3]][0, 1, 2, 0] [1, 3, 4, 2] [1, 1, 1, 1]
// CHECK-NOT: tensor.pad
func.func @pad_nhwc(%x: tensor<1x3x4x2xf32>) -> tensor<1x5x6x2xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3x4x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x3x4x2xf32>) outs(%e : tensor<1x3x4x2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %c : f32
    linalg.yield %m : f32
  } -> tensor<1x3x4x2xf32>
  %p = tensor.pad %r low[0, 1, 2, 0] high[0, 1, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %c : f32
  } : tensor<1x3x4x2xf32> to tensor<1x5x6x2xf32>
  return %p : tensor<1x5x6x2xf32>
}
