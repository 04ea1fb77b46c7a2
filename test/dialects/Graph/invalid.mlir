// RUN: dlc-opt %s -split-input-file -verify-diagnostics
// Every user-reachable dlc_graph diagnostic.

func.func @broadcast(%x: tensor<2x3xf32>, %y: tensor<4xf32>) {
  // expected-error @+2 {{shapes [2,3] and [4] are not broadcast-compatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.add %x, %y : tensor<2x3xf32>, tensor<4xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @element_types(%x: tensor<2xf32>, %y: tensor<2xi64>) {
  // expected-error @+2 {{operand element types differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.mul %x, %y : tensor<2xf32>, tensor<2xi64> -> tensor<2xf32>
  return
}

// -----

func.func @matmul_k(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{contraction dims differ: [2,3] x [4,5]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.matmul %a, %b : tensor<2x3xf32>, tensor<4x5xf32> -> tensor<2x5xf32>
  return
}

// -----

func.func @matmul_rank(%a: tensor<3xf32>, %b: tensor<3x5xf32>) {
  // expected-error @+2 {{expected operands of rank >= 2, got 1 and 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.matmul %a, %b : tensor<3xf32>, tensor<3x5xf32> -> tensor<5xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x4x3xf32>, %b: tensor<3x3x5xf32>) {
  // expected-error @+2 {{batch dims of [2,4,3] and [3,3,5] are not broadcast-compatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.matmul %a, %b : tensor<2x4x3xf32>, tensor<3x3x5xf32> -> tensor<2x4x5xf32>
  return
}

// -----

func.func @gemm_c(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<3xf32>) {
  // expected-error @+2 {{C of shape [3] does not broadcast to [2,4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.gemm %a, %b, %c : tensor<3xf32> {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = false} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @conv_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  // expected-error @+2 {{input channels 4, weight [8,3,3,3] and group 1 are inconsistent}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1} : tensor<1x4x8x8xf32>, tensor<8x3x3x3xf32> -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_rank(%x: tensor<4x8x8xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+2 {{expected rank-4 input and weight (2-D conv), got 3 and 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1} : tensor<4x8x8xf32>, tensor<8x4x3x3xf32> -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_attrs(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+2 {{expected 2 strides, 4 pads and 2 dilations, got 1, 4 and 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1} : tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32> -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_bias(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{expected bias of shape [8], got [4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.conv %x, %w, %b : tensor<4xf32> {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1} : tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32> -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_too_small(%x: tensor<1x4x2x2xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+2 {{kernel larger than padded input [1,4,2,2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1} : tensor<1x4x2x2xf32>, tensor<8x4x3x3xf32> -> tensor<1x8x1x1xf32>
  return
}

// -----

func.func @pool_pads(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{kernel dims must be >= 1 and larger than the pads}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.max_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 2, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : tensor<1x4x8x8xf32> -> tensor<1x4x9x7xf32>
  return
}

// -----

func.func @pool_rank(%x: tensor<4x8x8xf32>) {
  // expected-error @+2 {{expected a rank-4 NCHW input, got rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.max_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : tensor<4x8x8xf32> -> tensor<4x7x7xf32>
  return
}

// -----

func.func @window_values(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{strides and dilations must be >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.max_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 0, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : tensor<1x4x8x8xf32> -> tensor<1x4x7x7xf32>
  return
}

// -----

func.func @gap_rank(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{expected rank >= 3 (N, C, spatial...), got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.global_average_pool %x : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @bn_params(%x: tensor<1x4x8x8xf32>, %s: tensor<3xf32>) {
  // expected-error @+2 {{expected per-channel parameters of shape [4], got [3]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.batch_norm %x, %s, %s, %s, %s {epsilon = 1.0e-5 : f32} : tensor<1x4x8x8xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32> -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @ln_axis(%x: tensor<2x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+2 {{axis 2 out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.layer_norm %x, %s {axis = 2, epsilon = 1.0e-5 : f32} : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @ln_scale(%x: tensor<2x8xf32>, %s: tensor<4xf32>) {
  // expected-error @+2 {{scale/bias of shape [4] does not broadcast to [8]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.layer_norm %x, %s {axis = 1, epsilon = 1.0e-5 : f32} : tensor<2x8xf32>, tensor<4xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @softmax_axis(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{axis 3 out of range for rank 2}}
  %0 = dlc_graph.softmax %x {axis = 3} : tensor<2x8xf32>
  return
}

// -----

func.func @reduce_axes(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{reduction axes must be sorted, unique and in [0, 2), got [1,0]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.reduce_sum %x {axes = array<i64: 1, 0>, keepdims = false} : tensor<2x8xf32> -> tensor<f32>
  return
}

// -----

func.func @reshape_count(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{cannot reshape [2,8] (16 elements) to [3,5] (15 elements)}}
  %0 = dlc_graph.reshape %x : tensor<2x8xf32> -> tensor<3x5xf32>
  return
}

// -----

func.func @reshape_type(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{element types differ}}
  %0 = dlc_graph.reshape %x : tensor<2x8xf32> -> tensor<16xi32>
  return
}

// -----

func.func @transpose_perm(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{perm [0,0] is not a permutation}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.transpose %x {perm = array<i64: 0, 0>} : tensor<2x8xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @transpose_rank(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{perm [0] does not match rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.transpose %x {perm = array<i64: 0>} : tensor<2x8xf32> -> tensor<2xf32>
  return
}

// -----

func.func @concat_shapes(%x: tensor<2x8xf32>, %y: tensor<3x4xf32>) {
  // expected-error @+2 {{input shapes [2,8] and [3,4] differ outside axis 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.concat %x, %y {axis = 0} : (tensor<2x8xf32>, tensor<3x4xf32>) -> tensor<5x8xf32>
  return
}

// -----

func.func @concat_axis(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{axis 2 out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.concat %x {axis = 2} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @split_sizes(%x: tensor<10xf32>) {
  // expected-error @+2 {{split sizes [3,5] do not sum to dim 10}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = dlc_graph.split %x {axis = 0, sizes = array<i64: 3, 5>} : tensor<10xf32> -> tensor<3xf32>, tensor<5xf32>
  return
}

// -----

func.func @slice_bounds(%x: tensor<10xf32>) {
  // expected-error @+2 {{slice of dim 0 reads outside [0, 10)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.slice %x {starts = array<i64: 8>, sizes = array<i64: 3>, steps = array<i64: 1>} : tensor<10xf32> -> tensor<3xf32>
  return
}

// -----

func.func @slice_step(%x: tensor<10xf32>) {
  // expected-error @+2 {{steps must be non-zero and sizes >= 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.slice %x {starts = array<i64: 0>, sizes = array<i64: 3>, steps = array<i64: 0>} : tensor<10xf32> -> tensor<3xf32>
  return
}

// -----

func.func @gather_axis(%x: tensor<10xf32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{axis 1 out of range for rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.gather %x, %i {axis = 1} : tensor<10xf32>, tensor<2xi64> -> tensor<2xf32>
  return
}

// -----

func.func @expand_shape(%x: tensor<3xf32>) {
  // expected-error @+1 {{cannot broadcast [3] to [2,4]}}
  %0 = dlc_graph.expand %x : tensor<3xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @pad_mode(%x: tensor<3xf32>) {
  // expected-error @+2 {{unsupported pad mode 'wrap'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.pad %x {pads = array<i64: 1, 1>, mode = "wrap", value = 0.0 : f64} : tensor<3xf32> -> tensor<5xf32>
  return
}

// -----

func.func @pad_count(%x: tensor<3xf32>) {
  // expected-error @+2 {{expected 2 pads, got 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.pad %x {pads = array<i64: 1>, mode = "constant", value = 0.0 : f64} : tensor<3xf32> -> tensor<5xf32>
  return
}

// -----

func.func @pad_crop(%x: tensor<3xf32>) {
  // expected-error @+2 {{pads [-2,-2] crop dim 0 below zero}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.pad %x {pads = array<i64: -2, -2>, mode = "constant", value = 0.0 : f64} : tensor<3xf32> -> tensor<0xf32>
  return
}

// -----

func.func @pad_reflect(%x: tensor<3xf32>) {
  // expected-error @+2 {{reflect pads must be smaller than the dim}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.pad %x {pads = array<i64: 3, 0>, mode = "reflect", value = 0.0 : f64} : tensor<3xf32> -> tensor<6xf32>
  return
}

// -----

func.func @gelu_mode(%x: tensor<3xf32>) {
  // expected-error @+1 {{approximate must be 'none' or 'tanh', got 'fast'}}
  %0 = dlc_graph.gelu %x {approximate = "fast"} : tensor<3xf32>
  return
}

// -----

func.func @where_shapes(%c: tensor<2xi1>, %x: tensor<3xf32>) {
  // expected-error @+2 {{shapes [2], [3] and [3] are not broadcast-compatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.where %c, %x, %x : tensor<2xi1>, tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @clip_bounds(%x: tensor<3xf32>, %lo: tensor<2xf32>) {
  // expected-error @+2 {{clip bounds must be one-element tensors of the input's element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.clip %x, %lo, %lo : tensor<3xf32>, tensor<2xf32>, tensor<2xf32> -> tensor<3xf32>
  return
}

// -----

func.func @arg_max_axis(%x: tensor<2x3xf32>) -> tensor<2xi64> {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.arg_max %x {axis = 2 : i64, keepdims = false, select_last_index = false} : tensor<2x3xf32> -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @arg_max_empty(%x: tensor<2x0xf32>) -> tensor<2xi64> {
  // expected-error @+2 {{cannot take the index of an extreme over an empty axis}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.arg_max %x {axis = 1 : i64, keepdims = false, select_last_index = false} : tensor<2x0xf32> -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @gather_elements_rank(%x: tensor<2x3xf32>, %i: tensor<2xi64>) -> tensor<2xf32> {
  // expected-error @+2 {{indices have rank 1, data rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.gather_elements %x, %i {axis = 1 : i64} : tensor<2x3xf32>, tensor<2xi64> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @bitcast_width(%x: tensor<2xf32>) -> tensor<2xi64> {
  // expected-error @+1 {{bitcast needs element types of the same width (not i1), got 'f32' and 'i64'}}
  %0 = dlc_graph.bitcast %x : tensor<2xf32> -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @scatter_reduction(%d: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{reduction must be none, add, mul, max or min, got 'avg'}}
  %0 = dlc_graph.scatter_elements %d, %i, %u {axis = 0 : i64, reduction = "avg"} : tensor<4xf32>, tensor<2xi64>, tensor<2xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @scatter_nd_shape(%d: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{updates must have shape indices[:-1] + data[k:]}}
  %0 = dlc_graph.scatter_nd %d, %i, %u {axis = 0 : i64, reduction = "none"} : tensor<4x3xf32>, tensor<2x1xi64>, tensor<2xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @runtime_check_rank(%f: tensor<2xi32>) {
  // expected-error @+1 {{flag must be a 0-d tensor}}
  dlc_graph.runtime_check %f {message = "m"} : tensor<2xi32>
  return
}

// -----

func.func @matmul_integer_width(%a: tensor<2x4xi16>, %b: tensor<4x3xi8>) -> tensor<2x3xi32> {
  // expected-error @+1 {{operand #0 must be ranked tensor of 8-bit signless integer values}}
  %0 = dlc_graph.matmul_integer %a, %b : tensor<2x4xi16>, tensor<4x3xi8> -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

func.func @matmul_integer_k(%a: tensor<2x4xi8>, %b: tensor<5x3xi8>) -> tensor<2x3xi32> {
  // expected-error @+2 {{contraction dims differ: [2,4] x [5,3]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.matmul_integer %a, %b : tensor<2x4xi8>, tensor<5x3xi8> -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

func.func @quantize_axis_scale(%x: tensor<2x4xf32>, %s: tensor<3xf32>) -> tensor<2x4xi8> {
  // expected-error @+1 {{a per-axis scale or zero point must be 1-D of 4 elements (the input's dim 1), got [3]}}
  %0 = dlc_graph.quantize %x, %s {axis = 1 : i64, block_size = 0 : i64} : tensor<2x4xf32>, tensor<3xf32> -> tensor<2x4xi8>
  return %0 : tensor<2x4xi8>
}

// -----

func.func @quantize_axis_range(%x: tensor<2x4xf32>, %s: tensor<4xf32>) -> tensor<2x4xi8> {
  // expected-error @+1 {{axis 2 is out of range for a rank-2 input}}
  %0 = dlc_graph.quantize %x, %s {axis = 2 : i64, block_size = 0 : i64} : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xi8>
  return %0 : tensor<2x4xi8>
}

// -----

func.func @dequantize_blocked(%x: tensor<2x6xi8>, %s: tensor<2x2xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{a blocked scale or zero point must have shape [2,3] for blocks of 2 along axis 1, got [2,2]}}
  %0 = dlc_graph.dequantize %x, %s {axis = 1 : i64, block_size = 2 : i64} : tensor<2x6xi8>, tensor<2x2xf32> -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @dequantize_zero_point_type(%x: tensor<4xi8>, %s: tensor<f32>, %z: tensor<i16>) -> tensor<4xf32> {
  // expected-error @+1 {{zero point must be 'i8', got 'i16'}}
  %0 = dlc_graph.dequantize %x, %s, %z : tensor<i16> {axis = 0 : i64, block_size = 0 : i64} : tensor<4xi8>, tensor<f32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @dequantize_shape(%x: tensor<4xi8>, %s: tensor<f32>) -> tensor<3xf32> {
  // expected-error @+1 {{result shape [3] differs from the input's [4]}}
  %0 = dlc_graph.dequantize %x, %s {axis = 0 : i64, block_size = 0 : i64} : tensor<4xi8>, tensor<f32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @conv_bytes_bias(%x: tensor<1x4x5x5xi8>, %w: tensor<2x4x3x3xi8>, %b: tensor<2xi8>) {
  // expected-error @+2 {{8-bit convolutions take 8-bit weights, group 1 or depthwise and no bias}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.conv %x, %w, %b : tensor<2xi8> {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1} : tensor<1x4x5x5xi8>, tensor<2x4x3x3xi8> -> tensor<1x2x3x3xi32>
  return
}

// -----

func.func @conv_bytes_grouped(%x: tensor<1x4x5x5xi8>, %w: tensor<2x2x3x3xi8>) {
  // expected-error @+2 {{8-bit convolutions take 8-bit weights, group 1 or depthwise and no bias}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2} : tensor<1x4x5x5xi8>, tensor<2x2x3x3xi8> -> tensor<1x2x3x3xi32>
  return
}

// -----

func.func @conv_float_pad_value(%x: tensor<1x4x5x5xf32>, %w: tensor<2x4x3x3xf32>) {
  // expected-error @+2 {{input_unsigned, weight_unsigned and pad_value are for 8-bit convolutions}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1, pad_value = 3} : tensor<1x4x5x5xf32>, tensor<2x4x3x3xf32> -> tensor<1x2x3x3xf32>
  return
}

// -----

func.func @dequant_matmul_k(%a: tensor<1x8xf32>, %q: tensor<4x6xi8>, %s: tensor<4x1xf32>) -> tensor<1x4xf32> {
  // expected-error @+2 {{contraction dims differ: [1,8] x codes [4,6]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.dequant_matmul %a, %q, %s {block_size = 8 : i64} : tensor<1x8xf32>, tensor<4x6xi8>, tensor<4x1xf32> -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

func.func @dequant_matmul_scale(%a: tensor<1x8xf32>, %q: tensor<4x8xi8>, %s: tensor<4x1xf32>) -> tensor<1x4xf32> {
  // expected-error @+2 {{scale must be [4,2] of the activations' type, got [4,1]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.dequant_matmul %a, %q, %s {block_size = 4 : i64} : tensor<1x8xf32>, tensor<4x8xi8>, tensor<4x1xf32> -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

func.func @dequant_matmul_zero_point(%a: tensor<1x8xf32>, %q: tensor<4x8xi8>, %s: tensor<4x2xf32>, %z: tensor<4x1xi8>) -> tensor<1x4xf32> {
  // expected-error @+2 {{zero point must be [4,2], got [4,1]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.dequant_matmul %a, %q, %s, %z {block_size = 4 : i64} : tensor<1x8xf32>, tensor<4x8xi8>, tensor<4x2xf32>, tensor<4x1xi8> -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

func.func @dequant_matmul_block(%a: tensor<1x8xf32>, %q: tensor<4x8xi8>, %s: tensor<4x2xf32>) -> tensor<1x4xf32> {
  // expected-error @+2 {{block_size must be positive, got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.dequant_matmul %a, %q, %s {block_size = 0 : i64} : tensor<1x8xf32>, tensor<4x8xi8>, tensor<4x2xf32> -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

func.func @reshape_dims_on_static(%x: tensor<?x8xf32>) -> tensor<?x2x4xf32> {
  // expected-error @+1 {{dims: a size is given for exactly the dynamic dims (dim 1)}}
  %0 = dlc_graph.reshape %x {dims = ["n", "2", ""]} : tensor<?x8xf32> -> tensor<?x2x4xf32>
  return %0 : tensor<?x2x4xf32>
}

// -----

func.func @slice_dynamic_zero_step(%x: tensor<?x8xf32>) {
  // expected-error @+2 {{a slice of dynamic dim 0 needs a non-zero step and a size >= 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc_graph.slice %x {dims = ["n", ""], sizes = array<i64: -9223372036854775808, 8>, starts = array<i64: 1, 0>, steps = array<i64: 0, 1>} : tensor<?x8xf32> -> tensor<?x8xf32>
  return
}

// -----

func.func @slice_start_dims_count(%x: tensor<?x8xf32>) {
  // expected-error @+1 {{expected 2 start_dims, got 1}}
  %0 = dlc_graph.slice %x {sizes = array<i64: 2, 8>, starts = array<i64: 0, 0>, start_dims = ["(n-2)"], steps = array<i64: 1, 1>} : tensor<?x8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @slice_dims(%x: tensor<?x8xf32>) {
  // expected-error @+1 {{dims: a size is given for exactly the dynamic dims (dim 1)}}
  %0 = dlc_graph.slice %x {dims = ["n", "m"], sizes = array<i64: -9223372036854775808, 8>, starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<?x8xf32> -> tensor<?x8xf32>
  return
}

// -----

func.func @split_dynamic_piece_of_static_axis(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{split sizes must be >= 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = dlc_graph.split %x {axis = 0 : i64, sizes = array<i64: -9223372036854775808, 1>} : tensor<2x8xf32> -> tensor<?x8xf32>, tensor<1x8xf32>
  return
}

// -----

func.func @nonzero_rows(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{result must be tensor<2x?xi64>, got 'tensor<3x?xi64>'}}
  %0 = dlc_graph.nonzero %x {count = "n"} : tensor<3x4xf32> -> tensor<3x?xi64>
  return
}

// -----

func.func @nonzero_static(%x: tensor<f32>) {
  // expected-error @+1 {{result must be tensor<1x?xi64>, got 'tensor<1x5xi64>'}}
  %0 = dlc_graph.nonzero %x {count = "n"} : tensor<f32> -> tensor<1x5xi64>
  return
}
