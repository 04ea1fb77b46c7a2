// RUN: dlc-opt %s -convert-graph-to-linalg -split-input-file | FileCheck %s
// Pooling (pad + named pooling op, average divides by the per-window count) and reductions.

// CHECK-LABEL: func @max_pool_ceil
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: linalg.pooling_nchw_max
func.func @max_pool_ceil(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %0 = dlc_graph.max_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : tensor<1x2x5x5xf32> -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// Corner windows of a 3x3 / pad 1 average see 4 valid inputs, edges 6, the middle 9.
// CHECK-LABEL: func @average_pool_exclude_pad
// CHECK: linalg.pooling_nchw_sum
// CHECK: arith.constant dense<{{\[}}[2.500000e-01, 0.166666672, 2.500000e-01], [0.166666672, 0.111111112, 0.166666672], [2.500000e-01, 0.166666672, 2.500000e-01]]> : tensor<3x3xf32>
func.func @average_pool_exclude_pad(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %0 = dlc_graph.average_pool %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false} : tensor<1x2x3x3xf32> -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func @reduce_max_keepdims
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK: arith.maximumf
// CHECK: tensor.expand_shape {{.*}} into tensor<2x1x1xf32>
func.func @reduce_max_keepdims(%x: tensor<2x3x4xf32>) -> tensor<2x1x1xf32> {
  %0 = dlc_graph.reduce_max %x {axes = array<i64: 1, 2>, keepdims = true} : tensor<2x3x4xf32> -> tensor<2x1x1xf32>
  return %0 : tensor<2x1x1xf32>
}

// -----

// CHECK-LABEL: func @reduce_mean
// CHECK: arith.addf
// CHECK: arith.constant 3.000000e+00 : f32
// CHECK: arith.divf
func.func @reduce_mean(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = dlc_graph.reduce_mean %x {axes = array<i64: 1>, keepdims = false} : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// ArgMax carries (value, index) through one reduction; ties keep the first index.
// CHECK-LABEL: func @arg_max
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: linalg.index 1
// CHECK: arith.cmpf ogt
// CHECK: arith.select
// CHECK: arith.select
func.func @arg_max(%x: tensor<2x3xf32>) -> tensor<2xi64> {
  %0 = dlc_graph.arg_max %x {axis = 1 : i64, keepdims = false, select_last_index = false} : tensor<2x3xf32> -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Boolean max is any.
// CHECK-LABEL: func @reduce_max_bool
// CHECK: arith.ori
func.func @reduce_max_bool(%x: tensor<2x3xi1>) -> tensor<2xi1> {
  %0 = dlc_graph.reduce_max %x {axes = array<i64: 1>, keepdims = false} : tensor<2x3xi1> -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

// channels_last pools: NHWC linalg pools; average counts broadcast as [OH, OW, 1].
// CHECK-LABEL: func @pools_nhwc
// CHECK: tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
// CHECK: linalg.pooling_nhwc_sum
// CHECK: arith.constant dense<{{.*}}> : tensor<3x3x1xf32>
func.func @pools_nhwc(%x: tensor<1x6x6x8xf32>) -> (tensor<1x3x3x8xf32>, tensor<1x3x3x8xf32>) {
  %0 = dlc_graph.max_pool %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false, channels_last} : tensor<1x6x6x8xf32> -> tensor<1x3x3x8xf32>
  %1 = dlc_graph.average_pool %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false, channels_last} : tensor<1x6x6x8xf32> -> tensor<1x3x3x8xf32>
  return %0, %1 : tensor<1x3x3x8xf32>, tensor<1x3x3x8xf32>
}
