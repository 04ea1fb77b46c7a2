// RUN: dlc-opt %s -dlc-fuse-elementwise=strict=true | FileCheck %s
// Elementwise producers fuse into elementwise consumers and plain reductions, never into a
// contraction.

// CHECK-LABEL: func @no_fusion_into_contraction
// CHECK: %[[SCALED:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: arith.mulf
// CHECK: linalg.matmul ins(%[[SCALED]], %arg1
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK-NOT: linalg.generic
func.func @no_fusion_into_contraction(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %c2 = arith.constant 2.0 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %c2 : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %mm = linalg.matmul ins(%s, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %add = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<4x16xf32>, tensor<16xf32>) outs(%e2 : tensor<4x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  %relu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%add : tensor<4x16xf32>) outs(%e2 : tensor<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  return %relu : tensor<4x16xf32>
}

// LayerNorm's centering d = x - mean[row] (cheap, with a broadcast input) is recomputed in
// both its users instead of being written out: d*d fuses into the variance reduction (a
// plain one-input reduction), d into the normalization.
// CHECK-LABEL: func @centering_recomputed
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
func.func @centering_recomputed(%x: tensor<4x8xf32>, %mean: tensor<4xf32>, %rstd: tensor<4xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x, %mean : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %r = arith.subf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %sq = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%d : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %var = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%sq : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%d, %rstd : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %r = arith.mulf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %var, %y : tensor<4xf32>, tensor<4x8xf32>
}

// A per-row producer (1/sqrt(var + eps)) read broadcast along the row is not fused:
// it would be recomputed for every element of the row.
// CHECK-LABEL: func @broadcast_producer_stays
// CHECK: %[[RSTD:.*]] = linalg.generic {{.*}}iterator_types = ["parallel"]
// CHECK: math.sqrt
// CHECK: linalg.generic {{.*}}ins(%arg0, %[[RSTD]] :
// CHECK-NOT: math.sqrt
// CHECK: return
func.func @broadcast_producer_stays(%x: tensor<4x8xf32>, %var: tensor<4xf32>) -> tensor<4x8xf32> {
  %one = arith.constant 1.0 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %rstd = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%var : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = math.sqrt %v : f32
    %r = arith.divf %one, %s : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x, %rstd : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %r = arith.mulf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// An elementwise consumer (and a pad) of a collapsed contraction result is
// expanded to the contraction's blocked shape, the collapse moving after it.
// CHECK-LABEL: func @expand_through_collapse
// CHECK: %[[C:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<4x2x8xf32>)
// CHECK: arith.maximumf
// CHECK: %[[P:.*]] = tensor.pad %[[R]] low[1, 0, 0] high[1, 0, 0]
// CHECK: tensor.collapse_shape %[[P]] {{\[}}[0], [1, 2]] : tensor<6x2x8xf32> into tensor<6x16xf32>
func.func @expand_through_collapse(%x: tensor<4x3xf32>, %w: tensor<3x2x8xf32>) -> tensor<6x16xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x2x8xf32>
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<4x3xf32>, tensor<3x2x8xf32>) outs(%f : tensor<4x2x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x2x8xf32>
  %cl = tensor.collapse_shape %m [[0], [1, 2]] : tensor<4x2x8xf32> into tensor<4x16xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%cl : tensor<4x16xf32>) outs(%e2 : tensor<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.maximumf %a, %c : f32
    linalg.yield %z : f32
  } -> tensor<4x16xf32>
  %p = tensor.pad %r low[1, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %c : f32
  } : tensor<4x16xf32> to tensor<6x16xf32>
  return %p : tensor<6x16xf32>
}

