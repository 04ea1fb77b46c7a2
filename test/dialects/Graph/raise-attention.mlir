// RUN: dlc-opt %s -dlc-raise-attention -split-input-file | FileCheck %s
// RUN: dlc-opt %s -dlc-raise-attention -dlc-decompose -split-input-file | FileCheck %s --check-prefix=ROUND
// dlc-raise-attention: exporters' MatMul-Softmax-MatMul chains -> dlc_graph.attention, and
// (ROUND) what its decomposition rebuilds: the same primitives as the chain's.

!q = tensor<1x2x3x4xf32>
!kt = tensor<1x2x4x5xf32>
!v = tensor<1x2x5x4xf32>
!s = tensor<1x2x3x5xf32>

// HF BERT eager: Div by a constant, then an additive extended mask.
// CHECK-LABEL: func @bert
// CHECK: %[[Y:.*]] = dlc_graph.attention %arg0, %arg1, %arg2 masks(%arg3 : tensor<1x1x1x5xf32>) {has_mask, key_transposed, score_scale = 8.000000e+00 : f64, score_scale_divides}
// CHECK-NEXT: return %[[Y]]
// ROUND-LABEL: func @bert
// ROUND: %[[QK:.*]] = dlc_graph.matmul %arg0, %arg1
// ROUND: %[[D:.*]] = dlc_graph.div %[[QK]], %{{.*}} : tensor<1x2x3x5xf32>, tensor<f32>
// ROUND: %[[A:.*]] = dlc_graph.add %[[D]], %arg3
// ROUND: dlc_graph.reduce_max %[[A]]
// ROUND: dlc_graph.reciprocal
// ROUND: %[[P:.*]] = dlc_graph.mul
// ROUND: dlc_graph.matmul %[[P]], %arg2
func.func @bert(%q: !q, %kt: !kt, %v: !v, %m: tensor<1x1x1x5xf32>) -> !q {
  %c = arith.constant dense<8.0> : tensor<f32>
  %0 = dlc_graph.matmul %q, %kt : !q, !kt -> !s
  %1 = dlc_graph.div %0, %c : !s, tensor<f32> -> !s
  %2 = dlc_graph.add %1, %m : !s, tensor<1x1x1x5xf32> -> !s
  %3 = dlc_graph.softmax %2 {axis = 3 : i64} : !s
  %4 = dlc_graph.matmul %3, %v : !s, !v -> !q
  return %4 : !q
}

// -----

!q = tensor<1x2x3x4xf32>
!kt = tensor<1x2x4x5xf32>
!v = tensor<1x2x5x4xf32>
!s = tensor<1x2x3x5xf32>

// GPT-2 eager: Div, then Where(causal, s, -1e4).
// CHECK-LABEL: func @gpt2
// CHECK: dlc_graph.attention %arg0, %arg1, %arg2 masks(%arg3 : tensor<1x1x3x5xi1>) {has_select, key_transposed, score_scale = 8.000000e+00 : f64, score_scale_divides, select_fill = -1.000000e+04 : f64}
// ROUND-LABEL: func @gpt2
// ROUND: %[[D:.*]] = dlc_graph.div
// ROUND: dlc_graph.where %arg3, %[[D]], %{{.*}} : tensor<1x1x3x5xi1>, tensor<1x2x3x5xf32>, tensor<f32>
func.func @gpt2(%q: !q, %kt: !kt, %v: !v, %tril: tensor<1x1x3x5xi1>) -> !q {
  %c = arith.constant dense<8.0> : tensor<f32>
  %f = arith.constant dense<-1.0e4> : tensor<f32>
  %0 = dlc_graph.matmul %q, %kt : !q, !kt -> !s
  %1 = dlc_graph.div %0, %c : !s, tensor<f32> -> !s
  %2 = dlc_graph.where %tril, %1, %f : tensor<1x1x3x5xi1>, !s, tensor<f32> -> !s
  %3 = dlc_graph.softmax %2 {axis = 3 : i64} : !s
  %4 = dlc_graph.matmul %3, %v : !s, !v -> !q
  return %4 : !q
}

// -----

