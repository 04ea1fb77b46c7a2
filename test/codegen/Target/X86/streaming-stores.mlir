// RUN: dlc-opt %s -split-input-file -dlc-streaming-stores | FileCheck %s
// Whole-line vector writes into a large output (>= 4 MiB) become non-temporal stores
// when the address is 64-byte aligned at run time; an sfence ends each iteration of
// the top-level loop that holds them.

// CHECK-LABEL: func @large_output
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %arg1
// CHECK: %[[LOW:.*]] = arith.andi %{{.*}}, %c63
// CHECK: %[[OK:.*]] = arith.cmpi eq, %[[LOW]], %c0
// CHECK: scf.if %[[OK]] {
// CHECK: %[[FLAT:.*]] = vector.shape_cast %{{.*}} : vector<1x16xf32> to vector<16xf32>
// CHECK: vector.store %[[FLAT]], %arg1[%{{.*}}, %{{.*}}] {alignment = 64 : i64, nontemporal = true}
// CHECK: } else {
// CHECK: vector.transfer_write
// CHECK: }
// CHECK: }
// CHECK: llvm.call_intrinsic "llvm.x86.sse.sfence"()
// CHECK: }
func.func @large_output(%in: memref<2048x1024xf32>, %out: memref<2048x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %c2048 = arith.constant 2048 : index
  %pad = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c2048 step %c1 {
    scf.for %j = %c0 to %c1024 step %c16 {
      %v = vector.transfer_read %in[%i, %j], %pad {in_bounds = [true, true]} : memref<2048x1024xf32>, vector<1x16xf32>
      vector.transfer_write %v, %out[%i, %j] {in_bounds = [true, true]} : vector<1x16xf32>, memref<2048x1024xf32>
    }
  }
  return
}

// -----

// Small outputs stay cached (the caller is about to read them); partial lines
// (8 floats) and writes into intermediates are never streamed.
// CHECK-LABEL: func @not_streamed
// CHECK-NOT: nontemporal
// CHECK-NOT: sfence
// CHECK: return
func.func @not_streamed(%in: memref<64x1024xf32>, %small: memref<64x1024xf32>, %big: memref<2048x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %pad = arith.constant 0.0 : f32
  %tmp = memref.alloc() : memref<2048x1024xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c1024 step %c16 {
      %v = vector.transfer_read %in[%i, %j], %pad {in_bounds = [true, true]} : memref<64x1024xf32>, vector<1x16xf32>
      vector.transfer_write %v, %small[%i, %j] {in_bounds = [true, true]} : vector<1x16xf32>, memref<64x1024xf32>
      vector.transfer_write %v, %tmp[%i, %j] {in_bounds = [true, true]} : vector<1x16xf32>, memref<2048x1024xf32>
      %h = vector.transfer_read %in[%i, %j], %pad {in_bounds = [true]} : memref<64x1024xf32>, vector<8xf32>
      vector.transfer_write %h, %big[%i, %j] {in_bounds = [true]} : vector<8xf32>, memref<2048x1024xf32>
    }
  }
  memref.dealloc %tmp : memref<2048x1024xf32>
  return
}