// A reduction reading a 0-d value viewed as [1, 1] through its loop dims (ReduceSum of a
// kept-dims full ReduceMax, found by difftest): the view is not folded into the read, which
// would leave no operand indexed by the loops (a non-invertible generic).
// CHECK-LABEL: func @unit_view_of_scalar
// CHECK: %[[V:.*]] = tensor.expand_shape
// CHECK: linalg.generic {{.*}} ins(%[[V]] : tensor<1x1xf32>)
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#all2 = affine_map<(d0, d1) -> ()>
func.func @unit_view_of_scalar(%s: tensor<f32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %v = tensor.expand_shape %s [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [#id2, #all2], iterator_types = ["reduction", "reduction"]}
      ins(%v : tensor<1x1xf32>) outs(%f : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %a = arith.addf %x, %acc : f32
    linalg.yield %a : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// A LayerNorm over a matmul's [1, S, 1, N] view: the normalizing consumer is collapsed to
// the matmul's shape, and its statistics (epilogues of reductions, not of a contraction)
// must not expand it back (the two patterns alternated until the greedy driver gave up,
// failing the pass without a diagnostic).
// CHECK-LABEL: func @layernorm_of_matmul_view
// CHECK: linalg.matmul
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]{{.*}} outs({{.*}} : tensor<9x1x2xf32>)
// CHECK: tensor.expand_shape {{.*}} into tensor<1x9x1x2xf32>
// CHECK-NEXT: return
#ln = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ln1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#ln2 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#ln3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#ln4 = affine_map<(d0, d1, d2, d3) -> ()>
#ln5 = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @layernorm_of_matmul_view(%arg0: tensor<1x9x1x31xf32>, %w: tensor<31x2xf32>) -> tensor<1x9x1x2xf32> {
  %cst = arith.constant 1.000000e+00 : f32
  %cst_0 = arith.constant 2.000000e+00 : f32
  %cst_1 = arith.constant dense<9.99999974E-6> : tensor<f32>
  %cst_3 = arith.constant dense<[8.024410e-02, 0.132158041]> : tensor<2xf32>
  %cst_4 = arith.constant dense<[0.134868979, 0.877391934]> : tensor<2xf32>
  %cst_5 = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<9x2xf32>
  %1 = linalg.fill ins(%cst_5 : f32) outs(%0 : tensor<9x2xf32>) -> tensor<9x2xf32>
  %collapsed = tensor.collapse_shape %arg0 [[0, 1], [2, 3]] : tensor<1x9x1x31xf32> into tensor<9x31xf32>
  %2 = linalg.matmul ins(%collapsed, %w : tensor<9x31xf32>, tensor<31x2xf32>) outs(%1 : tensor<9x2xf32>) -> tensor<9x2xf32>
  %expanded = tensor.expand_shape %2 [[0, 1], [2, 3]] output_shape [1, 9, 1, 2] : tensor<9x2xf32> into tensor<1x9x1x2xf32>
  %3 = tensor.empty() : tensor<1x9x1xf32>
  %4 = linalg.fill ins(%cst_5 : f32) outs(%3 : tensor<1x9x1xf32>) -> tensor<1x9x1xf32>
  %5 = linalg.generic {indexing_maps = [#ln, #ln1], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%expanded : tensor<1x9x1x2xf32>) outs(%4 : tensor<1x9x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %19 = arith.addf %in, %out : f32
    linalg.yield %19 : f32
  } -> tensor<1x9x1xf32>
  %6 = linalg.generic {indexing_maps = [#ln2, #ln2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5 : tensor<1x9x1xf32>) outs(%3 : tensor<1x9x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %19 = arith.divf %in, %cst_0 : f32
    linalg.yield %19 : f32
  } -> tensor<1x9x1xf32>
  %expanded_6 = tensor.expand_shape %6 [[0], [1], [2, 3]] output_shape [1, 9, 1, 1] : tensor<1x9x1xf32> into tensor<1x9x1x1xf32>
  %7 = tensor.empty() : tensor<1x9x1x2xf32>
  %8 = linalg.generic {indexing_maps = [#ln, #ln3, #ln], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded, %expanded_6 : tensor<1x9x1x2xf32>, tensor<1x9x1x1xf32>) outs(%7 : tensor<1x9x1x2xf32>) {
  ^bb0(%in: f32, %in_8: f32, %out: f32):
    %19 = arith.subf %in, %in_8 : f32
    linalg.yield %19 : f32
  } -> tensor<1x9x1x2xf32>
  %9 = linalg.generic {indexing_maps = [#ln, #ln, #ln], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8, %8 : tensor<1x9x1x2xf32>, tensor<1x9x1x2xf32>) outs(%7 : tensor<1x9x1x2xf32>) {
  ^bb0(%in: f32, %in_8: f32, %out: f32):
    %19 = arith.mulf %in, %in_8 : f32
    linalg.yield %19 : f32
  } -> tensor<1x9x1x2xf32>
  %10 = linalg.generic {indexing_maps = [#ln, #ln1], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%9 : tensor<1x9x1x2xf32>) outs(%4 : tensor<1x9x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %19 = arith.addf %in, %out : f32
    linalg.yield %19 : f32
  } -> tensor<1x9x1xf32>
  %11 = linalg.generic {indexing_maps = [#ln2, #ln2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%10 : tensor<1x9x1xf32>) outs(%3 : tensor<1x9x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %19 = arith.divf %in, %cst_0 : f32
    linalg.yield %19 : f32
  } -> tensor<1x9x1xf32>
  %expanded_7 = tensor.expand_shape %11 [[0], [1], [2, 3]] output_shape [1, 9, 1, 1] : tensor<1x9x1xf32> into tensor<1x9x1x1xf32>
  %12 = tensor.empty() : tensor<1x9x1x1xf32>
  %13 = linalg.generic {indexing_maps = [#ln, #ln4, #ln], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_7, %cst_1 : tensor<1x9x1x1xf32>, tensor<f32>) outs(%12 : tensor<1x9x1x1xf32>) {
  ^bb0(%in: f32, %in_8: f32, %out: f32):
    %19 = arith.addf %in, %in_8 : f32
    linalg.yield %19 : f32
  } -> tensor<1x9x1x1xf32>
  %14 = linalg.generic {indexing_maps = [#ln, #ln], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13 : tensor<1x9x1x1xf32>) outs(%12 : tensor<1x9x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %19 = math.sqrt %in : f32
    linalg.yield %19 : f32
  } -> tensor<1x9x1x1xf32>
  %15 = linalg.generic {indexing_maps = [#ln, #ln], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%14 : tensor<1x9x1x1xf32>) outs(%12 : tensor<1x9x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %19 = arith.divf %cst, %in : f32
    linalg.yield %19 : f32
  } -> tensor<1x9x1x1xf32>
  %16 = linalg.generic {indexing_maps = [#ln, #ln3, #ln], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8, %15 : tensor<1x9x1x2xf32>, tensor<1x9x1x1xf32>) outs(%7 : tensor<1x9x1x2xf32>) {
  ^bb0(%in: f32, %in_8: f32, %out: f32):
    %19 = arith.mulf %in, %in_8 : f32
    linalg.yield %19 : f32
  } -> tensor<1x9x1x2xf32>
  %17 = linalg.generic {indexing_maps = [#ln, #ln5, #ln], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%16, %cst_3 : tensor<1x9x1x2xf32>, tensor<2xf32>) outs(%7 : tensor<1x9x1x2xf32>) {
  ^bb0(%in: f32, %in_8: f32, %out: f32):
    %19 = arith.mulf %in, %in_8 : f32
    linalg.yield %19 : f32
  } -> tensor<1x9x1x2xf32>
  %18 = linalg.generic {indexing_maps = [#ln, #ln5, #ln], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%17, %cst_4 : tensor<1x9x1x2xf32>, tensor<2xf32>) outs(%7 : tensor<1x9x1x2xf32>) {
  ^bb0(%in: f32, %in_8: f32, %out: f32):
    %19 = arith.addf %in, %in_8 : f32
    linalg.yield %19 : f32
  } -> tensor<1x9x1x2xf32>
  return %18 : tensor<1x9x1x2xf32>
}

// A ReduceSum added to a generic matmul (its broadcast batch map is no contraction to
// linalg, so both producers are plain reductions) in another shape: only a consumer
// reading no other kernel follows a reduction's shape, so the add is left alone (the
// expand and collapse patterns alternated until the rewrite budget ran out; difftest
// case_720e7c6bf5).
// CHECK-LABEL: func @reduce_sum_plus_generic_matmul
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<7x1xf32>)
// CHECK: %[[E:.*]] = tensor.expand_shape %[[SUM]] {{\[\[}}0], [1, 2]] output_shape [7, 1, 1]
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[E]] : tensor<7x1x1xf32>, tensor<7x1x1xf32>)
#rs = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#rs1 = affine_map<(d0, d1, d2, d3) -> (0, d3, d2)>
#rs2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#rs3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#rs4 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @reduce_sum_plus_generic_matmul(%x: tensor<7x1x31xf32>, %w: tensor<1x31x1xf32>) -> tensor<7x1x1xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<7x1x1xf32>
  %1 = linalg.fill ins(%zero : f32) outs(%0 : tensor<7x1x1xf32>) -> tensor<7x1x1xf32>
  %2 = linalg.generic {indexing_maps = [#rs, #rs1, #rs2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<7x1x31xf32>, tensor<1x31x1xf32>) outs(%1 : tensor<7x1x1xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %7 = arith.mulf %in, %in_1 : f32
    %8 = arith.addf %out, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<7x1x1xf32>
  %3 = tensor.empty() : tensor<7x1xf32>
  %4 = linalg.fill ins(%zero : f32) outs(%3 : tensor<7x1xf32>) -> tensor<7x1xf32>
  %5 = linalg.generic {indexing_maps = [#rs3, #rs4], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<7x1x31xf32>) outs(%4 : tensor<7x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %7 = arith.addf %in, %out : f32
    linalg.yield %7 : f32
  } -> tensor<7x1xf32>
  %expanded = tensor.expand_shape %5 [[0], [1, 2]] output_shape [7, 1, 1] : tensor<7x1xf32> into tensor<7x1x1xf32>
  %6 = linalg.generic {indexing_maps = [#rs3, #rs3, #rs3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2, %expanded : tensor<7x1x1xf32>, tensor<7x1x1xf32>) outs(%0 : tensor<7x1x1xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %7 = arith.addf %in, %in_1 : f32
    linalg.yield %7 : f32
  } -> tensor<7x1x1xf32>
  return %6 : tensor<7x1x1xf32>
}
