// RUN: dlc-opt %s -convert-graph-to-linalg -split-input-file | FileCheck %s
// RUN: dlc-opt %s -convert-graph-to-linalg="im2col-pixels=36" -split-input-file | FileCheck %s --check-prefix=IM2COL
// RUN: dlc-opt %s -convert-graph-to-linalg="bf16-weights=true" -split-input-file | FileCheck %s --check-prefix=BF16W
// MatMul and convolution lowering.

// CHECK-LABEL: func @matmul_2d
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: linalg.matmul ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8x5xf32>) outs(%[[F]] : tensor<4x5xf32>)
func.func @matmul_2d(%a: tensor<4x8xf32>, %b: tensor<8x5xf32>) -> tensor<4x5xf32> {
  %0 = dlc_graph.matmul %a, %b : tensor<4x8xf32>, tensor<8x5xf32> -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func @matmul_batched_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @matmul_batched_broadcast(%a: tensor<2x1x4x8xf32>, %b: tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = dlc_graph.matmul %a, %b : tensor<2x1x4x8xf32>, tensor<3x8x5xf32> -> tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// -----

// CHECK-LABEL: func @conv
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: %[[COL:.*]] = tensor.expand_shape %arg2 {{\[}}[0, 1, 2]] output_shape [8, 1, 1]
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%[[COL]] : tensor<8x1x1xf32>)
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[P]], %arg1 : {{.*}}) outs(%[[B]] : tensor<1x8x4x4xf32>)
func.func @conv(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  %0 = dlc_graph.conv %x, %w, %b : tensor<8xf32> {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1} : tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32> -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

// Depthwise: a sum over the 9 filter taps of strided input views times per-channel weights.
// CHECK-LABEL: func @depthwise
// CHECK: tensor.extract_slice %arg0[0, 0, 0, 0] [1, 4, 6, 6] [1, 1, 1, 1]
// CHECK: tensor.extract_slice %arg0[0, 0, 2, 2] [1, 4, 6, 6] [1, 1, 1, 1]
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-COUNT-9: arith.mulf
// CHECK-NOT: linalg.depthwise_conv_2d_nchw_chw
func.func @depthwise(%x: tensor<1x4x8x8xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %0 = dlc_graph.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 4} : tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// CHECK-LABEL: func @grouped
// CHECK: tensor.expand_shape %arg0 {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 2, 2, 8, 8]
// CHECK: linalg.conv_2d_ngchw_gfchw
// CHECK: tensor.collapse_shape {{.*}} into tensor<1x6x6x6xf32>
func.func @grouped(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32> {
  %0 = dlc_graph.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2} : tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

// Stride-1 NHWC conv: implicit GEMM over weights packed at compile time as
// [F/FB][KH][KW][C][FB] (here F = 16: one block), accumulating from zero; the bias is
// added by an elementwise consumer in the blocked layout (the kernel's epilogue).
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6 * 2, d7)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func @conv_nhwc_implicit_gemm
// BF16W-LABEL: func @conv_nhwc_implicit_gemm
// BF16W: arith.constant dense<{{.*}}> : tensor<1x3x3x2x16xbf16>
// BF16W: arith.extf
// CHECK-DAG: %[[PW:.*]] = arith.constant dense<{{.*}}> : tensor<1x3x3x2x16xf32>
// CHECK-DAG: %[[P:.*]] = tensor.pad %arg0 low[0, 1, 2, 0] high[0, 1, 2, 0]
// CHECK: %[[Z:.*]] = linalg.fill
// CHECK: %[[G:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[W]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[P]], %[[PW]] : tensor<1x8x10x2xf32>, tensor<1x3x3x2x16xf32>) outs(%[[Z]] : tensor<1x6x6x1x16xf32>)
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%[[G]], %{{.*}} : tensor<1x6x6x1x16xf32>, tensor<1x16xf32>)
// CHECK: arith.addf
// CHECK: tensor.collapse_shape %[[B]] {{\[}}[0], [1], [2], [3, 4]] : tensor<1x6x6x1x16xf32> into tensor<1x6x6x16xf32>
func.func @conv_nhwc_implicit_gemm(%x: tensor<1x6x6x2xf32>, %b: tensor<16xf32>) -> tensor<1x6x6x16xf32> {
  %w = arith.constant dense<[[[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0]], [[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0]], [[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0]]], [[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0]], [[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0]], [[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0]]], [[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0]], [[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0]], [[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0]]]]> : tensor<3x3x2x16xf32>
  %0 = dlc_graph.conv_nhwc %x, %w, %b : tensor<16xf32> {strides = array<i64: 1, 1>, pads = array<i64: 1, 2, 1, 2>, dilations = array<i64: 1, 2>, group = 1} : tensor<1x6x6x2xf32>, tensor<3x3x2x16xf32> -> tensor<1x6x6x16xf32>
  return %0 : tensor<1x6x6x16xf32>
}

// -----

