// RUN: dlc-opt %s -convert-graph-to-linalg="pack-block=16" -dlc-cpu-select-kernels=cpu=x86-64-v3 -dlc-cpu-tile-vectorize=cpu=x86-64-v3 -canonicalize | FileCheck %s
// RUN: dlc-opt %s -convert-graph-to-linalg="pack-block=16" -dlc-cpu-select-kernels=cpu=x86-64-v3 -dlc-cpu-tile-vectorize="cpu=x86-64-v3 dump-config=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CONFIG
// A weight-only product of int4 codes (two rows, K = 64 in blocks of 32, N = 32): the
// contraction's register tile (the rows x one block of 16 columns), kb, kh and the nibble p
// stepped by one; the tile folds to an elementwise update that unpacks a vector of 16
// bytes (andi / shrui, the nibble chosen by p), converts, scales and applies one FMA per
// row, no vector.contract.

// CONFIG: contraction (weight-only: integer codes dequantized in the kernel), loops [2, 2, 16, 2, 16, 2], tiles [2, 1, 16, 1, 1, 1]

// CHECK-LABEL: func @weight_only
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[Q:.*]] = vector.transfer_read {{.*}} : tensor<2x2x16x16xi8>, vector<16xi8>
// CHECK: arith.andi %[[Q]], {{.*}} : vector<16xi8>
// CHECK: arith.shrui %[[Q]], {{.*}} : vector<16xi8>
// CHECK: arith.select
// CHECK: %[[F:.*]] = arith.uitofp {{.*}} to vector<2x16xf32>
// CHECK: %[[W:.*]] = math.fma %[[F]], {{.*}} : vector<2x16xf32>
// CHECK: math.fma %{{.*}}, %[[W]], {{.*}} : vector<2x16xf32>
// CHECK-NOT: vector.contract
func.func @weight_only(%a: tensor<2x64xf32>) -> tensor<2x32xf32> {
  %q = arith.constant dense<7> : tensor<32x64xi8>
  %s = arith.constant dense<0.5> : tensor<32x2xf32>
  %z = arith.constant dense<8> : tensor<32x2xi8>
  %y = dlc_graph.dequant_matmul %a, %q, %s, %z {block_size = 32 : i64, codes_unsigned} : tensor<2x64xf32>, tensor<32x64xi8>, tensor<32x2xf32>, tensor<32x2xi8> -> tensor<2x32xf32>
  return %y : tensor<2x32xf32>
}
