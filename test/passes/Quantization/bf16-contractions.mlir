// RUN: dlc-opt %s -dlc-bf16-contractions | FileCheck %s
// --precision=bf16: matmul and conv operands rounded to bf16 (round to nearest even), f32
// accumulation. Activations through a cast pair; constant weights rounded in place.

// 1 + 2^-8 is a tie (rounds to even: 1.0); 1 + 3 * 2^-8 rounds up to 1 + 2^-6.
// CHECK-LABEL: func @matmul
// CHECK: %[[N:.*]] = dlc_graph.cast %arg0 : tensor<3x2xf32> to tensor<3x2xbf16>
// CHECK: %[[X:.*]] = dlc_graph.cast %[[N]] : tensor<3x2xbf16> to tensor<3x2xf32>
// CHECK: %[[W:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 1.015625], [-2.000000e+00, 5.000000e-01]]> : tensor<2x2xf32>
// CHECK: dlc_graph.matmul %[[X]], %[[W]] : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
func.func @matmul(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[1.00390625, 1.01171875], [-2.0, 0.5]]> : tensor<2x2xf32>
  %y = dlc_graph.matmul %x, %w : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// Integer and f16 products are left alone.
// CHECK-LABEL: func @other_types
// CHECK-NOT: dlc_graph.cast
// CHECK: dlc_graph.matmul %arg0, %arg1 : tensor<2x2xf16>
func.func @other_types(%a: tensor<2x2xf16>, %b: tensor<2x2xf16>) -> tensor<2x2xf16> {
  %y = dlc_graph.matmul %a, %b : tensor<2x2xf16>, tensor<2x2xf16> -> tensor<2x2xf16>
  return %y : tensor<2x2xf16>
}
