// RUN: dlc-opt %s -convert-graph-to-linalg -dlc-cpu-select-kernels=cpu=x86-64-v3 -dlc-cpu-tile-vectorize=cpu=x86-64-v3 | FileCheck %s
// A product over dynamic batch and seq (dlc compile --dims): tiles of 6 rows of seq (AVX2),
// the batch loop the one threads split. Peeling cuts the seq tile loop into its whole
// tiles and a last partial tile; the batch loop splits in two, the first merged with the
// whole tiles so that threads split (batch, tile) pairs (21 pieces at batch 1, seq 128),
// the second running each batch's partial tile.

// CHECK-LABEL: func.func @rows
// CHECK: tensor.empty
// CHECK-NEXT: %[[B:.*]] = tensor.dim %arg0, %c0
// CHECK-NEXT: %[[S:.*]] = tensor.dim %arg0, %c1
// CHECK-NEXT: %[[SPLIT:.*]] = affine.apply #{{.*}}()[%[[S]]]
// CHECK-NEXT: %[[TILES:.*]] = affine.apply #{{.*}}()[%[[S]]]
// CHECK-NEXT: %[[N:.*]] = affine.apply #{{.*}}()[%[[B]], %[[S]]]
// CHECK-NEXT: %[[WHOLE:.*]] = scf.for %[[I:.*]] = %c0 to %[[N]] step %c1
// CHECK-NEXT: affine.delinearize_index %[[I]] into (%[[B]], %[[TILES]])
// CHECK: tensor<1x6x1x16xf32>
// CHECK: } {dlc.parallel}
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %[[B]] step %c1 iter_args(%{{.*}} = %[[WHOLE]])
// CHECK-NEXT: scf.for %{{.*}} = %[[SPLIT]] to %[[S]] step %c6
// CHECK: } {dlc.parallel}
func.func @rows(%x: tensor<?x?x64xf32> {dlc.dims = ["batch", "seq", ""]}) -> tensor<?x?x64xf32> {
  %w = arith.constant dense<0.5> : tensor<64x64xf32>
  %0 = dlc_graph.matmul %x, %w : tensor<?x?x64xf32>, tensor<64x64xf32> -> tensor<?x?x64xf32>
  return %0 : tensor<?x?x64xf32>
}
