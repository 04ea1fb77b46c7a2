// RUN: dlc-opt %s -dlc-read-padded-interior | FileCheck %s
// A result computed in place in a padded tensor's interior and inserted there (a
// no-op insertion) is read afterwards through the padded tensor: bufferization then
// sees no read of it after the insertion and needs no copy out and back. The
// insertion moves up to the producer so a reshape of the result reads it too.

// CHECK-LABEL: func @residual_reads_interior
// CHECK: %[[R:.*]] = linalg.generic
// CHECK: } -> tensor<1x4x4x8xf32>
// CHECK-NEXT: %[[P:.*]] = tensor.insert_slice %[[R]] into %{{.*}}[0, 1, 1, 0] [1, 4, 4, 8]
// CHECK-NEXT: %[[I:.*]] = tensor.extract_slice %[[P]][0, 1, 1, 0] [1, 4, 4, 8]
// CHECK-NEXT: tensor.collapse_shape %[[I]]
// CHECK: return %[[P]], %[[I]]
func.func @residual_reads_interior(%x: tensor<1x4x4x8xf32>) -> (tensor<1x6x6x8xf32>, tensor<1x4x4x8xf32>, tensor<1x16x8xf32>) {
  %halo = bufferization.alloc_tensor() : tensor<1x6x6x8xf32>
  %init = tensor.extract_slice %halo[0, 1, 1, 0] [1, 4, 4, 8] [1, 1, 1, 1] : tensor<1x6x6x8xf32> to tensor<1x4x4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x4x4x8xf32>) outs(%init : tensor<1x4x4x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } -> tensor<1x4x4x8xf32>
  %c = tensor.collapse_shape %r [[0], [1, 2], [3]] : tensor<1x4x4x8xf32> into tensor<1x16x8xf32>
  %p = tensor.insert_slice %r into %halo[0, 1, 1, 0] [1, 4, 4, 8] [1, 1, 1, 1] : tensor<1x4x4x8xf32> into tensor<1x6x6x8xf32>
  return %p, %r, %c : tensor<1x6x6x8xf32>, tensor<1x4x4x8xf32>, tensor<1x16x8xf32>
}
