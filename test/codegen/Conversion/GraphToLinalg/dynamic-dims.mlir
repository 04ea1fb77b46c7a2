// RUN: dlc-opt %s -split-input-file -convert-graph-to-linalg -verify-diagnostics | FileCheck %s
// Dynamic dims (dlc compile --dims): sizes read from the operands, symbols followed to
// the results (`dlc.dims` on them), unsupported uses rejected naming the node.

// CHECK-LABEL: func.func @mlp
// CHECK-SAME: -> (tensor<?x32xf32> {dlc.dims = ["batch", ""]})
// CHECK: %[[B:.*]] = tensor.dim %arg0, %c0 : tensor<?x4xf32>
// CHECK: tensor.empty(%[[B]]) : tensor<?x1x32xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<?x1x32xf32> into tensor<?x32xf32>
// The reduction keeps the dynamic dim; its keepdims result is expanded with it.
// CHECK: tensor.empty(%{{.*}}) : tensor<?xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [%{{.*}}, 1] : tensor<?xf32> into tensor<?x1xf32>
func.func @mlp(%x: tensor<?x4xf32> {dlc.dims = ["batch", ""]}) -> tensor<?x32xf32> {
  %w = arith.constant dense<1.0> : tensor<4x32xf32>
  %b = arith.constant dense<0.5> : tensor<32xf32>
  %0 = dlc_graph.matmul %x, %w : tensor<?x4xf32>, tensor<4x32xf32> -> tensor<?x32xf32>
  %1 = dlc_graph.add %0, %b : tensor<?x32xf32>, tensor<32xf32> -> tensor<?x32xf32>
  %2 = dlc_graph.reduce_max %1 {axes = array<i64: 1>, keepdims = true} : tensor<?x32xf32> -> tensor<?x1xf32>
  %3 = dlc_graph.sub %1, %2 : tensor<?x32xf32>, tensor<?x1xf32> -> tensor<?x32xf32>
  return %3 : tensor<?x32xf32>
}

// -----

// A mean over a dynamic dim divides by its size at run time.
// CHECK-LABEL: func.func @mean_over_dynamic
// CHECK: %[[N:.*]] = tensor.dim %arg0, %c0
// CHECK: %[[I:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[F:.*]] = arith.sitofp %[[I]] : i64 to f32
// CHECK: arith.mulf %{{.*}}, %[[F]] : f32
// CHECK: arith.divf
func.func @mean_over_dynamic(%x: tensor<?x3xf32> {dlc.dims = ["n", ""]}) -> tensor<3xf32> {
  %0 = dlc_graph.reduce_mean %x {axes = array<i64: 0>, keepdims = false} : tensor<?x3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Batch and sequence both dynamic: the packed matmul's rows are both, sized from the
// activations; a transpose permutes them; a reshape splitting the feature dim keeps them.
// CHECK-LABEL: func.func @two_symbols
// CHECK-SAME: {dlc.dims = ["seq", "batch", "", ""]}
// CHECK: %[[B:.*]] = tensor.dim %arg0, %c0
// CHECK: %[[S:.*]] = tensor.dim %arg0, %c1
// CHECK: tensor.empty(%[[B]], %[[S]]) : tensor<?x?x1x16xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : tensor<?x?x1x16xf32> into tensor<?x?x16xf32>
// CHECK: linalg.transpose
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3]] output_shape [%{{.*}}, %{{.*}}, 4, 4]
func.func @two_symbols(%x: tensor<?x?x8xf32> {dlc.dims = ["batch", "seq", ""]}) -> tensor<?x?x4x4xf32> {
  %w = arith.constant dense<1.0> : tensor<8x16xf32>
  %0 = dlc_graph.matmul %x, %w : tensor<?x?x8xf32>, tensor<8x16xf32> -> tensor<?x?x16xf32>
  %1 = dlc_graph.transpose %0 {perm = array<i64: 1, 0, 2>} : tensor<?x?x16xf32> -> tensor<?x?x16xf32>
  %2 = dlc_graph.reshape %1 : tensor<?x?x16xf32> -> tensor<?x?x4x4xf32>
  return %2 : tensor<?x?x4x4xf32>
}

// -----

