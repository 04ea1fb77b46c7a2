// RUN: dlc-opt %s -split-input-file -convert-graph-to-linalg -verify-diagnostics | FileCheck %s
// Ops whose result sizes the model computes (NonZero): a loop counts, a tensor of that
// size is filled by a second loop, and the count's symbol is recorded on the result.

// CHECK-LABEL: func.func @nonzero
// CHECK-SAME: -> (tensor<2x?xi64> {dlc.dims = ["", "x.count"]})
// CHECK: %[[F:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1]] : tensor<3x4xf32> into tensor<12xf32>
// CHECK: %[[N:.*]] = scf.for %{{.*}} = %c0 to %c12 step %c1 iter_args(%{{.*}} = %c0) -> (index)
// CHECK: arith.cmpf une
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<2x?xi64>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[E]], %{{.*}} = %c0) -> (tensor<2x?xi64>, index)
// CHECK: scf.if
// CHECK: %[[C:.*]] = arith.remui %{{.*}}, %c4
// CHECK: %[[R:.*]] = arith.divui %{{.*}}, %c4
// CHECK: %[[C64:.*]] = arith.index_cast %[[C]] : index to i64
// CHECK: tensor.insert %[[C64]] into %{{.*}}[%{{.*}}, %[[J:.*]]]
// CHECK: %[[R64:.*]] = arith.index_cast %[[R]] : index to i64
// CHECK: tensor.insert %[[R64]] into %{{.*}}[%{{.*}}, %[[J]]]
func.func @nonzero(%x: tensor<3x4xf32>) -> tensor<2x?xi64>
    attributes {dlc.dim_ranges = {x.count = array<i64: 0, 12>}, dlc.computed_dims = ["x.count"]} {
  %0 = dlc_graph.nonzero %x {count = "x.count"} : tensor<3x4xf32> -> tensor<2x?xi64>
  return %0 : tensor<2x?xi64>
}

// -----

// Its result flows on like any dynamic dim: a transpose keeps the symbol.
// CHECK-LABEL: func.func @nonzero_then
// CHECK-SAME: -> (tensor<?x1xi64> {dlc.dims = ["x.count", ""]})
func.func @nonzero_then(%x: tensor<5xi32>) -> tensor<?x1xi64>
    attributes {dlc.dim_ranges = {x.count = array<i64: 0, 5>}, dlc.computed_dims = ["x.count"]} {
  %0 = dlc_graph.nonzero %x {count = "x.count"} : tensor<5xi32> -> tensor<1x?xi64>
  %1 = dlc_graph.transpose %0 {perm = array<i64: 1, 0>} : tensor<1x?xi64> -> tensor<?x1xi64>
  return %1 : tensor<?x1xi64>
}
