// RUN: dlc-opt %s -convert-graph-to-linalg="pack-block=16" | FileCheck %s
// RUN: not dlc-opt %s -convert-graph-to-linalg="pack-block=12" 2>&1 | FileCheck %s --check-prefix=BAD
// Constant weights are packed in blocks of the target's register tile width (pack-block:
// 16 for AVX2's 6x16 tiles): 64 columns become [4][K][16]; 300 columns are padded to
// 304 = 19 blocks of 16 and the product sliced back.

// CHECK-LABEL: func @packed
// CHECK: arith.constant dense<{{.*}}> : tensor<4x3x16xf32>
// CHECK: tensor.collapse_shape {{.*}} : tensor<2x4x16xf32> into tensor<2x64xf32>
func.func @packed(%a: tensor<2x3xf32>) -> tensor<2x64xf32> {
  %w = arith.constant dense<0.5> : tensor<3x64xf32>
  %0 = dlc_graph.matmul %a, %w : tensor<2x3xf32>, tensor<3x64xf32> -> tensor<2x64xf32>
  return %0 : tensor<2x64xf32>
}

// CHECK-LABEL: func @padded
// CHECK: arith.constant dense<{{.*}}> : tensor<19x3x16xf32>
// CHECK: tensor.extract_slice {{.*}} : tensor<2x304xf32> to tensor<2x300xf32>
func.func @padded(%a: tensor<2x3xf32>) -> tensor<2x300xf32> {
  %w = arith.constant dense<0.5> : tensor<3x300xf32>
  %0 = dlc_graph.matmul %a, %w : tensor<2x3xf32>, tensor<3x300xf32> -> tensor<2x300xf32>
  return %0 : tensor<2x300xf32>
}

// BAD: convert-graph-to-linalg: pack-block must be a power of two in [8, 1024], not 12