!q = tensor<1x2x3x4xf32>
!kt = tensor<1x2x4x5xf32>
!v = tensor<1x2x5x4xf32>
!s = tensor<1x2x3x5xf32>

// torch SDPA: scales on Q and K^T stay outside; mask added on the left; NaN guard.
// CHECK-LABEL: func @sdpa
// CHECK: %[[Q:.*]] = dlc_graph.mul %arg0
// CHECK: %[[K:.*]] = dlc_graph.mul %arg1
// CHECK: dlc_graph.attention %[[Q]], %[[K]], %arg2 masks(%arg3 : tensor<1x1x3x5xf32>) {has_mask, key_transposed, nan_to_zero}
// ROUND-LABEL: func @sdpa
// ROUND: %[[P:.*]] = dlc_graph.mul %{{.*}}, %{{.*}} : tensor<1x2x3x5xf32>, tensor<1x2x3x1xf32>
// ROUND: %[[N:.*]] = dlc_graph.is_nan %[[P]]
// ROUND: %[[W:.*]] = dlc_graph.where %[[N]], %{{.*}}, %[[P]]
// ROUND: dlc_graph.matmul %[[W]], %arg2
func.func @sdpa(%q: !q, %kt: !kt, %v: !v, %m: tensor<1x1x3x5xf32>) -> !q {
  %c = arith.constant dense<0.7> : tensor<f32>
  %z = arith.constant dense<0.0> : tensor<f32>
  %qs = dlc_graph.mul %q, %c : !q, tensor<f32> -> !q
  %ks = dlc_graph.mul %kt, %c : !kt, tensor<f32> -> !kt
  %0 = dlc_graph.matmul %qs, %ks : !q, !kt -> !s
  %1 = dlc_graph.add %m, %0 : tensor<1x1x3x5xf32>, !s -> !s
  %2 = dlc_graph.softmax %1 {axis = 3 : i64} : !s
  %3 = dlc_graph.is_nan %2 : !s -> tensor<1x2x3x5xi1>
  %4 = dlc_graph.where %3, %z, %2 : tensor<1x2x3x5xi1>, tensor<f32>, !s -> !s
  %5 = dlc_graph.matmul %4, %v : !s, !v -> !q
  return %5 : !q
}

// -----

!q = tensor<1x2x3x4xf32>
!kt = tensor<1x2x4x5xf32>
!v = tensor<1x2x5x4xf32>
!s = tensor<1x2x3x5xf32>

// Plain, and a Mul by a constant on the left.
// CHECK-LABEL: func @plain
// CHECK: dlc_graph.attention %arg0, %arg1, %arg2 {key_transposed} :
// CHECK: dlc_graph.attention %arg0, %arg1, %arg2 {key_transposed, score_scale = 1.250000e-01 : f64} :
func.func @plain(%q: !q, %kt: !kt, %v: !v) -> (!q, !q) {
  %c = arith.constant dense<0.125> : tensor<f32>
  %0 = dlc_graph.matmul %q, %kt : !q, !kt -> !s
  %1 = dlc_graph.softmax %0 {axis = 3 : i64} : !s
  %2 = dlc_graph.matmul %1, %v : !s, !v -> !q
  %3 = dlc_graph.matmul %q, %kt : !q, !kt -> !s
  %4 = dlc_graph.mul %c, %3 : tensor<f32>, !s -> !s
  %5 = dlc_graph.softmax %4 {axis = 3 : i64} : !s
  %6 = dlc_graph.matmul %5, %v : !s, !v -> !q
  return %2, %6 : !q, !q
}

// -----

!q = tensor<1x2x3x4xf32>
!kt = tensor<1x2x4x5xf32>
!v = tensor<1x2x5x4xf32>
!s = tensor<1x2x3x5xf32>

