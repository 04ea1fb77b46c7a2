// RUN: dlc-opt %s -split-input-file -dlc-privatize-parallel-buffers | FileCheck %s
// An empty tensor made outside a dlc.parallel loop and written inside it (a peeled
// tile's partial sums, merged by CSE with another op's empty) gets a copy at each use
// inside the loop, so bufferization gives each iteration (each thread) its own buffer.

// CHECK-LABEL: func @scratch
// CHECK: %[[OUTER:.*]] = tensor.empty() : tensor<16xf32>
// CHECK: vector.transfer_write %{{.*}}, %[[OUTER]]
// CHECK: scf.for
// CHECK: %[[INNER:.*]] = tensor.empty() : tensor<16xf32>
// CHECK: vector.transfer_write %{{.*}}, %[[INNER]]
// CHECK: } {dlc.parallel}
func.func @scratch(%v: vector<16xf32>, %out: tensor<64x16xf32>) -> (tensor<16xf32>, tensor<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %top = vector.transfer_write %v, %e[%c0] {in_bounds = [true]} : vector<16xf32>, tensor<16xf32>
  %r = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %out) -> (tensor<64x16xf32>) {
    %w = vector.transfer_write %v, %e[%c0] {in_bounds = [true]} : vector<16xf32>, tensor<16xf32>
    %x = vector.transfer_read %w[%c0], %pad {in_bounds = [true]} : tensor<16xf32>, vector<16xf32>
    %y = vector.transfer_write %x, %acc[%i, %c0] {in_bounds = [true]} : vector<16xf32>, tensor<64x16xf32>
    scf.yield %y : tensor<64x16xf32>
  } {dlc.parallel}
  return %top, %r : tensor<16xf32>, tensor<64x16xf32>
}

// -----

// A loop that is not parallel keeps the shared empty tensor.
// CHECK-LABEL: func @serial
// CHECK-COUNT-1: tensor.empty
// CHECK-NOT: tensor.empty
func.func @serial(%v: vector<16xf32>, %out: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %r = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %out) -> (tensor<64x16xf32>) {
    %w = vector.transfer_write %v, %e[%c0] {in_bounds = [true]} : vector<16xf32>, tensor<16xf32>
    %x = vector.transfer_read %w[%c0], %pad {in_bounds = [true]} : tensor<16xf32>, vector<16xf32>
    %y = vector.transfer_write %x, %acc[%i, %c0] {in_bounds = [true]} : vector<16xf32>, tensor<64x16xf32>
    scf.yield %y : tensor<64x16xf32>
  }
  return %r : tensor<64x16xf32>
}
