// RUN: dlc-opt %s -split-input-file -dlc-quantize-contractions -canonicalize | FileCheck %s
// Contractions of dequantized 8-bit operands become matmul_integer of the raw bytes, zero
// points as i32 corrections, one float scale per output column.

// Per-tensor u8 activations (zero point 3) x per-column s8 weights.
// CHECK-LABEL: func @matmul
// CHECK: %[[P:.*]] = dlc_graph.matmul_integer %arg0, %{{.*}} {lhs_unsigned} : tensor<2x8xi8>, tensor<8x4xi8> -> tensor<2x4xi32>
// CHECK: %[[C:.*]] = dlc_graph.sub %[[P]], %{{.*}} : tensor<2x4xi32>, tensor<4xi32> -> tensor<2x4xi32>
// CHECK: %[[F:.*]] = dlc_graph.cast %[[C]] : tensor<2x4xi32> to tensor<2x4xf32>
// CHECK: dlc_graph.mul %[[F]], %{{.*}} : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
// CHECK-NOT: dlc_graph.matmul %
// CHECK-NOT: dlc_graph.dequantize
func.func @matmul(%a: tensor<2x8xi8>) -> tensor<2x4xf32> {
  %sa = arith.constant dense<0.5> : tensor<f32>
  %za = arith.constant dense<3> : tensor<i8>
  %w = arith.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8], [1, 2, 3, 4], [5, 6, 7, 8], [1, 2, 3, 4], [5, 6, 7, 8], [1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<8x4xi8>
  %sw = arith.constant dense<[0.1, 0.2, 0.3, 0.4]> : tensor<4xf32>
  %da = dlc_graph.dequantize %a, %sa, %za : tensor<i8> {axis = 0 : i64, block_size = 0 : i64, unsigned_input} : tensor<2x8xi8>, tensor<f32> -> tensor<2x8xf32>
  %dw = dlc_graph.dequantize %w, %sw {axis = 1 : i64, block_size = 0 : i64} : tensor<8x4xi8>, tensor<4xf32> -> tensor<8x4xf32>
  %y = dlc_graph.matmul %da, %dw : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// Gemm with transB: the constant [N, K] weights (per column: axis 0) are transposed at
// compile time; the bias is added after the scale.
// CHECK-LABEL: func @gemm
// CHECK: dlc_graph.matmul_integer %arg0, %{{.*}} : tensor<2x3xi8>, tensor<3x2xi8> -> tensor<2x2xi32>
// CHECK: dlc_graph.cast {{.*}} : tensor<2x2xi32> to tensor<2x2xf32>
// CHECK: dlc_graph.mul
// CHECK: dlc_graph.add {{.*}}, %arg1 : tensor<2x2xf32>, tensor<2xf32> -> tensor<2x2xf32>
// CHECK-NOT: dlc_graph.gemm
func.func @gemm(%a: tensor<2x3xi8>, %c: tensor<2xf32>) -> tensor<2x2xf32> {
  %sa = arith.constant dense<0.5> : tensor<f32>
  %w = arith.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi8>
  %sw = arith.constant dense<[0.1, 0.2]> : tensor<2xf32>
  %da = dlc_graph.dequantize %a, %sa {axis = 0 : i64, block_size = 0 : i64} : tensor<2x3xi8>, tensor<f32> -> tensor<2x3xf32>
  %dw = dlc_graph.dequantize %w, %sw {axis = 0 : i64, block_size = 0 : i64} : tensor<2x3xi8>, tensor<2xf32> -> tensor<2x3xf32>
  %y = dlc_graph.gemm %da, %dw, %c : tensor<2xf32> {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = true} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// Activations quantized per axis have no per-tensor scale to factor out: left as is.
// CHECK-LABEL: func @per_axis_activations
// CHECK: dlc_graph.matmul %
// CHECK-NOT: dlc_graph.matmul_integer
func.func @per_axis_activations(%a: tensor<2x3xi8>, %sa: tensor<3xf32>, %w: tensor<3x2xi8>, %sw: tensor<f32>) -> tensor<2x2xf32> {
  %da = dlc_graph.dequantize %a, %sa {axis = 1 : i64, block_size = 0 : i64} : tensor<2x3xi8>, tensor<3xf32> -> tensor<2x3xf32>
  %dw = dlc_graph.dequantize %w, %sw {axis = 0 : i64, block_size = 0 : i64} : tensor<3x2xi8>, tensor<f32> -> tensor<3x2xf32>
  %y = dlc_graph.matmul %da, %dw : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// A conv of u8 activations (zero point 128) and per-channel s8 weights: an 8-bit conv
// padded with the zero point, minus 128 x the sum of each channel's weights, scaled per
// channel, plus the float bias; then channels last, the conv in NHWC.
// CHECK-LABEL: func @conv
// (128 x 36 weights of 3 per channel)
// CHECK: dense<13824> : tensor<2x1x1xi32>
// CHECK: %[[C:.*]] = dlc_graph.conv %arg0, %{{.*}} {dilations = array<i64: 1, 1>, group = 1 : i64, input_unsigned, pad_value = 128 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x5xi8>, tensor<2x4x3x3xi8> -> tensor<1x2x5x5xi32>
// CHECK: dlc_graph.sub %[[C]], %{{.*}} : tensor<1x2x5x5xi32>, tensor<2x1x1xi32>
// CHECK: dlc_graph.cast {{.*}} to tensor<1x2x5x5xf32>
// CHECK: dlc_graph.mul {{.*}} : tensor<1x2x5x5xf32>, tensor<2x1x1xf32>
// CHECK: dlc_graph.add {{.*}} : tensor<1x2x5x5xf32>, tensor<2x1x1xf32>
func.func @conv(%x: tensor<1x4x5x5xi8>) -> tensor<1x2x5x5xf32> {
  %sx = arith.constant dense<0.5> : tensor<f32>
  %zx = arith.constant dense<-128> : tensor<i8>
  %w4 = arith.constant dense<3> : tensor<2x4x3x3xi8>
  %sw = arith.constant dense<[0.1, 0.2]> : tensor<2xf32>
  %b = arith.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %dx = dlc_graph.dequantize %x, %sx, %zx : tensor<i8> {axis = 0 : i64, block_size = 0 : i64, unsigned_input} : tensor<1x4x5x5xi8>, tensor<f32> -> tensor<1x4x5x5xf32>
  %dw = dlc_graph.dequantize %w4, %sw {axis = 0 : i64, block_size = 0 : i64} : tensor<2x4x3x3xi8>, tensor<2xf32> -> tensor<2x4x3x3xf32>
  %y = dlc_graph.conv %dx, %dw, %b : tensor<2xf32> {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1} : tensor<1x4x5x5xf32>, tensor<2x4x3x3xf32> -> tensor<1x2x5x5xf32>
  return %y : tensor<1x2x5x5xf32>
}

// -----

// Depthwise: an integer conv of the same group (each channel its own taps).
// CHECK-LABEL: func @depthwise
// CHECK: dlc_graph.conv %arg0, %arg1 {{{.*}}group = 2 : i64{{.*}}} : tensor<1x2x5x5xi8>, tensor<2x1x3x3xi8> -> tensor<1x2x5x5xi32>
// CHECK-NOT: tensor<2x1x3x3xf32>
func.func @depthwise(%x: tensor<1x2x5x5xi8>, %w: tensor<2x1x3x3xi8>) -> tensor<1x2x5x5xf32> {
  %s = arith.constant dense<0.5> : tensor<f32>
  %dx = dlc_graph.dequantize %x, %s {axis = 0 : i64, block_size = 0 : i64} : tensor<1x2x5x5xi8>, tensor<f32> -> tensor<1x2x5x5xf32>
  %dw = dlc_graph.dequantize %w, %s {axis = 0 : i64, block_size = 0 : i64} : tensor<2x1x3x3xi8>, tensor<f32> -> tensor<2x1x3x3xf32>
  %y = dlc_graph.conv %dx, %dw {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 2} : tensor<1x2x5x5xf32>, tensor<2x1x3x3xf32> -> tensor<1x2x5x5xf32>
  return %y : tensor<1x2x5x5xf32>
}

// -----

// Grouped (not depthwise) stays float.
// CHECK-LABEL: func @grouped
// CHECK: dlc_graph.conv {{.*}} : tensor<1x4x5x5xf32>, tensor<2x2x3x3xf32> -> tensor<1x2x5x5xf32>
func.func @grouped(%x: tensor<1x4x5x5xi8>, %w: tensor<2x2x3x3xi8>) -> tensor<1x2x5x5xf32> {
  %s = arith.constant dense<0.5> : tensor<f32>
  %dx = dlc_graph.dequantize %x, %s {axis = 0 : i64, block_size = 0 : i64} : tensor<1x4x5x5xi8>, tensor<f32> -> tensor<1x4x5x5xf32>
  %dw = dlc_graph.dequantize %w, %s {axis = 0 : i64, block_size = 0 : i64} : tensor<2x2x3x3xi8>, tensor<f32> -> tensor<2x2x3x3xf32>
  %y = dlc_graph.conv %dx, %dw {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 2} : tensor<1x4x5x5xf32>, tensor<2x2x3x3xf32> -> tensor<1x2x5x5xf32>
  return %y : tensor<1x2x5x5xf32>
}

// -----

// Weight-only (MatMulNBits' form): float activations times the transposed blocked dequantize
// of constant [N, K] u8 codes keep the codes: dequant_matmul, scales and zero points [N, KB].
// CHECK-LABEL: func @weight_only_blocked
// CHECK: %[[Y:.*]] = dlc_graph.dequant_matmul %arg0, %{{.*}}, %{{.*}}, %{{.*}} {block_size = 2 : i64, codes_unsigned} : tensor<1x4xf32>, tensor<3x4xi8>, tensor<3x2xf32>, tensor<3x2xi8> -> tensor<1x3xf32>
// CHECK: return %[[Y]]
// CHECK-NOT: dlc_graph.dequantize
func.func @weight_only_blocked(%a: tensor<1x4xf32>) -> tensor<1x3xf32> {
  %q = arith.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]> : tensor<3x4xi8>
  %s = arith.constant dense<[[0.5, 0.25], [1.0, 2.0], [0.125, 4.0]]> : tensor<3x2xf32>
  %z = arith.constant dense<[[8, 7], [6, 5], [4, 3]]> : tensor<3x2xi8>
  %w = dlc_graph.dequantize %q, %s, %z : tensor<3x2xi8> {axis = 1 : i64, block_size = 2 : i64, unsigned_input} : tensor<3x4xi8>, tensor<3x2xf32> -> tensor<3x4xf32>
  %t = dlc_graph.transpose %w {perm = array<i64: 1, 0>} : tensor<3x4xf32> -> tensor<4x3xf32>
  %y = dlc_graph.matmul %a, %t : tensor<1x4xf32>, tensor<4x3xf32> -> tensor<1x3xf32>
  return %y : tensor<1x3xf32>
}

// -----

// QDQ weights [K, N] blocked along K (axis 0): codes transposed to [N, K], the [KB, N]
// scales to [N, KB] ([[s00, s10], [s01, s11], [s02, s12]]); signed codes, no zero point.
// CHECK-LABEL: func @weight_only_kn
// CHECK-DAG: %[[Q:.*]] = arith.constant dense<{{\[\[}}1, 4, 7, 10], [2, 5, 8, 11], [3, 6, 9, 12]]> : tensor<3x4xi8>
// CHECK-DAG: %[[S:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK: dlc_graph.dequant_matmul %arg0, %[[Q]], %[[S]] {block_size = 2 : i64} : tensor<2x4xf32>, tensor<3x4xi8>, tensor<3x2xf32> -> tensor<2x3xf32>
func.func @weight_only_kn(%a: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %q = arith.constant dense<[[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]]> : tensor<4x3xi8>
  %s = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %w = dlc_graph.dequantize %q, %s {axis = 0 : i64, block_size = 2 : i64} : tensor<4x3xi8>, tensor<2x3xf32> -> tensor<4x3xf32>
  %y = dlc_graph.matmul %a, %w : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// More than 4 rows: the weights stay a dequantize (folded to floats later).
// CHECK-LABEL: func @weight_only_many_rows
// CHECK: dlc_graph.dequantize
// CHECK: dlc_graph.matmul
// CHECK-NOT: dlc_graph.dequant_matmul
func.func @weight_only_many_rows(%a: tensor<5x4xf32>) -> tensor<5x3xf32> {
  %q = arith.constant dense<[[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]]> : tensor<4x3xi8>
  %s = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %w = dlc_graph.dequantize %q, %s {axis = 0 : i64, block_size = 2 : i64} : tensor<4x3xi8>, tensor<2x3xf32> -> tensor<4x3xf32>
  %y = dlc_graph.matmul %a, %w : tensor<5x4xf32>, tensor<4x3xf32> -> tensor<5x3xf32>
  return %y : tensor<5x3xf32>
}
