// RUN: dlc-opt %s -split-input-file -verify-diagnostics
// Every diagnostic of the composite region ops (attention, rnn, gru, lstm).

func.func @att_rank(%q: tensor<4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x6xf32>) {
  // expected-error @+2 {{expected rank-4 query, key and value, got ranks 3, 4 and 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v : tensor<4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @att_elt(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf16>, %v: tensor<2x2x5x6xf32>) {
  // expected-error @+2 {{query, key and value element types differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf16>, tensor<2x2x5x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @att_batch(%q: tensor<2x4x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<2x2x5x6xf32>) {
  // expected-error @+2 {{batch dims differ: query [2,4,3,8], key [1,2,5,8], value [2,2,5,6]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v : tensor<2x4x3x8xf32>, tensor<1x2x5x8xf32>, tensor<2x2x5x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @att_head_size(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x7xf32>, %v: tensor<2x2x5x6xf32>) {
  // expected-error @+2 {{key head size 7 differs from the query's 8}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v : tensor<2x4x3x8xf32>, tensor<2x2x5x7xf32>, tensor<2x2x5x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @att_key_transposed(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x6xf32>) {
  // expected-error @+2 {{key head size 5 differs from the query's 8}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v {key_transposed} : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @att_value(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x4x6xf32>) {
  // expected-error @+2 {{value [2,2,4,6] must have the key's 2 heads and 5 positions}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x4x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @att_heads(%q: tensor<2x4x3x8xf32>, %k: tensor<2x3x5x8xf32>, %v: tensor<2x3x5x6xf32>) {
  // expected-error @+2 {{the query heads (4) must be a multiple of the key/value heads (3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v : tensor<2x4x3x8xf32>, tensor<2x3x5x8xf32>, tensor<2x3x5x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @att_masks_count(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x6xf32>, %m: tensor<3x5xf32>) {
  // expected-error @+2 {{expected 2 masks (has_mask, has_select, has_kv_lengths), got 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v masks(%m : tensor<3x5xf32>) {has_mask, has_kv_lengths} : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @att_mask_type(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x6xf32>, %m: tensor<3x5xi32>) {
  // expected-error @+2 {{mask must be i1 or floating-point}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v masks(%m : tensor<3x5xi32>) {has_mask} : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @att_mask_rank(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x6xf32>, %m: tensor<f32>) {
  // expected-error @+2 {{mask must have rank >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v masks(%m : tensor<f32>) {has_mask} : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @att_mask_shape(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x6xf32>, %m: tensor<3x6xf32>) {
  // expected-error @+2 {{mask of shape [3,6] does not broadcast to the scores [2,4,3,5]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v masks(%m : tensor<3x6xf32>) {has_mask} : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @att_select_type(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x6xf32>, %m: tensor<3x5xf32>) {
  // expected-error @+2 {{select must be i1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v masks(%m : tensor<3x5xf32>) {has_select, select_fill = 0.0} : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @att_select_shape(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x6xf32>, %m: tensor<1x2x3x5xi1>) {
  // expected-error @+2 {{select of shape [1,2,3,5] does not broadcast to the scores [2,4,3,5]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v masks(%m : tensor<1x2x3x5xi1>) {has_select, select_fill = 0.0} : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @att_select_fill(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x6xf32>, %m: tensor<3x5xi1>) {
  // expected-error @+2 {{select and select_fill must be given together}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v masks(%m : tensor<3x5xi1>) {has_select} : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @att_kv_type(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x6xf32>, %m: tensor<2xf32>) {
  // expected-error @+2 {{kv_lengths must be an integer tensor}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v masks(%m : tensor<2xf32>) {has_kv_lengths} : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @att_kv_shape(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x6xf32>, %m: tensor<3xi64>) {
  // expected-error @+2 {{kv_lengths must be [2], got [3]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v masks(%m : tensor<3xi64>) {has_kv_lengths} : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @att_kv_offset(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x6xf32>, %m: tensor<2xi64>) {
  // expected-error @+2 {{kv_lengths cannot be combined with a causal_offset}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v masks(%m : tensor<2xi64>) {has_kv_lengths, causal_offset = 2 : i64} : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @att_factor(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x6xf32>) {
  // expected-error @+2 {{qk_factor and score_scale must be finite}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v {qk_factor = 0x7FF0000000000000 : f64} : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @att_divide_zero(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x6xf32>) {
  // expected-error @+2 {{a dividing score_scale must not be 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v {score_scale = 0.0 : f64, score_scale_divides} : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @att_softcap(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x6xf32>) {
  // expected-error @+2 {{softcap must be finite and >= 0, got -1.00}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v {softcap = -1.0 : f64} : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @att_offset(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x6xf32>) {
  // expected-error @+2 {{causal_offset must be >= 0, got -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v {causal_offset = -1 : i64} : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @att_window(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x6xf32>) {
  // expected-error @+2 {{window sizes must be >= -1 (-1: unbounded)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v {window_left = -2 : i64} : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @att_softmax_type(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x6xf32>) {
  // expected-error @+2 {{softmax_type must be a floating-point type, got i32}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v {softmax_type = i32} : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @att_exclusive(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x6xf32>) {
  // expected-error @+2 {{masked_rows_zero and nan_to_zero exclude each other}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v {masked_rows_zero, nan_to_zero} : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @att_scores_mode(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x6xf32>) {
  // expected-error @+2 {{scores_mode must be in [0, 3], got 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.attention %q, %k, %v {scores_mode = 4 : i64} : tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32> -> tensor<2x4x3x6xf32>
  return
}

