// RUN: dlc-opt %s -split-input-file -dlc-strided-copy-to-linalg | FileCheck %s
// Strided copies become loops (no runtime library call): vector moves along a
// contiguous innermost dim, linalg.copy otherwise; contiguous copies stay memcpy.

// A dim of size 1 takes no loop (a Split into 10,000 rows left 10,000 loops in one block).
// CHECK-LABEL: func @into_padded_interior
// CHECK-NOT: scf.for {{.*}} to %c1 step
// CHECK: scf.for {{.*}} to %c4 step %c1
// CHECK: scf.for {{.*}} to %c4 step %c1
// CHECK: scf.for {{.*}} to %c64 step %c16
// CHECK: %[[V:.*]] = vector.load %arg0[{{.*}}] : memref<1x4x4x64xf32>, vector<16xf32>
// CHECK: vector.store %[[V]], %{{.*}}[{{.*}}] : memref<1x4x4x64xf32, strided<[2304, 384, 64, 1], offset: 448>>, vector<16xf32>
// CHECK-NOT: memref.copy
func.func @into_padded_interior(%x: memref<1x4x4x64xf32>, %p: memref<1x6x6x64xf32>) {
  %s = memref.subview %p[0, 1, 1, 0] [1, 4, 4, 64] [1, 1, 1, 1] : memref<1x6x6x64xf32> to memref<1x4x4x64xf32, strided<[2304, 384, 64, 1], offset: 448>>
  memref.copy %x, %s : memref<1x4x4x64xf32> to memref<1x4x4x64xf32, strided<[2304, 384, 64, 1], offset: 448>>
  return
}

// -----

// An innermost dim of 6 moves as 4 + 2; a strided innermost dim is a linalg.copy.
// CHECK-LABEL: func @narrow_and_strided
// CHECK: scf.for {{.*}} to %c3 step %c1
// CHECK-NOT: scf.for
// CHECK: vector.load {{.*}} vector<4xf32>
// CHECK: vector.load {{.*}} vector<2xf32>
// CHECK: linalg.copy
func.func @narrow_and_strided(%x: memref<3x6xf32>, %p: memref<5x8xf32>, %q: memref<3x12xf32>) {
  %s = memref.subview %p[1, 1] [3, 6] [1, 1] : memref<5x8xf32> to memref<3x6xf32, strided<[8, 1], offset: 9>>
  memref.copy %x, %s : memref<3x6xf32> to memref<3x6xf32, strided<[8, 1], offset: 9>>
  %t = memref.subview %q[0, 0] [3, 6] [1, 2] : memref<3x12xf32> to memref<3x6xf32, strided<[12, 2]>>
  memref.copy %x, %t : memref<3x6xf32> to memref<3x6xf32, strided<[12, 2]>>
  return
}

// -----

// A row of 113: 7 vectors of 16, then one element.
// CHECK-LABEL: func @odd_row
// CHECK: scf.for {{.*}} to %c112 step %c16
// CHECK: vector.load {{.*}} vector<16xf32>
// CHECK: }
// CHECK: vector.load %arg0[%{{.*}}, %c112] : memref<2x113xf32>, vector<1xf32>
func.func @odd_row(%x: memref<2x113xf32>, %p: memref<4x115xf32>) {
  %s = memref.subview %p[1, 1] [2, 113] [1, 1] : memref<4x115xf32> to memref<2x113xf32, strided<[115, 1], offset: 116>>
  memref.copy %x, %s : memref<2x113xf32> to memref<2x113xf32, strided<[115, 1], offset: 116>>
  return
}

// -----

// Booleans are a byte each in memory but bit packed in vector<Nxi1>: an i1 copy
// stays scalar (a vector<16xi1> load read 2 bytes: Selu -> ReduceL2 over 33 values
// was wrong, difftest case_33adfc58f6).
// CHECK-LABEL: func @bool_row
// CHECK-NOT: vector.load
// CHECK: linalg.copy
func.func @bool_row(%x: memref<1x32xi1>, %p: memref<1x33xi1>) {
  %s = memref.subview %p[0, 0] [1, 32] [1, 1] : memref<1x33xi1> to memref<1x32xi1, strided<[33, 1]>>
  memref.copy %x, %s : memref<1x32xi1> to memref<1x32xi1, strided<[33, 1]>>
  return
}
