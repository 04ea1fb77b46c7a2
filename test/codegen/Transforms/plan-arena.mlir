// RUN: dlc-opt %s -split-input-file -dlc-plan-arena | FileCheck %s

// Intermediates become views of one arena: %a dies at its last use (through a
// subview), so %c reuses its bytes; %b lives across both and gets its own range.
// Frees are gone but the arena's, at the end.
// CHECK-LABEL: func @reuse
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8192xi8>
// CHECK: memref.view %[[ARENA]][%c0{{.*}}][] : memref<8192xi8> to memref<1024xf32>
// CHECK: memref.view %[[ARENA]][%c4096{{.*}}][] : memref<8192xi8> to memref<1024xf32>
// CHECK: memref.view %[[ARENA]][%c0{{.*}}][] : memref<8192xi8> to memref<32x32xf32>
// CHECK-NOT: memref.dealloc %{{.*}} : memref<1024xf32>
// CHECK: memref.dealloc %[[ARENA]]
// CHECK-NEXT: return
func.func @reuse(%in: memref<1024xf32>, %out: memref<1024xf32>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  %b = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  memref.copy %in, %a : memref<1024xf32> to memref<1024xf32>
  %sa = memref.subview %a[0] [512] [1] : memref<1024xf32> to memref<512xf32, strided<[1]>>
  %sb = memref.subview %b[0] [512] [1] : memref<1024xf32> to memref<512xf32, strided<[1]>>
  memref.copy %sa, %sb : memref<512xf32, strided<[1]>> to memref<512xf32, strided<[1]>>
  %c = memref.alloc() {alignment = 64 : i64} : memref<32x32xf32>
  %cf = memref.collapse_shape %c [[0, 1]] : memref<32x32xf32> into memref<1024xf32>
  memref.copy %b, %cf : memref<1024xf32> to memref<1024xf32>
  memref.copy %cf, %out : memref<1024xf32> to memref<1024xf32>
  memref.dealloc %a : memref<1024xf32>
  memref.dealloc %b : memref<1024xf32>
  memref.dealloc %c : memref<32x32xf32>
  return
}

// -----

// A use inside a loop keeps the buffer live through the whole loop; a buffer passed
// to a call or allocated inside a loop stays a plain allocation.
// CHECK-LABEL: func @loops_and_calls
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8192xi8>
// CHECK: memref.view %[[ARENA]][%c0{{.*}}][] : memref<8192xi8> to memref<1024xf32>
// CHECK: memref.view %[[ARENA]][%c4096{{.*}}][] : memref<8192xi8> to memref<1024xf32>
// CHECK: %[[KEPT:.*]] = memref.alloc() : memref<16xf32>
// CHECK: scf.for
// CHECK: memref.alloc() : memref<4xf32>
// CHECK: call @sink(%[[KEPT]])
// CHECK: memref.dealloc %[[KEPT]]
func.func private @sink(memref<16xf32>)
func.func @loops_and_calls(%in: memref<1024xf32>, %out: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<1024xf32>
  %b = memref.alloc() : memref<1024xf32>
  %k = memref.alloc() : memref<16xf32>
  memref.copy %in, %a : memref<1024xf32> to memref<1024xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %t = memref.alloc() : memref<4xf32>
    memref.copy %a, %b : memref<1024xf32> to memref<1024xf32>
    memref.dealloc %t : memref<4xf32>
  }
  memref.copy %b, %out : memref<1024xf32> to memref<1024xf32>
  call @sink(%k) : (memref<16xf32>) -> ()
  memref.dealloc %a : memref<1024xf32>
  memref.dealloc %b : memref<1024xf32>
  memref.dealloc %k : memref<16xf32>
  return
}