// Stride 1 with at most im2col-pixels (36) output pixels and at least 8 channels: the
// (dilated) windows copied out, one row of KH*KW*C = 72 per output pixel, and the packed
// GEMM; the bias added to its [pixels, F] result before the reshape back to NHWC.
// Without the option (CHECK): the implicit GEMM.
// IM2COL-DAG: #[[COLS_IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 + d3, d2 + d4 * 2, d5)>
// IM2COL-LABEL: func @conv_nhwc_small_image
// IM2COL: %[[P:.*]] = tensor.pad %arg0 low[0, 1, 2, 0] high[0, 1, 2, 0]
// IM2COL: %[[C:.*]] = linalg.generic {indexing_maps = [#[[COLS_IN]], {{.*}}]{{.*}} ins(%[[P]] : tensor<1x8x10x8xf32>) outs(%{{.*}} : tensor<1x6x6x3x3x8xf32>)
// IM2COL: %[[R:.*]] = tensor.collapse_shape %[[C]] {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<1x6x6x3x3x8xf32> into tensor<36x72xf32>
// IM2COL: linalg.generic {{.*}} ins(%[[R]], %{{.*}} : tensor<36x72xf32>, tensor<1x72x16xf32>) outs(%{{.*}} : tensor<36x1x16xf32>)
// IM2COL: linalg.generic {{.*}} ins(%{{.*}}, %arg2 : tensor<36x16xf32>, tensor<16xf32>)
// IM2COL: arith.addf
// IM2COL: tensor.expand_shape {{.*}} into tensor<1x6x6x16xf32>
// CHECK-LABEL: func @conv_nhwc_small_image
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x8x10x8xf32>, tensor<1x3x3x8x16xf32>) outs(%{{.*}} : tensor<1x6x6x1x16xf32>)
func.func @conv_nhwc_small_image(%x: tensor<1x6x6x8xf32>, %w: tensor<3x3x8x16xf32>, %b: tensor<16xf32>) -> tensor<1x6x6x16xf32> {
  %0 = dlc_graph.conv_nhwc %x, %w, %b : tensor<16xf32> {strides = array<i64: 1, 1>, pads = array<i64: 1, 2, 1, 2>, dilations = array<i64: 1, 2>, group = 1} : tensor<1x6x6x8xf32>, tensor<3x3x8x16xf32> -> tensor<1x6x6x16xf32>
  return %0 : tensor<1x6x6x16xf32>
}

// -----

// 1x1 stride 2: the strided input pixels, then a 1x1 implicit GEMM. Non-constant
// weights are packed by a transpose at run time.
// CHECK-LABEL: func @conv_nhwc_pointwise_strided
// CHECK: %[[S:.*]] = tensor.extract_slice %arg0[0, 0, 0, 0] [1, 4, 4, 8] [1, 2, 2, 1] : tensor<1x8x8x8xf32> to tensor<1x4x4x8xf32>
// CHECK: %[[PW:.*]] = linalg.transpose ins(%{{.*}} : tensor<1x1x8x4x32xf32>) outs(%{{.*}} : tensor<4x1x1x8x32xf32>) permutation = [3, 0, 1, 2, 4]
// CHECK: linalg.generic {{.*}} ins(%[[S]], %[[PW]] : tensor<1x4x4x8xf32>, tensor<4x1x1x8x32xf32>) outs(%{{.*}} : tensor<1x4x4x4x32xf32>)
func.func @conv_nhwc_pointwise_strided(%x: tensor<1x8x8x8xf32>, %w: tensor<1x1x8x128xf32>) -> tensor<1x4x4x128xf32> {
  %0 = dlc_graph.conv_nhwc %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1} : tensor<1x8x8x8xf32>, tensor<1x1x8x128xf32> -> tensor<1x4x4x128xf32>
  return %0 : tensor<1x4x4x128xf32>
}

// -----

// Strided k > 1 with at least 8 input channels: im2col (the strided windows copied
// out as [N, OH, OW, KH, KW, C]) and the packed GEMM over all output pixels.
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d3, d2 * 2 + d4, d5)>
// CHECK-LABEL: func @conv_nhwc_strided_im2col
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: %[[C:.*]] = linalg.generic {indexing_maps = [#[[WIN]], {{.*}}]{{.*}} ins(%[[P]] : tensor<1x10x10x8xf32>) outs(%{{.*}} : tensor<1x4x4x3x3x8xf32>)
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[C]] {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<1x4x4x3x3x8xf32> into tensor<16x72xf32>
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[R]], %{{.*}} : tensor<16x72xf32>, tensor<1x72x16xf32>) outs(%{{.*}} : tensor<16x1x16xf32>)
// CHECK: tensor.collapse_shape %[[G]] {{\[}}[0], [1, 2]] : tensor<16x1x16xf32> into tensor<16x16xf32>
// CHECK: tensor.expand_shape {{.*}} into tensor<1x4x4x16xf32>
func.func @conv_nhwc_strided_im2col(%x: tensor<1x8x8x8xf32>, %w: tensor<3x3x8x16xf32>) -> tensor<1x4x4x16xf32> {
  %0 = dlc_graph.conv_nhwc %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1} : tensor<1x8x8x8xf32>, tensor<3x3x8x16xf32> -> tensor<1x4x4x16xf32>
  return %0 : tensor<1x4x4x16xf32>
}

