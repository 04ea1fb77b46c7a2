// RUN: dlc-opt %s -dlc-graph-pipeline | FileCheck %s --check-prefix=GRAPH
// RUN: dlc-opt %s -dlc-graph-pipeline -dlc-linalg-pipeline -mlir-print-ir-before=convert-graph-to-linalg 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: dlc-opt %s -dlc-graph-pipeline -dlc-linalg-pipeline | FileCheck %s --check-prefix=LINALG
// RUN: dlc-opt %s -dlc-graph-pipeline -dlc-linalg-pipeline -dlc-fuse-elementwise -mlir-print-debuginfo | FileCheck %s --check-prefix=REGION
// Attention (raised from the exporter's chain here) and the recurrent ops stay whole through
// the graph phase, where a fusion decision sees each as one op, and the linalg phase
// expands them before lowering.

// GRAPH-LABEL: func @main
// GRAPH: dlc_graph.attention
// GRAPH-NOT: dlc_graph.softmax
// GRAPH: dlc_graph.lstm
// GRAPH: return

// BEFORE: IR Dump Before {{.*}}convert-graph-to-linalg
// BEFORE-NOT: dlc_graph.attention
// BEFORE-NOT: dlc_graph.lstm
// BEFORE: dlc_graph.reduce_max
// BEFORE: dlc_graph.matmul

// After the fusion pass every linalg op of the expansions still carries its region in
// its location (fused<"dlc.region.KIND">[step, the composite op]).
// REGION-DAG: #[[ATT:loc[0-9]+]] = loc(fused<"dlc.region.attention">
// REGION-DAG: #[[LSTM:loc[0-9]+]] = loc(fused<"dlc.region.lstm">
// REGION-LABEL: func @main
// REGION-DAG: linalg.{{.*}} loc(#[[ATT]])
// REGION-DAG: linalg.{{.*}} loc(#[[LSTM]])

// LINALG-LABEL: func @main
// LINALG-NOT: dlc_graph.
// LINALG: linalg.
// LINALG: return

func.func @main(%q: tensor<1x2x3x4xf32>, %kt: tensor<1x2x4x5xf32>, %v: tensor<1x2x5x4xf32>,
                %x: tensor<2x1x3xf32>, %w: tensor<1x8x3xf32>, %r: tensor<1x8x2xf32>, %b: tensor<1x16xf32>,
                %h: tensor<1x1x2xf32>) -> (tensor<1x2x3x4xf32>, tensor<2x1x1x2xf32>) {
  %c = arith.constant dense<2.0> : tensor<f32>
  %0 = dlc_graph.matmul %q, %kt : tensor<1x2x3x4xf32>, tensor<1x2x4x5xf32> -> tensor<1x2x3x5xf32>
  %1 = dlc_graph.div %0, %c : tensor<1x2x3x5xf32>, tensor<f32> -> tensor<1x2x3x5xf32>
  %2 = dlc_graph.softmax %1 {axis = 3 : i64} : tensor<1x2x3x5xf32>
  %3 = dlc_graph.matmul %2, %v : tensor<1x2x3x5xf32>, tensor<1x2x5x4xf32> -> tensor<1x2x3x4xf32>
  %4:3 = dlc_graph.lstm %x, %w, %r, %b, %h, %h {hidden_size = 2 : i64, direction = "forward", activations = ["Sigmoid", "Tanh", "Tanh"], activation_alpha = array<f64: 0.01, 0.01, 0.01>, activation_beta = array<f64: 0.0, 0.0, 0.0>} : tensor<2x1x3xf32>, tensor<1x8x3xf32>, tensor<1x8x2xf32>, tensor<1x16xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32> -> tensor<2x1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>
  return %3, %4#0 : tensor<1x2x3x4xf32>, tensor<2x1x1x2xf32>
}