// -----

func.func @rec_rank(%x: tensor<2x5xf32>, %w: tensor<1x4x5xf32>, %r: tensor<1x4x4xf32>, %b: tensor<1x8xf32>, %h: tensor<1x2x4xf32>) {
  // expected-error @+2 {{expected rank-3 input, w and r, got ranks 2, 3 and 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = dlc_graph.rnn %x, %w, %r, %b, %h {hidden_size = 4 : i64, direction = "forward", activations = ["Tanh"], activation_alpha = array<f64: 0.01>, activation_beta = array<f64: 0.0>} : tensor<2x5xf32>, tensor<1x4x5xf32>, tensor<1x4x4xf32>, tensor<1x8xf32>, tensor<1x2x4xf32> -> tensor<3x1x2x4xf32>, tensor<1x2x4xf32>
  return
}

// -----

func.func @rec_direction(%x: tensor<3x2x5xf32>, %w: tensor<1x4x5xf32>, %r: tensor<1x4x4xf32>, %b: tensor<1x8xf32>, %h: tensor<1x2x4xf32>) {
  // expected-error @+2 {{direction must be forward, reverse or bidirectional, got 'sideways'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = dlc_graph.rnn %x, %w, %r, %b, %h {hidden_size = 4 : i64, direction = "sideways", activations = ["Tanh"], activation_alpha = array<f64: 0.01>, activation_beta = array<f64: 0.0>} : tensor<3x2x5xf32>, tensor<1x4x5xf32>, tensor<1x4x4xf32>, tensor<1x8xf32>, tensor<1x2x4xf32> -> tensor<3x1x2x4xf32>, tensor<1x2x4xf32>
  return
}

// -----

func.func @rec_hidden(%x: tensor<3x2x5xf32>, %w: tensor<1x4x5xf32>, %r: tensor<1x4x4xf32>, %b: tensor<1x8xf32>, %h: tensor<1x2x4xf32>) {
  // expected-error @+2 {{hidden_size must be > 0, got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = dlc_graph.rnn %x, %w, %r, %b, %h {hidden_size = 0 : i64, direction = "forward", activations = ["Tanh"], activation_alpha = array<f64: 0.01>, activation_beta = array<f64: 0.0>} : tensor<3x2x5xf32>, tensor<1x4x5xf32>, tensor<1x4x4xf32>, tensor<1x8xf32>, tensor<1x2x4xf32> -> tensor<3x1x2x4xf32>, tensor<1x2x4xf32>
  return
}

// -----

