// RUN: not dlc-opt %s 2>&1 | FileCheck %s
// MLIR 22's dense-array parser segfaults on an `index` element type (a fuzz-dlc-opt find);
// dlc-opt rejects it first with one line naming the place.
// CHECK: error: {{.*}}dense-array-index.mlir:6:40: a dense array of 'index' (MLIR 22's parser crashes on it; use i64)
// CHECK-NOT: Stack dump
func.func @f() attributes {dlc.sizes = array<index: 1, 2>} {
  return
}