// Dims of different symbols, or a symbol against a static size, are taken to be equal:
// the function lists them (dlc.size_checks) for the runtime to compare before each run.
// CHECK-LABEL: func.func @different_symbols
// CHECK-SAME: dlc.size_checks = {{\[}}["a", "b", "dlc_graph.add: dim 0 of input 0 (a) and dim 0 of input 1 (b) differ; they must be equal {{.*}}"], ["a", "4", "dlc_graph.add: dim 0 of input 0 (a) and the size 4 differ{{.*}}"]]
func.func @different_symbols(%x: tensor<?xf32> {dlc.dims = ["a"]}, %y: tensor<?xf32> {dlc.dims = ["b"]}, %z: tensor<4xf32>) -> (tensor<?xf32>, tensor<4xf32>) {
  %0 = dlc_graph.add %x, %y : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>
  %1 = dlc_graph.add %x, %z : tensor<?xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0, %1 : tensor<?xf32>, tensor<4xf32>
}

// -----

// A concat along a dynamic dim: its size is the sum (a derived size, "(a+b)"), the
// offsets are read when it runs; an output dim that is no input symbol is declared a dim
// the model computes, bounded by its parts' ranges.
// CHECK-LABEL: func.func @concat_dynamic_axis
// CHECK-SAME: -> (tensor<?x4xf32> {dlc.dims = ["(a+b)", ""]}, tensor<?x4xf32> {dlc.dims = ["2*a", ""]})
// CHECK-SAME: dlc.computed_dims = ["(a+b)", "2*a"]
// CHECK-SAME: "(a+b)" = array<i64: 2, 12>, "2*a" = array<i64: 2, 8>
// CHECK: %[[B:.*]] = tensor.dim %arg1, %c0
// CHECK: %[[S:.*]] = arith.addi %{{.*}}, %[[B]]
// CHECK: tensor.empty(%[[S]]) : tensor<?x4xf32>
// CHECK: tensor.insert_slice %arg0 into %{{.*}}[0, 0] [%{{.*}}, 4] [1, 1]
// CHECK: tensor.insert_slice %arg1 into %{{.*}}[%{{.*}}, 0] [%{{.*}}, 4] [1, 1]
func.func @concat_dynamic_axis(%x: tensor<?x4xf32> {dlc.dims = ["a", ""]}, %y: tensor<?x4xf32> {dlc.dims = ["b", ""]}) -> (tensor<?x4xf32>, tensor<?x4xf32>)
    attributes {dlc.dim_ranges = {a = array<i64: 1, 4>, b = array<i64: 1, 8>}} {
  %0 = dlc_graph.concat %x, %y {axis = 0} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = dlc_graph.concat %x, %x {axis = 0} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0, %1 : tensor<?x4xf32>, tensor<?x4xf32>
}

// -----

// An op without a rule for dynamic dims (a recurrent op, decomposed before this pass).
func.func @unsupported_recurrent(%x: tensor<3x?x5xf32> {dlc.dims = ["", "batch", ""]}, %w: tensor<1x4x5xf32>, %r: tensor<1x4x4xf32>, %b: tensor<1x8xf32>, %h: tensor<1x?x4xf32> {dlc.dims = ["", "batch", ""]}) -> tensor<3x1x?x4xf32> {
  // expected-error @+1 {{dynamic dims (--dims): the op does not support dynamic dims yet}}
  %0:2 = dlc_graph.rnn %x, %w, %r, %b, %h {hidden_size = 4 : i64, direction = "forward", activations = ["Tanh"], activation_alpha = array<f64: 0.01>, activation_beta = array<f64: 0.0>} : tensor<3x?x5xf32>, tensor<1x4x5xf32>, tensor<1x4x4xf32>, tensor<1x8xf32>, tensor<1x?x4xf32> -> tensor<3x1x?x4xf32>, tensor<1x?x4xf32>
  return %0#0 : tensor<3x1x?x4xf32>
}

// -----

func.func @unsupported(%x: tensor<1x1x4x4xf32>, %w: tensor<?x1x1x1xf32> {dlc.dims = ["f", "", "", ""]}) -> tensor<1x?x4x4xf32> {
  // expected-error @+1 {{dynamic dims (--dims): dynamic weights are not supported}}
  %0 = dlc_graph.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1} : tensor<1x1x4x4xf32>, tensor<?x1x1x1xf32> -> tensor<1x?x4x4xf32>
  return %0 : tensor<1x?x4x4xf32>
}

