// RUN: dlc-opt %s -convert-graph-to-linalg -split-input-file | FileCheck %s
// Data movement ops lower to tensor ops (views where possible) or indexed generics.

// CHECK-LABEL: func @reshape
// CHECK: tensor.collapse_shape %arg0 {{\[}}[0, 1]] : tensor<2x6xf32> into tensor<12xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1, 2]] output_shape [3, 2, 2]
func.func @reshape(%x: tensor<2x6xf32>) -> tensor<3x2x2xf32> {
  %0 = dlc_graph.reshape %x : tensor<2x6xf32> -> tensor<3x2x2xf32>
  return %0 : tensor<3x2x2xf32>
}

// -----

// CHECK-LABEL: func @transpose
// CHECK: linalg.transpose ins(%arg0 : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<4x2x3xf32>) permutation = [2, 0, 1]
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = dlc_graph.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func @concat_split
// CHECK: tensor.insert_slice %arg0 into %{{.*}}[0, 0] [2, 3] [1, 1]
// CHECK: tensor.insert_slice %arg1 into %{{.*}}[0, 3] [2, 5] [1, 1]
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [2, 4] [1, 1]
// CHECK: tensor.extract_slice %{{.*}}[0, 4] [2, 4] [1, 1]
func.func @concat_split(%x: tensor<2x3xf32>, %y: tensor<2x5xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = dlc_graph.concat %x, %y {axis = 1} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %1:2 = dlc_graph.split %0 {axis = 1, sizes = array<i64: 4, 4>} : tensor<2x8xf32> -> tensor<2x4xf32>, tensor<2x4xf32>
  return %1#0, %1#1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// More than 8 inputs: a tree of insert_slice chains (8 + 2 inputs, then the 2 parts).
// CHECK-LABEL: func @concat_tree
// CHECK: %[[P0:.*]] = tensor.empty() : tensor<1x16xf32>
// CHECK: tensor.insert_slice %arg7 into %{{.*}}[0, 14] [1, 2] [1, 1] : tensor<1x2xf32> into tensor<1x16xf32>
// CHECK: %[[P1:.*]] = tensor.empty() : tensor<1x4xf32>
// CHECK: tensor.insert_slice %arg9 into %{{.*}}[0, 2] [1, 2] [1, 1] : tensor<1x2xf32> into tensor<1x4xf32>
// CHECK: tensor.empty() : tensor<1x20xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [1, 16] [1, 1] : tensor<1x16xf32> into tensor<1x20xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 16] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<1x20xf32>
func.func @concat_tree(%a0: tensor<1x2xf32>, %a1: tensor<1x2xf32>, %a2: tensor<1x2xf32>, %a3: tensor<1x2xf32>, %a4: tensor<1x2xf32>, %a5: tensor<1x2xf32>, %a6: tensor<1x2xf32>, %a7: tensor<1x2xf32>, %a8: tensor<1x2xf32>, %a9: tensor<1x2xf32>) -> tensor<1x20xf32> {
  %0 = dlc_graph.concat %a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8, %a9 {axis = 1} : (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x20xf32>
  return %0 : tensor<1x20xf32>
}

// -----

// CHECK-LABEL: func @slice_positive
// CHECK: tensor.extract_slice %arg0[1, 0] [2, 2] [2, 3]
func.func @slice_positive(%x: tensor<5x6xf32>) -> tensor<2x2xf32> {
  %0 = dlc_graph.slice %x {starts = array<i64: 1, 0>, sizes = array<i64: 2, 2>, steps = array<i64: 2, 3>} : tensor<5x6xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func @slice_negative
// CHECK: linalg.generic
// CHECK: linalg.index 0
// CHECK: tensor.extract %arg0
func.func @slice_negative(%x: tensor<5xf32>) -> tensor<5xf32> {
  %0 = dlc_graph.slice %x {starts = array<i64: 4>, sizes = array<i64: 5>, steps = array<i64: -1>} : tensor<5xf32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// Indices wrap once from the end and are clamped into range.
// CHECK-LABEL: func @gather
// CHECK: linalg.generic {{.*}} ins(%arg1 : tensor<2x3xi64>)
// CHECK: arith.index_cast
// CHECK: arith.select
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: tensor.extract %arg0
func.func @gather(%x: tensor<10x4xf32>, %i: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  %0 = dlc_graph.gather %x, %i {axis = 0} : tensor<10x4xf32>, tensor<2x3xi64> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func @pad_constant_crop
// CHECK: tensor.extract_slice %arg0[1] [3] [1]
// CHECK: %[[C:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: tensor.pad %{{.*}} low[0] high[2]
// CHECK: tensor.yield %[[C]]
func.func @pad_constant_crop(%x: tensor<4xf32>) -> tensor<5xf32> {
  %0 = dlc_graph.pad %x {pads = array<i64: -1, 2>, mode = "constant", value = 0.5 : f64} : tensor<4xf32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// CHECK-LABEL: func @pad_reflect
// CHECK: linalg.generic
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: tensor.extract %arg0
func.func @pad_reflect(%x: tensor<4xf32>) -> tensor<7xf32> {
  %0 = dlc_graph.pad %x {pads = array<i64: 2, 1>, mode = "reflect", value = 0.0 : f64} : tensor<4xf32> -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

// GatherElements reads data at the index, with the axis coordinate replaced.
// CHECK-LABEL: func @gather_elements
// CHECK: linalg.generic
// CHECK: linalg.index 0
// CHECK: arith.index_cast
// CHECK: arith.select
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<2x3xf32>
func.func @gather_elements(%x: tensor<2x3xf32>, %i: tensor<2x4xi64>) -> tensor<2x4xf32> {
  %0 = dlc_graph.gather_elements %x, %i {axis = 1 : i64} : tensor<2x3xf32>, tensor<2x4xi64> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Scatters are an in-order loop over the updates (later writes win, or combine).
// CHECK-LABEL: func @scatter_elements_add
// CHECK: scf.for {{.*}} iter_args
// CHECK: tensor.extract
// CHECK: arith.addf
// CHECK: tensor.insert
func.func @scatter_elements_add(%d: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<4xf32> {
  %0 = dlc_graph.scatter_elements %d, %i, %u {axis = 0 : i64, reduction = "add"} : tensor<4xf32>, tensor<2xi64>, tensor<2xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