func.func @rec_overflow(%x: tensor<3x2x5xf32>, %w: tensor<1x4x5xf32>, %r: tensor<1x4x4xf32>, %b: tensor<1x8xf32>, %h: tensor<1x2x4xf32>) {
  // expected-error @+2 {{hidden_size 4611686018427387904 overflows the gate dims}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:3 = dlc_graph.lstm %x, %w, %r, %b, %h, %h {hidden_size = 4611686018427387904 : i64, direction = "forward", activations = ["Tanh"], activation_alpha = array<f64: 0.01>, activation_beta = array<f64: 0.0>} : tensor<3x2x5xf32>, tensor<1x4x5xf32>, tensor<1x4x4xf32>, tensor<1x8xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32> -> tensor<3x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>
  return
}

// -----

func.func @rec_elt(%x: tensor<3x2x5xf32>, %w: tensor<1x4x5xf32>, %r: tensor<1x4x4xf16>, %b: tensor<1x8xf32>, %h: tensor<1x2x4xf32>) {
  // expected-error @+2 {{r element type differs from the input's}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = dlc_graph.rnn %x, %w, %r, %b, %h {hidden_size = 4 : i64, direction = "forward", activations = ["Tanh"], activation_alpha = array<f64: 0.01>, activation_beta = array<f64: 0.0>} : tensor<3x2x5xf32>, tensor<1x4x5xf32>, tensor<1x4x4xf16>, tensor<1x8xf32>, tensor<1x2x4xf32> -> tensor<3x1x2x4xf32>, tensor<1x2x4xf32>
  return
}

// -----

func.func @rec_w(%x: tensor<3x2x5xf32>, %w: tensor<1x4x6xf32>, %r: tensor<1x4x4xf32>, %b: tensor<1x8xf32>, %h: tensor<1x2x4xf32>) {
  // expected-error @+2 {{w must be [1,4,5], got [1,4,6]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = dlc_graph.rnn %x, %w, %r, %b, %h {hidden_size = 4 : i64, direction = "forward", activations = ["Tanh"], activation_alpha = array<f64: 0.01>, activation_beta = array<f64: 0.0>} : tensor<3x2x5xf32>, tensor<1x4x6xf32>, tensor<1x4x4xf32>, tensor<1x8xf32>, tensor<1x2x4xf32> -> tensor<3x1x2x4xf32>, tensor<1x2x4xf32>
  return
}

// -----

func.func @rec_bias(%x: tensor<3x2x5xf32>, %w: tensor<1x4x5xf32>, %r: tensor<1x4x4xf32>, %b: tensor<1x4xf32>, %h: tensor<1x2x4xf32>) {
  // expected-error @+2 {{bias must be [1,8], got [1,4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = dlc_graph.rnn %x, %w, %r, %b, %h {hidden_size = 4 : i64, direction = "forward", activations = ["Tanh"], activation_alpha = array<f64: 0.01>, activation_beta = array<f64: 0.0>} : tensor<3x2x5xf32>, tensor<1x4x5xf32>, tensor<1x4x4xf32>, tensor<1x4xf32>, tensor<1x2x4xf32> -> tensor<3x1x2x4xf32>, tensor<1x2x4xf32>
  return
}

// -----

func.func @rec_state(%x: tensor<3x2x5xf32>, %w: tensor<1x4x5xf32>, %r: tensor<1x4x4xf32>, %b: tensor<1x8xf32>, %h: tensor<2x2x4xf32>) {
  // expected-error @+2 {{initial state must be [1,2,4], got [2,2,4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = dlc_graph.rnn %x, %w, %r, %b, %h {hidden_size = 4 : i64, direction = "forward", activations = ["Tanh"], activation_alpha = array<f64: 0.01>, activation_beta = array<f64: 0.0>} : tensor<3x2x5xf32>, tensor<1x4x5xf32>, tensor<1x4x4xf32>, tensor<1x8xf32>, tensor<2x2x4xf32> -> tensor<3x1x2x4xf32>, tensor<1x2x4xf32>
  return
}

// -----

