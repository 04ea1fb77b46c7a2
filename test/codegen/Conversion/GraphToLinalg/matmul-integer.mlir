// RUN: dlc-opt %s -split-input-file -convert-graph-to-linalg="int8-dot-lanes=16" | FileCheck %s --check-prefixes=CHECK,DOT
// RUN: dlc-opt %s -split-input-file -convert-graph-to-linalg | FileCheck %s --check-prefixes=CHECK,WIDEN
// RUN: dlc-opt %s -split-input-file -convert-graph-to-linalg="int8-dot-lanes=8 int8-dot-group=2" | FileCheck %s --check-prefixes=CHECK,PAIRS
// RUN: not dlc-opt %s -split-input-file -convert-graph-to-linalg="int8-dot-lanes=12" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not dlc-opt %s -split-input-file -convert-graph-to-linalg="int8-dot-lanes=8 int8-dot-group=3" 2>&1 | FileCheck %s --check-prefix=BADGROUP
// 8-bit integer matmuls. With 4-byte dot products (int8-dot-lanes=16, AVX-512 VNNI) constant
// weights [K, N] are packed [N/16][K/4][16][4] and the activations read [M][K/4][4]
// (QUANT-NOTES.md §3.1). With pairs (int8-dot-group=2, AVX2 vpmaddwd) both operands are
// widened to i16 first, exactly (signed activations need no shift): weights packed
// [N/8][K/2][8][2], activations [M][K/2][2]. Otherwise each operand widens to i32 in a
// plain generic.

// BAD: int8-dot-lanes must be 0, 8 or 16, not 12
// BADGROUP: int8-dot-group must be 2 or 4, not 3

// CHECK-LABEL: func @unsigned_activations
// DOT: arith.constant dense<{{.*}}> : tensor<2x16x16x4xi8>
// DOT: tensor.expand_shape %arg0 {{\[\[}}0], [1, 2]] output_shape [4, 16, 4]
// DOT: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]
// DOT-NEXT: ^bb0(%[[A:.*]]: i8, %[[W:.*]]: i8, %[[ACC:.*]]: i32):
// DOT-NEXT: arith.extui %[[A]] : i8 to i32
// DOT-NEXT: arith.extsi %[[W]] : i8 to i32
// DOT: tensor.collapse_shape {{.*}} : tensor<4x2x16xi32> into tensor<4x32xi32>
// PAIRS: linalg.generic
// PAIRS: arith.extui {{.*}} : i8 to i16
// PAIRS: arith.constant dense<-3> : tensor<4x32x8x2xi16>
// PAIRS: tensor.expand_shape {{.*}} output_shape [4, 32, 2] : tensor<4x64xi16> into tensor<4x32x2xi16>
// PAIRS: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]
// PAIRS-NEXT: ^bb0(%[[A:.*]]: i16, %[[W:.*]]: i16, %[[ACC:.*]]: i32):
// PAIRS-NEXT: arith.extsi %[[A]] : i16 to i32
// PAIRS-NEXT: arith.extsi %[[W]] : i16 to i32
// PAIRS: tensor.collapse_shape {{.*}} : tensor<4x4x8xi32> into tensor<4x32xi32>
// WIDEN: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// WIDEN: arith.extui {{.*}} : i8 to i32
// WIDEN: arith.extsi {{.*}} : i8 to i32
func.func @unsigned_activations(%a: tensor<4x64xi8>) -> tensor<4x32xi32> {
  %w = arith.constant dense<-3> : tensor<64x32xi8>
  %0 = dlc_graph.matmul_integer %a, %w {lhs_unsigned} : tensor<4x64xi8>, tensor<64x32xi8> -> tensor<4x32xi32>
  return %0 : tensor<4x32xi32>
}

// -----

// Signed activations are made unsigned (x ^ 0x80 = x + 128) and 128 * colsum(w) is
// subtracted per column; K = 30 is padded to 32 (zero weights), N = 40 to 48 and sliced.
// CHECK-LABEL: func @signed_activations
// DOT: arith.xori
// DOT: arith.constant dense<{{.*}}> : tensor<3x8x16x4xi8>
// DOT: tensor.pad {{.*}} high[0, 2]
// DOT: tensor.extract_slice {{.*}} : tensor<5x48xi32> to tensor<5x40xi32>
// DOT: arith.constant dense<-3840> : tensor<40xi32>
// DOT: arith.subi
// PAIRS-NOT: arith.xori
// PAIRS: arith.extsi {{.*}} : i8 to i16
// PAIRS: arith.constant dense<-1> : tensor<5x15x8x2xi16>
// PAIRS: tensor.collapse_shape {{.*}} : tensor<5x5x8xi32> into tensor<5x40xi32>
// PAIRS-NOT: arith.subi
// WIDEN: arith.extsi {{.*}} : i8 to i32
// WIDEN: arith.extsi {{.*}} : i8 to i32
func.func @signed_activations(%a: tensor<5x30xi8>) -> tensor<5x40xi32> {
  %w = arith.constant dense<-1> : tensor<30x40xi8>
  %0 = dlc_graph.matmul_integer %a, %w : tensor<5x30xi8>, tensor<30x40xi8> -> tensor<5x40xi32>
  return %0 : tensor<5x40xi32>
}

// -----

// Unsigned weights of 128 and more have no s8 form: the widening generic.
// CHECK-LABEL: func @unsigned_weights
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.extui {{.*}} : i8 to i32
// CHECK: arith.extui {{.*}} : i8 to i32
func.func @unsigned_weights(%a: tensor<4x64xi8>) -> tensor<4x32xi32> {
  %w = arith.constant dense<-56> : tensor<64x32xi8>
  %0 = dlc_graph.matmul_integer %a, %w {lhs_unsigned, rhs_unsigned} : tensor<4x64xi8>, tensor<64x32xi8> -> tensor<4x32xi32>
  return %0 : tensor<4x32xi32>
}