// Left alone: the scores have another use; softmax over another axis; a scale that is
// not a splat constant; a scale of exactly 1; a NaN guard that does not write 0.
// CHECK-LABEL: func @negative
// CHECK-NOT: dlc_graph.attention
// CHECK: return
func.func @negative(%q: !q, %kt: !kt, %v: !v, %t: tensor<5xf32>) -> (!q, !s, !q, !q, !q, !q) {
  %one = arith.constant dense<1.0> : tensor<f32>
  %0 = dlc_graph.matmul %q, %kt : !q, !kt -> !s
  %1 = dlc_graph.softmax %0 {axis = 3 : i64} : !s
  %2 = dlc_graph.matmul %1, %v : !s, !v -> !q
  %3 = dlc_graph.matmul %q, %kt : !q, !kt -> !s
  %4 = dlc_graph.softmax %3 {axis = 2 : i64} : !s
  %5 = dlc_graph.matmul %4, %v : !s, !v -> !q
  %6 = dlc_graph.matmul %q, %kt : !q, !kt -> !s
  %7 = dlc_graph.div %6, %t : !s, tensor<5xf32> -> !s
  %8 = dlc_graph.softmax %7 {axis = 3 : i64} : !s
  %9 = dlc_graph.matmul %8, %v : !s, !v -> !q
  %10 = dlc_graph.matmul %q, %kt : !q, !kt -> !s
  %11 = dlc_graph.div %10, %one : !s, tensor<f32> -> !s
  %12 = dlc_graph.softmax %11 {axis = 3 : i64} : !s
  %13 = dlc_graph.matmul %12, %v : !s, !v -> !q
  %14 = dlc_graph.matmul %q, %kt : !q, !kt -> !s
  %15 = dlc_graph.softmax %14 {axis = 3 : i64} : !s
  %16 = dlc_graph.is_nan %15 : !s -> tensor<1x2x3x5xi1>
  %17 = dlc_graph.where %16, %one, %15 : tensor<1x2x3x5xi1>, tensor<f32>, !s -> !s
  %18 = dlc_graph.matmul %17, %v : !s, !v -> !q
  return %2, %0, %5, %9, %13, %18 : !q, !s, !q, !q, !q, !q
}

// -----

// Left alone: broadcast batch/head dims; rank 3; an additive "mask" that broadcasts the
// scores to a bigger shape.
// CHECK-LABEL: func @negative_shapes
// CHECK-NOT: dlc_graph.attention
// CHECK: return
func.func @negative_shapes(%q: tensor<1x2x3x4xf32>, %kt: tensor<1x1x4x5xf32>, %v: tensor<1x2x5x4xf32>,
                           %q3: tensor<2x3x4xf32>, %kt3: tensor<2x4x5xf32>, %v3: tensor<2x5x4xf32>,
                           %kt4: tensor<1x2x4x5xf32>, %big: tensor<2x2x3x5xf32>, %v4: tensor<2x2x5x4xf32>)
    -> (tensor<1x2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x2x3x4xf32>) {
  %0 = dlc_graph.matmul %q, %kt : tensor<1x2x3x4xf32>, tensor<1x1x4x5xf32> -> tensor<1x2x3x5xf32>
  %1 = dlc_graph.softmax %0 {axis = 3 : i64} : tensor<1x2x3x5xf32>
  %2 = dlc_graph.matmul %1, %v : tensor<1x2x3x5xf32>, tensor<1x2x5x4xf32> -> tensor<1x2x3x4xf32>
  %3 = dlc_graph.matmul %q3, %kt3 : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  %4 = dlc_graph.softmax %3 {axis = 2 : i64} : tensor<2x3x5xf32>
  %5 = dlc_graph.matmul %4, %v3 : tensor<2x3x5xf32>, tensor<2x5x4xf32> -> tensor<2x3x4xf32>
  %6 = dlc_graph.matmul %q, %kt4 : tensor<1x2x3x4xf32>, tensor<1x2x4x5xf32> -> tensor<1x2x3x5xf32>
  %7 = dlc_graph.add %6, %big : tensor<1x2x3x5xf32>, tensor<2x2x3x5xf32> -> tensor<2x2x3x5xf32>
  %8 = dlc_graph.softmax %7 {axis = 3 : i64} : tensor<2x2x3x5xf32>
  %9 = dlc_graph.matmul %8, %v4 : tensor<2x2x3x5xf32>, tensor<2x2x5x4xf32> -> tensor<2x2x3x4xf32>
  return %2, %5, %9 : tensor<1x2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x2x3x4xf32>
}
