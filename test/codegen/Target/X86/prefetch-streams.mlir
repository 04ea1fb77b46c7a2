// RUN: dlc-opt %s -split-input-file -dlc-prefetch-streams | FileCheck %s
// Whole-line vector reads of a large input (>= 4 MiB) inside a loop get one prefetch
// per 64-byte line, 8 KiB (8192 bytes) ahead of the read.

// CHECK-LABEL: func @large_input
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK: %[[A:.*]] = arith.addi %[[P]], %{{.*}} : index
// CHECK: %[[L0:.*]] = arith.addi %[[A]], %c8192
// CHECK: %[[I0:.*]] = arith.index_cast %[[L0]] : index to i64
// CHECK: %[[P0:.*]] = llvm.inttoptr %[[I0]]
// CHECK: "llvm.intr.prefetch"(%[[P0]]) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}>
// CHECK: %[[L1:.*]] = arith.addi %[[A]], %c8256
// CHECK: "llvm.intr.prefetch"
// CHECK-NOT: prefetch
// CHECK: vector.transfer_read %arg0
func.func @large_input(%in: memref<2048x1024xf32>, %out: memref<2048x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c1024 = arith.constant 1024 : index
  %c2048 = arith.constant 2048 : index
  %pad = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c2048 step %c1 {
    scf.for %j = %c0 to %c1024 step %c32 {
      %v = vector.transfer_read %in[%i, %j], %pad {in_bounds = [true, true]} : memref<2048x1024xf32>, vector<1x32xf32>
      vector.transfer_write %v, %out[%i, %j] {in_bounds = [true, true]} : vector<1x32xf32>, memref<2048x1024xf32>
    }
  }
  return
}

// -----

// Small inputs, partial lines (8 floats), intermediates and reads outside loops
// are not prefetched.
// CHECK-LABEL: func @not_prefetched
// CHECK-NOT: prefetch
// CHECK: return
func.func @not_prefetched(%small: memref<64x1024xf32>, %big: memref<2048x1024xf32>, %out: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %pad = arith.constant 0.0 : f32
  %tmp = memref.alloc() : memref<2048x1024xf32>
  %once = vector.transfer_read %big[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2048x1024xf32>, vector<1x16xf32>
  vector.transfer_write %once, %out[%c0, %c0] {in_bounds = [true, true]} : vector<1x16xf32>, memref<64x1024xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c1024 step %c16 {
      %v = vector.transfer_read %small[%i, %j], %pad {in_bounds = [true, true]} : memref<64x1024xf32>, vector<1x16xf32>
      %t = vector.transfer_read %tmp[%i, %j], %pad {in_bounds = [true, true]} : memref<2048x1024xf32>, vector<1x16xf32>
      %h = vector.transfer_read %big[%i, %j], %pad {in_bounds = [true]} : memref<2048x1024xf32>, vector<8xf32>
      %s = arith.addf %v, %t : vector<1x16xf32>
      vector.transfer_write %s, %out[%i, %j] {in_bounds = [true, true]} : vector<1x16xf32>, memref<64x1024xf32>
      vector.transfer_write %h, %out[%i, %j] {in_bounds = [true]} : vector<8xf32>, memref<64x1024xf32>
    }
  }
  memref.dealloc %tmp : memref<2048x1024xf32>
  return
}