func.func @rec_peepholes(%x: tensor<3x2x5xf32>, %w: tensor<1x16x5xf32>, %r: tensor<1x16x4xf32>, %b: tensor<1x32xf32>, %h: tensor<1x2x4xf32>, %p: tensor<1x4xf32>) {
  // expected-error @+2 {{peepholes must be [1,12], got [1,4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:3 = dlc_graph.lstm %x, %w, %r, %b, %h, %h peepholes(%p : tensor<1x4xf32>) {hidden_size = 4 : i64, direction = "forward", activations = ["Sigmoid", "Tanh", "Tanh"], activation_alpha = array<f64: 0.0, 0.0, 0.0>, activation_beta = array<f64: 0.0, 0.0, 0.0>} : tensor<3x2x5xf32>, tensor<1x16x5xf32>, tensor<1x16x4xf32>, tensor<1x32xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32> -> tensor<3x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>
  return
}

// -----

func.func @rec_activations(%x: tensor<3x2x5xf32>, %w: tensor<1x12x5xf32>, %r: tensor<1x12x4xf32>, %b: tensor<1x24xf32>, %h: tensor<1x2x4xf32>) {
  // expected-error @+2 {{expected 2 activations (2 per direction), got 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = dlc_graph.gru %x, %w, %r, %b, %h {hidden_size = 4 : i64, direction = "forward", activations = ["Tanh"], activation_alpha = array<f64: 0.01>, activation_beta = array<f64: 0.0>} : tensor<3x2x5xf32>, tensor<1x12x5xf32>, tensor<1x12x4xf32>, tensor<1x24xf32>, tensor<1x2x4xf32> -> tensor<3x1x2x4xf32>, tensor<1x2x4xf32>
  return
}

// -----

func.func @rec_unknown(%x: tensor<3x2x5xf32>, %w: tensor<1x4x5xf32>, %r: tensor<1x4x4xf32>, %b: tensor<1x8xf32>, %h: tensor<1x2x4xf32>) {
  // expected-error @+2 {{unknown activation 'Swish'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = dlc_graph.rnn %x, %w, %r, %b, %h {hidden_size = 4 : i64, direction = "forward", activations = ["Swish"], activation_alpha = array<f64: 0.01>, activation_beta = array<f64: 0.0>} : tensor<3x2x5xf32>, tensor<1x4x5xf32>, tensor<1x4x4xf32>, tensor<1x8xf32>, tensor<1x2x4xf32> -> tensor<3x1x2x4xf32>, tensor<1x2x4xf32>
  return
}

// -----

func.func @rec_alpha(%x: tensor<3x2x5xf32>, %w: tensor<1x4x5xf32>, %r: tensor<1x4x4xf32>, %b: tensor<1x8xf32>, %h: tensor<1x2x4xf32>) {
  // expected-error @+2 {{activation_alpha and activation_beta must have one entry per activation}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = dlc_graph.rnn %x, %w, %r, %b, %h {hidden_size = 4 : i64, direction = "forward", activations = ["Tanh"], activation_alpha = array<f64: 0.01>, activation_beta = array<f64>} : tensor<3x2x5xf32>, tensor<1x4x5xf32>, tensor<1x4x4xf32>, tensor<1x8xf32>, tensor<1x2x4xf32> -> tensor<3x1x2x4xf32>, tensor<1x2x4xf32>
  return
}

// -----

func.func @rec_clip(%x: tensor<3x2x5xf32>, %w: tensor<1x4x5xf32>, %r: tensor<1x4x4xf32>, %b: tensor<1x8xf32>, %h: tensor<1x2x4xf32>) {
  // expected-error @+2 {{clip must be finite and >= 0 (0: none), got -1.00}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = dlc_graph.rnn %x, %w, %r, %b, %h {hidden_size = 4 : i64, direction = "forward", activations = ["Tanh"], activation_alpha = array<f64: 0.01>, activation_beta = array<f64: 0.0>, clip = -1.0 : f64} : tensor<3x2x5xf32>, tensor<1x4x5xf32>, tensor<1x4x4xf32>, tensor<1x8xf32>, tensor<1x2x4xf32> -> tensor<3x1x2x4xf32>, tensor<1x2x4xf32>
  return
}
