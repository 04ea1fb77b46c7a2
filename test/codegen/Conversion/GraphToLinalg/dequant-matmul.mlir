// RUN: dlc-opt %s -split-input-file -convert-graph-to-linalg="pack-block=8" | FileCheck %s
// Weight-only products: codes packed above their base as unsigned bytes [N1][KB][B][NB]
// or, when they span at most 16 values (int4), two to a byte [N1][KB][B/2][NB] (K 2j in the
// low nibble); scales and offsets ((base - zero_point) * scale) [N1][KB][NB] f32; the
// activations padded to whole blocks and viewed [..., KB, B] ([..., KB, B/2, 2]); one
// generic over (rows..., n1, n0, kb, ki) ((rows..., n1, n0, kb, kh, p)) converting each
// code in the body.

// Codes 1..11 (base 1): nibbles. N = 3 padded to 8 columns, K = 3 to two blocks of 2.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5)>
// CHECK-DAG: #[[Q:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d3, d4, d2)>
// CHECK-DAG: #[[S:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d3, d2)>
// CHECK-DAG: #[[O:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>
// CHECK-LABEL: func @nibbles
// Bytes u(k=0) | u(k=1) << 4 with u = code - 1: 0 | 1 << 4, 4 | 5 << 4, 8 | 9 << 4 (-104).
// CHECK-DAG: %[[CODES:.*]] = arith.constant dense<{{\[\[\[\[}}16, 84, -104, 0, 0, 0, 0, 0]], {{\[\[}}2, 6, 10, 0, 0, 0, 0, 0]]]]> : tensor<1x2x1x8xi8>
// CHECK-DAG: %[[SCALE:.*]] = arith.constant dense<{{\[\[\[}}5.000000e-01, 1.000000e+00, 1.250000e-01, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [2.500000e-01, 2.000000e+00, 4.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]]> : tensor<1x2x8xf32>
// offsets: (1 - 8) * 0.5, (1 - 6) * 1.0, (1 - 4) * 0.125; (1 - 7) * 0.25, (1 - 5) * 2.0, (1 - 3) * 4.0
// CHECK-DAG: %[[OFFSET:.*]] = arith.constant dense<{{\[\[\[}}-3.500000e+00, -5.000000e+00, -3.750000e-01, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [-1.500000e+00, -8.000000e+00, -8.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]]> : tensor<1x2x8xf32>
// CHECK: %[[PAD:.*]] = tensor.pad %arg0 low[0, 0] high[0, 1]
// CHECK: %[[VIEW:.*]] = tensor.expand_shape {{.*}} output_shape [1, 2, 1, 2] : tensor<4xf32> into tensor<1x2x1x2xf32>
// CHECK: %[[G:.*]] = linalg.generic {indexing_maps = [#[[A]], #[[Q]], #[[S]], #[[S]], #[[O]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[VIEW]], %[[CODES]], %[[SCALE]], %[[OFFSET]] : tensor<1x2x1x2xf32>, tensor<1x2x1x8xi8>, tensor<1x2x8xf32>, tensor<1x2x8xf32>)
// CHECK: ^bb0(%[[X:[a-z0-9_]*]]: f32, %[[C:[a-z0-9_]*]]: i8, %[[SC:[a-z0-9_]*]]: f32, %[[OF:[a-z0-9_]*]]: f32, %[[ACC:[a-z0-9_]*]]: f32):
// CHECK:   %[[LO:.*]] = arith.andi %[[C]], %{{.*}} : i8
// CHECK:   %[[HI:.*]] = arith.shrui %[[C]], %{{.*}} : i8
// CHECK:   %[[P:.*]] = linalg.index 5 : index
// CHECK:   %[[ODD:.*]] = arith.cmpi ne, %[[P]], %{{.*}} : index
// CHECK:   %[[U:.*]] = arith.select %[[ODD]], %[[HI]], %[[LO]] : i8
// CHECK:   %[[F:.*]] = arith.uitofp %[[U]] : i8 to f32
// CHECK:   %[[W:.*]] = math.fma %[[F]], %[[SC]], %[[OF]] : f32
// CHECK:   math.fma %[[X]], %[[W]], %[[ACC]] : f32
// CHECK: tensor.collapse_shape %[[G]] {{\[\[}}0], [1, 2]] : tensor<1x1x8xf32> into tensor<1x8xf32>
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [1, 3] [1, 1] : tensor<1x8xf32> to tensor<1x3xf32>
func.func @nibbles(%a: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %q = arith.constant dense<[[1, 2, 3], [5, 6, 7], [9, 10, 11]]> : tensor<3x3xi8>
  %s = arith.constant dense<[[0.5, 0.25], [1.0, 2.0], [0.125, 4.0]]> : tensor<3x2xf32>
  %z = arith.constant dense<[[8, 7], [6, 5], [4, 3]]> : tensor<3x2xi8>
  %y = dlc_graph.dequant_matmul %a, %q, %s, %z {block_size = 2 : i64, codes_unsigned} : tensor<1x3xf32>, tensor<3x3xi8>, tensor<3x2xf32>, tensor<3x2xi8> -> tensor<1x3xf32>
  return %y : tensor<1x3xf32>
}

// -----

// Signed codes spanning more than 16 values: bytes code + 128 (printed as i8), offsets
// (-128 - 0) * scale;
// one block (per row) of all of K; rows of a 3-D input stay loops.
// CHECK-LABEL: func @bytes
// CHECK-DAG: arith.constant dense<{{\[\[\[\[}}28, 28, 28, 28, 28, 28, 28, 28], [-128, -128, -128, -128, -128, -128, -128, -128], [-28, -28, -28, -28, -28, -28, -28, -28]]]]> : tensor<1x1x3x8xi8>
// CHECK-DAG: arith.constant dense<-6.400000e+01> : tensor<1x1x8xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-NOT: arith.andi
// CHECK:   arith.uitofp %{{.*}} : i8 to f32
// CHECK: tensor.collapse_shape {{.*}} : tensor<2x1x1x8xf32> into tensor<2x1x8xf32>
func.func @bytes(%a: tensor<2x1x3xf32>) -> tensor<2x1x8xf32> {
  %q = arith.constant dense<[[-100, 0, 100], [-100, 0, 100], [-100, 0, 100], [-100, 0, 100], [-100, 0, 100], [-100, 0, 100], [-100, 0, 100], [-100, 0, 100]]> : tensor<8x3xi8>
  %s = arith.constant dense<0.5> : tensor<8x1xf32>
  %y = dlc_graph.dequant_matmul %a, %q, %s {block_size = 3 : i64} : tensor<2x1x3xf32>, tensor<8x3xi8>, tensor<8x1xf32> -> tensor<2x1x8xf32>
  return %y : tensor<2x1x8xf32>
}
