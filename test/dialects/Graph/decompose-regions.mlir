// RUN: dlc-opt %s -dlc-decompose -split-input-file | FileCheck %s
// RUN: dlc-opt %s -dlc-decompose=keep-regions -split-input-file | FileCheck %s --check-prefix=KEEP
// dlc-decompose on the composite regions: the ONNX Attention form (scaled Q and K, causal
// band, guarded softmax), the exporter form (K^T given, Div, select, additive mask, NaN
// guard), grouped-query heads, and the recurrences unrolled; keep-regions leaves them.

// CHECK-LABEL: func @onnx_causal
// KEEP-LABEL: func @onnx_causal
// KEEP: dlc_graph.attention
func.func @onnx_causal(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32> {
  %0 = dlc_graph.attention %q, %k, %v {is_causal, causal_offset = 2 : i64, qk_factor = 0.5 : f64, masked_rows_zero} : tensor<1x2x3x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32> -> tensor<1x2x3x4xf32>
  return %0 : tensor<1x2x3x4xf32>
}

// -----

// CHECK-LABEL: func @exporter
func.func @exporter(%q: tensor<1x2x3x4xf32>, %kt: tensor<1x2x4x5xf32>, %v: tensor<1x2x5x4xf32>, %m: tensor<1x1x1x5xf32>, %s: tensor<1x1x3x5xi1>) -> tensor<1x2x3x4xf32> {
  %0 = dlc_graph.attention %q, %kt, %v masks(%m, %s : tensor<1x1x1x5xf32>, tensor<1x1x3x5xi1>) {key_transposed, has_mask, has_select, score_scale = 8.0 : f64, score_scale_divides, select_fill = -1.0e4 : f64, nan_to_zero} : tensor<1x2x3x4xf32>, tensor<1x2x4x5xf32>, tensor<1x2x5x4xf32> -> tensor<1x2x3x4xf32>
  return %0 : tensor<1x2x3x4xf32>
}

// -----

// CHECK-LABEL: func @gqa_scores
func.func @gqa_scores(%q: tensor<1x4x3x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x2x5x4xf32>, %m: tensor<3x5xi1>, %n: tensor<1xi64>) -> (tensor<1x4x3x4xf32>, tensor<1x4x3x5xf32>) {
  %0:2 = dlc_graph.attention %q, %k, %v masks(%m, %n : tensor<3x5xi1>, tensor<1xi64>) {has_mask, has_kv_lengths, masked_rows_zero, softcap = 2.0 : f64, scores_mode = 3 : i64, softmax_type = f64} : tensor<1x4x3x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32> -> tensor<1x4x3x4xf32>, tensor<1x4x3x5xf32>
  return %0#0, %0#1 : tensor<1x4x3x4xf32>, tensor<1x4x3x5xf32>
}

// -----

// CHECK-LABEL: func @rnn
// KEEP-LABEL: func @rnn
// KEEP: dlc_graph.rnn
func.func @rnn(%x: tensor<2x1x3xf32>, %w: tensor<1x4x3xf32>, %r: tensor<1x4x4xf32>, %b: tensor<1x8xf32>, %h: tensor<1x1x4xf32>) -> (tensor<2x1x1x4xf32>, tensor<1x1x4xf32>) {
  %0:2 = dlc_graph.rnn %x, %w, %r, %b, %h {hidden_size = 4 : i64, direction = "reverse", activations = ["Tanh"], activation_alpha = array<f64: 0.01>, activation_beta = array<f64: 0.0>, clip = 3.0 : f64} : tensor<2x1x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>, tensor<1x8xf32>, tensor<1x1x4xf32> -> tensor<2x1x1x4xf32>, tensor<1x1x4xf32>
  return %0#0, %0#1 : tensor<2x1x1x4xf32>, tensor<1x1x4xf32>
}

// -----

// CHECK-LABEL: func @gru
func.func @gru(%x: tensor<1x1x3xf32>, %w: tensor<1x6x3xf32>, %r: tensor<1x6x2xf32>, %b: tensor<1x12xf32>, %h: tensor<1x1x2xf32>) -> (tensor<1x1x1x2xf32>, tensor<1x1x2xf32>) {
  %0:2 = dlc_graph.gru %x, %w, %r, %b, %h {hidden_size = 2 : i64, direction = "forward", activations = ["Sigmoid", "Tanh"], activation_alpha = array<f64: 0.01, 0.01>, activation_beta = array<f64: 0.0, 0.0>, linear_before_reset} : tensor<1x1x3xf32>, tensor<1x6x3xf32>, tensor<1x6x2xf32>, tensor<1x12xf32>, tensor<1x1x2xf32> -> tensor<1x1x1x2xf32>, tensor<1x1x2xf32>
  return %0#0, %0#1 : tensor<1x1x1x2xf32>, tensor<1x1x2xf32>
}

// -----

// CHECK-LABEL: func @lstm
// KEEP-LABEL: func @lstm
// KEEP: dlc_graph.lstm
func.func @lstm(%x: tensor<2x1x3xf32>, %w: tensor<2x8x3xf32>, %r: tensor<2x8x2xf32>, %b: tensor<2x16xf32>, %h: tensor<2x1x2xf32>, %c: tensor<2x1x2xf32>, %p: tensor<2x6xf32>) -> (tensor<2x2x1x2xf32>, tensor<2x1x2xf32>, tensor<2x1x2xf32>) {
  %0:3 = dlc_graph.lstm %x, %w, %r, %b, %h, %c peepholes(%p : tensor<2x6xf32>) {hidden_size = 2 : i64, direction = "bidirectional", activations = ["Sigmoid", "Tanh", "Tanh", "HardSigmoid", "Tanh", "Tanh"], activation_alpha = array<f64: 0.01, 0.01, 0.01, 0.2, 0.01, 0.01>, activation_beta = array<f64: 0.0, 0.0, 0.0, 0.5, 0.0, 0.0>} : tensor<2x1x3xf32>, tensor<2x8x3xf32>, tensor<2x8x2xf32>, tensor<2x16xf32>, tensor<2x1x2xf32>, tensor<2x1x2xf32> -> tensor<2x2x1x2xf32>, tensor<2x1x2xf32>, tensor<2x1x2xf32>
  return %0#0, %0#1, %0#2 : tensor<2x2x1x2xf32>, tensor<2x1x2xf32>, tensor<2x1x2xf32>
}
