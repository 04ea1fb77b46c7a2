// RUN: not dlc-opt %s 2>&1 | FileCheck %s
// MLIR 22's linalg parsers segfault on a malformed `permutation = [...]` (a null
// attribute); dlc-opt rejects it first with one line naming the place.
// CHECK: error: {{.*}}malformed-linalg-list.mlir:11:82: expected 'permutation = [' integers separated by ',' then ']'
// CHECK-NOT: Stack dump

// Mentioning permutation = [1,0r] in a comment is fine, and so is a string (below).
func.func @f(%x: tensor<32x64xf32>) -> tensor<64x32xf32>
    attributes {dlc.note = "dimensions = [x]"} {
  %e = tensor.empty() : tensor<64x32xf32>
  %t = linalg.transpose ins(%x : tensor<32x64xf32>) outs(%e : tensor<64x32xf32>) permutation = [1,0r   ]
  return %t : tensor<64x32xf32>
}
