// RUN: dlc-opt %s -dlc-x86-lower-intrinsics | FileCheck %s
// RUN: dlc-opt %s -dlc-x86-lower-intrinsics=cpu=x86-64-v3 | FileCheck %s --check-prefix=NOBF16
// RUN: dlc-opt %s -dlc-x86-lower-intrinsics=cpu=znver4 | FileCheck %s --check-prefix=BF16
// dlc_x86.dot_u8s8 becomes the VNNI intrinsic (the unsigned operand second), and the
// [16, 4] weight tile it reads one 64-byte load; dlc_x86.dot_i16 becomes AVX2's vpmaddwd
// plus the accumulator, its [8, 2] tile one 32-byte load.

// CHECK-LABEL: func @dot
// CHECK: memref.collapse_shape
// CHECK: vector.transfer_read {{.*}} vector<64xi8>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%arg0, %arg1, %{{.*}}) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
func.func @dot(%acc: vector<16xi32>, %a: vector<64xi8>, %w: memref<4x16x4xi8>, %i: index) -> vector<16xi32> {
  %c0 = arith.constant 0 : index
  %p = arith.constant 0 : i8
  %b = vector.transfer_read %w[%i, %c0, %c0], %p {in_bounds = [true, true]} : memref<4x16x4xi8>, vector<16x4xi8>
  %r = dlc_x86.dot_u8s8 %acc, %a, %b : vector<64xi8>, vector<16x4xi8> -> vector<16xi32>
  return %r : vector<16xi32>
}

// CHECK-LABEL: func @pairs
// CHECK: memref.collapse_shape
// CHECK: %[[W:.*]] = vector.transfer_read {{.*}} vector<16xi16>
// CHECK: %[[P:.*]] = llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"(%arg1, %[[W]]) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// CHECK: arith.addi %arg0, %[[P]] : vector<8xi32>
func.func @pairs(%acc: vector<8xi32>, %a: vector<16xi16>, %w: memref<4x8x2xi16>, %i: index) -> vector<8xi32> {
  %c0 = arith.constant 0 : index
  %p = arith.constant 0 : i16
  %b = vector.transfer_read %w[%i, %c0, %c0], %p {in_bounds = [true, true]} : memref<4x8x2xi16>, vector<8x2xi16>
  %r = dlc_x86.dot_i16 %acc, %a, %b : vector<16xi16>, vector<8x2xi16> -> vector<8xi32>
  return %r : vector<8xi32>
}

// dlc_x86.dot_bf16 becomes AVX512-BF16's vdpbf16ps, its [16, 2] weight tile one 64-byte load.
// CHECK-LABEL: func @bf16_pairs
// CHECK: memref.collapse_shape
// CHECK: %[[W:.*]] = vector.transfer_read {{.*}} vector<32xbf16>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"(%arg0, %arg1, %[[W]]) : (vector<16xf32>, vector<32xbf16>, vector<32xbf16>) -> vector<16xf32>
func.func @bf16_pairs(%acc: vector<16xf32>, %a: vector<32xbf16>, %w: memref<4x16x2xbf16>, %i: index) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : bf16
  %b = vector.transfer_read %w[%i, %c0, %c0], %p {in_bounds = [true, true]} : memref<4x16x2xbf16>, vector<16x2xbf16>
  %r = dlc_x86.dot_bf16 %acc, %a, %b : vector<32xbf16>, vector<16x2xbf16> -> vector<16xf32>
  return %r : vector<16xf32>
}

// Without AVX512-BF16 (x86-64-v3) f32 -> bf16 is integer arithmetic (round to nearest even),
// not LLVM's __truncsfbf2 call; with it (znver4) the conversion stays for vcvtneps2bf16.
// NOBF16-LABEL: func @to_bf16
// NOBF16-NOT: arith.truncf
// NOBF16: arith.shrui
// NOBF16: arith.bitcast {{.*}} : vector<8xi16> to vector<8xbf16>
// BF16-LABEL: func @to_bf16
// BF16: arith.truncf {{.*}} : vector<8xf32> to vector<8xbf16>
func.func @to_bf16(%x: vector<8xf32>) -> vector<8xbf16> {
  %r = arith.truncf %x : vector<8xf32> to vector<8xbf16>
  return %r : vector<8xbf16>
}