// -----

// Strided k > 1 with fewer channels (a stem's 3): linalg's NHWC conv (decomposed to
// 1-D later); depthwise: the [KH, KW, 1, C] weights viewed as HWC.
// CHECK-LABEL: func @conv_nhwc_strided_and_depthwise
// CHECK: linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%{{.*}}, %arg1 : tensor<1x10x10x4xf32>, tensor<3x3x4x8xf32>)
// CHECK: %[[DW:.*]] = tensor.collapse_shape %arg2
// CHECK: tensor.expand_shape %[[DW]] {{.*}} into tensor<3x3x4xf32>
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x10x10x4xf32>, tensor<3x3x4xf32>)
func.func @conv_nhwc_strided_and_depthwise(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x8xf32>, %wd: tensor<3x3x1x4xf32>) -> (tensor<1x4x4x8xf32>, tensor<1x8x8x4xf32>) {
  %0 = dlc_graph.conv_nhwc %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1} : tensor<1x8x8x4xf32>, tensor<3x3x4x8xf32> -> tensor<1x4x4x8xf32>
  %1 = dlc_graph.conv_nhwc %x, %wd {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 4} : tensor<1x8x8x4xf32>, tensor<3x3x1x4xf32> -> tensor<1x8x8x4xf32>
  return %0, %1 : tensor<1x4x4x8xf32>, tensor<1x8x8x4xf32>
}

// -----

// [B, M, K] x constant [K, N]: B packed at compile time as [N/NB][K][NB], loops
// (b, m, n1, n0, k), the result a collapse of [B, M, N/NB, NB].
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d2, d4, d3)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// With bf16-weights, the packed weights (small integers, exactly bf16) are stored as bf16
// and widened in the body.
// BF16W-LABEL: func @matmul_packed_weights
// BF16W: %[[P:.*]] = arith.constant dense<{{.*}}> : tensor<1x3x16xbf16>
// BF16W: linalg.generic {{.*}} ins(%arg0, %[[P]] : tensor<2x4x3xf32>, tensor<1x3x16xbf16>)
// BF16W-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: bf16, %[[ACC:.*]]: f32):
// BF16W-NEXT: %[[W:.*]] = arith.extf %[[B]] : bf16 to f32
// BF16W-NEXT: %[[M:.*]] = arith.mulf %[[A]], %[[W]] : f32
// BF16W-NEXT: arith.addf %[[ACC]], %[[M]] : f32
// CHECK-LABEL: func @matmul_packed_weights
// CHECK: %[[P:.*]] = arith.constant dense<{{.*}}> : tensor<1x3x16xf32>
// CHECK: %[[G:.*]] = linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %[[P]] : tensor<2x4x3xf32>, tensor<1x3x16xf32>)
// CHECK: tensor.collapse_shape %[[G]] {{\[}}[0], [1], [2, 3]] : tensor<2x4x1x16xf32> into tensor<2x4x16xf32>
func.func @matmul_packed_weights(%a: tensor<2x4x3xf32>) -> tensor<2x4x16xf32> {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]]> : tensor<3x16xf32>
  %0 = dlc_graph.matmul %a, %w : tensor<2x4x3xf32>, tensor<3x16xf32> -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

// Wide N that 32 does not divide (300): B padded at compile time with zero columns to
// 320 = 10 blocks of 32, the product sliced back to 300 columns.
// BF16W-LABEL: func @matmul_padded_columns
// BF16W: arith.constant dense<{{.*}}> : tensor<10x2x32xbf16>
// CHECK-LABEL: func @matmul_padded_columns
// CHECK: %[[P:.*]] = arith.constant dense<{{.*}}> : tensor<10x2x32xf32>
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%arg0, %[[P]] : tensor<4x2xf32>, tensor<10x2x32xf32>) outs(%{{.*}} : tensor<4x10x32xf32>)
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[G]] {{\[}}[0], [1, 2]] : tensor<4x10x32xf32> into tensor<4x320xf32>
// CHECK: tensor.extract_slice %[[C]][0, 0] [4, 300] [1, 1] : tensor<4x320xf32> to tensor<4x300xf32>
func.func @matmul_padded_columns(%a: tensor<4x2xf32>) -> tensor<4x300xf32> {
  %w = arith.constant dense<1.5> : tensor<2x300xf32>
  %0 = dlc_graph.matmul %a, %w : tensor<4x2xf32>, tensor<2x300xf32> -> tensor<4x300xf32>
  return %0 : tensor<4x300xf32>
}

// -----

// Weights that are not all exactly bf16 (0.1) stay f32 with bf16-weights: the storage
// change never rounds.
// BF16W-LABEL: func @matmul_inexact_weights
// BF16W: arith.constant dense<{{.*}}> : tensor<1x2x16xf32>
// BF16W-NOT: bf16
func.func @matmul_inexact_weights(%a: tensor<4x2xf32>) -> tensor<4x16xf32> {
  %w = arith.constant dense<[[0.1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<2x16xf32>
  %0 = dlc_graph.matmul %a, %w : tensor<4x2xf32>, tensor<2x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
