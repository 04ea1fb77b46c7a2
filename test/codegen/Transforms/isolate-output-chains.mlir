// RUN: dlc-opt %s -split-input-file -dlc-isolate-output-chains | FileCheck %s
// Each output's chain of in-place tensors (from its tensor.empty root to the value stored
// into the caller's buffer) must not share a link that another op writes: once
// eliminate-empty-tensors computes the chain in the output buffer, the other op's result
// could land there too and be overwritten by the output's final store.

// Two full reductions accumulated from one CSE-shared -inf fill (difftest
// case_e100eacaf7): each user of the fill gets its own fill of its own empty tensor.
// CHECK-LABEL: func @shared_fill
// CHECK-COUNT-2: tensor.empty() : tensor<f32>
// CHECK-NOT: tensor.empty
// CHECK-NOT: bufferization.alloc_tensor
#id = affine_map<(d0) -> (d0)>
#all = affine_map<(d0) -> ()>
func.func @shared_fill(%a: tensor<8xf32>, %b: tensor<8xf32>, %o1: memref<f32>, %o2: memref<f32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r1 = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction"]}
      ins(%a : tensor<8xf32>) outs(%f : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maximumf %x, %acc : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %r2 = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction"]}
      ins(%b : tensor<8xf32>) outs(%f : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maximumf %x, %acc : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  bufferization.materialize_in_destination %r1 in restrict writable %o1 : (tensor<f32>, memref<f32>) -> ()
  bufferization.materialize_in_destination %r2 in restrict writable %o2 : (tensor<f32>, memref<f32>) -> ()
  return
}

// -----

// Two Concats with the same first input share the insert of it (difftest
// case_ade896e197): that chain is computed in its own allocation, then copied out.
// CHECK-LABEL: func @shared_insert
// CHECK: %[[ROOT:.*]] = bufferization.alloc_tensor() : tensor<4x3xf32>
// CHECK: %[[FIRST:.*]] = tensor.insert_slice %{{.*}} into %[[ROOT]][0, 0]
// CHECK: tensor.insert_slice %{{.*}} into %[[FIRST]][2, 0]
// CHECK: tensor.insert_slice %{{.*}} into %[[FIRST]][2, 0]
// CHECK-NOT: tensor.empty
func.func @shared_insert(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>, %z: tensor<2x3xf32>,
                         %o1: memref<4x3xf32>, %o2: memref<4x3xf32>) {
  %e = tensor.empty() : tensor<4x3xf32>
  %s = tensor.insert_slice %x into %e[0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<4x3xf32>
  %c1 = tensor.insert_slice %y into %s[2, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<4x3xf32>
  %c2 = tensor.insert_slice %z into %s[2, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<4x3xf32>
  bufferization.materialize_in_destination %c1 in restrict writable %o1 : (tensor<4x3xf32>, memref<4x3xf32>) -> ()
  bufferization.materialize_in_destination %c2 in restrict writable %o2 : (tensor<4x3xf32>, memref<4x3xf32>) -> ()
  return
}

// -----

// An unshared chain, and one whose shared link is only read: both left as they are.
// CHECK-LABEL: func @unshared
// CHECK-NOT: bufferization.alloc_tensor
func.func @unshared(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>, %o1: memref<4x3xf32>,
                    %o2: memref<2x3xf32>) {
  %e = tensor.empty() : tensor<4x3xf32>
  %s = tensor.insert_slice %x into %e[0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<4x3xf32>
  %c1 = tensor.insert_slice %y into %s[2, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<4x3xf32>
  %r = tensor.extract_slice %s[0, 0] [2, 3] [1, 1] : tensor<4x3xf32> to tensor<2x3xf32>
  bufferization.materialize_in_destination %c1 in restrict writable %o1 : (tensor<4x3xf32>, memref<4x3xf32>) -> ()
  bufferization.materialize_in_destination %r in restrict writable %o2 : (tensor<2x3xf32>, memref<2x3xf32>) -> ()
  return
}