// -----

// A concat along a static axis: the result's batch is the first input's.
// CHECK-LABEL: func.func @concat_static_axis
// CHECK-SAME: -> (tensor<?x8xf32> {dlc.dims = ["batch", ""]})
// CHECK: %[[N:.*]] = tensor.dim %arg0, %c0
// CHECK: tensor.empty(%[[N]]) : tensor<?x8xf32>
// CHECK: tensor.insert_slice %arg0 into {{.*}}[0, 0] [%{{.*}}, 4] [1, 1]
// CHECK: tensor.insert_slice %arg0 into {{.*}}[0, 4] [%{{.*}}, 4] [1, 1]
func.func @concat_static_axis(%x: tensor<?x4xf32> {dlc.dims = ["batch", ""]}) -> tensor<?x8xf32> {
  %0 = dlc_graph.concat %x, %x {axis = 1} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// A causal mask sliced to [:seq, :seq] (a size of the symbols, within the constant's dims),
// and a split of a dynamic tensor along its static dim.
// CHECK-LABEL: func.func @slice_split
// CHECK: %[[S:.*]] = tensor.dim %arg0, %c1
// CHECK: %[[R:.*]] = arith.minsi %[[S]], %c16
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [%[[R]], 16] [1, 1] : tensor<16x16xf32> to tensor<?x16xf32>
// CHECK: tensor.extract_slice %arg0[0, 0, 4] [%{{.*}}, %{{.*}}, 4] [1, 1, 1] : tensor<?x?x8xf32> to tensor<?x?x4xf32>
func.func @slice_split(%x: tensor<?x?x8xf32> {dlc.dims = ["batch", "seq", ""]}, %m: tensor<16x16xf32>) -> (tensor<?x16xf32>, tensor<?x?x4xf32>) {
  %0 = dlc_graph.slice %m {dims = ["seq", ""], sizes = array<i64: -9223372036854775808, 16>, starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<16x16xf32> -> tensor<?x16xf32>
  %1:2 = dlc_graph.split %x {axis = 2 : i64, sizes = array<i64: 4, 4>} : tensor<?x?x8xf32> -> tensor<?x?x4xf32>, tensor<?x?x4xf32>
  return %0, %1#1 : tensor<?x16xf32>, tensor<?x?x4xf32>
}

// -----

// A pool over a dynamic batch: its init is sized from the input's batch.
// CHECK-LABEL: func.func @pool_batch
// CHECK-SAME: -> (tensor<?x3x4x4xf32> {dlc.dims = ["batch", "", "", ""]})
// CHECK: %[[N:.*]] = tensor.dim %arg0, %c0
// CHECK: tensor.empty(%[[N]]) : tensor<?x3x4x4xf32>
// CHECK: linalg.pooling_nchw_max
func.func @pool_batch(%x: tensor<?x3x8x8xf32> {dlc.dims = ["batch", "", "", ""]}) -> tensor<?x3x4x4xf32> {
  %0 = dlc_graph.max_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : tensor<?x3x8x8xf32> -> tensor<?x3x4x4xf32>
  return %0 : tensor<?x3x4x4xf32>
}

// -----

// A dynamic image dim: the number of windows is computed when the model runs, and that
// the window fits is checked before (dlc.size_checks).
// CHECK-LABEL: func.func @pool_spatial
// CHECK-SAME: -> (tensor<1x3x?x4xf32> {dlc.dims = ["", "", "(h//2)", ""]})
// CHECK-SAME: dlc.size_checks = {{\[\["h", "max\(h,2\)", "dlc_graph.max_pool: image dim h of input 0 is smaller than the window: it must be at least 2}}
// CHECK: %[[H:.*]] = tensor.dim %arg0, %c2
// CHECK: %[[OH:.*]] = arith.divui %[[H]], %c2
// CHECK: tensor.empty(%[[OH]]) : tensor<1x3x?x4xf32>
// CHECK: linalg.pooling_nchw_max
func.func @pool_spatial(%x: tensor<1x3x?x8xf32> {dlc.dims = ["", "", "h", ""]}) -> tensor<1x3x?x4xf32> {
  %0 = dlc_graph.max_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : tensor<1x3x?x8xf32> -> tensor<1x3x?x4xf32>
  return %0 : tensor<1x3x?x4xf32>
}

// -----

func.func @unnamed(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @-1 {{argument 0 has dynamic dims but no `dlc.dims` naming them}}
  %0 = dlc_graph.relu %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Flattening a dynamic dim with static ones gives their product; splitting it back by the
// same factor gives the symbol again.
// CHECK-LABEL: func.func @flatten_and_split
// CHECK-SAME: -> (tensor<?x4xf32> {dlc.dims = ["batch", ""]}, tensor<?xf32> {dlc.dims = ["4*batch"]})
func.func @flatten_and_split(%x: tensor<?x4xf32> {dlc.dims = ["batch", ""]}) -> (tensor<?x4xf32>, tensor<?xf32>) {
  %0 = dlc_graph.reshape %x : tensor<?x4xf32> -> tensor<?xf32>
  %1 = dlc_graph.reshape %0 : tensor<?xf32> -> tensor<?x4xf32>
  return %1, %0 : tensor<?x4xf32>, tensor<?xf32>
}

// -----

func.func @split_by_other(%x: tensor<?x4xf32> {dlc.dims = ["batch", ""]}) -> tensor<?x8xf32> {
  %0 = dlc_graph.reshape %x : tensor<?x4xf32> -> tensor<?xf32>
  // expected-error @+1 {{a dynamic dim (4*batch) does not split by 8}}
  %1 = dlc_graph.reshape %0 : tensor<?xf32> -> tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}

// -----

// A reshape whose target was computed from shapes carries its sizes: [B*S, 8] back to
// [B, S, 8] (GPT-2's Conv1D) reads B and S from the argument that has them, through a
// shape tensor (one dim expanding into two dynamic ones).
// CHECK-LABEL: func.func @unflatten
// CHECK-SAME: -> (tensor<?x?x8xf32> {dlc.dims = ["batch", "seq", ""]})
// CHECK: tensor.collapse_shape %arg0 {{\[}}[0, 1], [2]]
// CHECK: %[[B:.*]] = tensor.dim %arg0, %c0
// CHECK: %[[S:.*]] = tensor.dim %arg0, %c1
// CHECK: %[[BI:.*]] = arith.index_cast %[[B]] : index to i64
// CHECK: %[[SI:.*]] = arith.index_cast %[[S]] : index to i64
// CHECK: %[[SHAPE:.*]] = tensor.from_elements %[[BI]], %[[SI]], %{{.*}} : tensor<3xi64>
// CHECK: tensor.reshape %{{.*}}(%[[SHAPE]])
func.func @unflatten(%x: tensor<?x?x8xf32> {dlc.dims = ["batch", "seq", ""]}) -> tensor<?x?x8xf32> {
  %0 = dlc_graph.reshape %x : tensor<?x?x8xf32> -> tensor<?x8xf32>
  %1 = dlc_graph.relu %0 : tensor<?x8xf32>
  %2 = dlc_graph.reshape %1 {dims = ["batch", "seq", ""]} : tensor<?x8xf32> -> tensor<?x?x8xf32>
  return %2 : tensor<?x?x8xf32>
}

// -----

// Element counts that may differ are compared before each run.
// CHECK-LABEL: func.func @unflatten_unequal
// CHECK-SAME: dlc.size_checks = {{\[}}["8*batch*seq", "8*batch*batch", "dlc_graph.reshape: the element count of input 0 (8*batch*seq) and the result's 8*batch*batch differ{{.*}}"]]
func.func @unflatten_unequal(%x: tensor<?x?x8xf32> {dlc.dims = ["batch", "seq", ""]}) -> tensor<?x?x8xf32> {
  %0 = dlc_graph.reshape %x : tensor<?x?x8xf32> -> tensor<?x8xf32>
  %1 = dlc_graph.reshape %0 {dims = ["batch", "batch", ""]} : tensor<?x8xf32> -> tensor<?x?x8xf32>
  return %1 : tensor<?x?x8xf32>
}
