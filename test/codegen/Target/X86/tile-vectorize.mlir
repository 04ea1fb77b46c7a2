// RUN: dlc-opt %s -split-input-file -dlc-cpu-select-kernels=cpu=x86-64-v4 -dlc-cpu-tile-vectorize -canonicalize | FileCheck %s
// Register-tiled matmul: 8x32 tiles, fill fused, K stepped by one with the
// accumulator carried in registers; elementwise ops vectorized along the last dim,
// two zmm vectors per step (LLVM splits each op into two adjacent instructions, so
// two independent chains interleave).

// CHECK-LABEL: func @matmul
// CHECK: scf.for {{.*}} step %c8
// CHECK: scf.for {{.*}} step %c32
// CHECK: %[[ACC:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<8x32xf32>)
// CHECK: vector.transfer_read {{.*}} vector<1x32xf32>
// CHECK: vector.fma {{.*}} : vector<32xf32>
// CHECK: scf.yield {{.*}} : vector<8x32xf32>
// CHECK: vector.transfer_write %[[ACC]]
func.func @matmul(%a: tensor<64x128xf32>, %b: tensor<128x64xf32>) -> tensor<64x64xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// -----

// CHECK-LABEL: func @elementwise
// CHECK: scf.for
// CHECK: vector.transfer_read {{.*}} vector<1x32xf32>
// CHECK: vector.transfer_read {{.*}} vector<32xf32>
// CHECK: arith.addf {{.*}} : vector<1x32xf32>
func.func @elementwise(%x: tensor<4x64xf32>, %y: tensor<64xf32>) -> tensor<4x64xf32> {
  %e = tensor.empty() : tensor<4x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<4x64xf32>, tensor<64xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}

// -----

// Two M dims (a matmul with a reshape folded in): the inner one gets the register tile.
// CHECK-LABEL: func @contraction_two_m_dims
// CHECK: iter_args(%{{.*}} = %{{.*}}) -> (vector<1x8x32xf32>)
// CHECK: vector.fma {{.*}} : vector<32xf32>
func.func @contraction_two_m_dims(%a: tensor<2x16x64xf32>, %b: tensor<64x32xf32>) -> tensor<2x16x32xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16x32xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<2x16x32xf32>) -> tensor<2x16x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<2x16x64xf32>, tensor<64x32xf32>) outs(%f : tensor<2x16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x16x32xf32>
  return %r : tensor<2x16x32xf32>
}

// -----

// Implicit-GEMM conv (NHWC, packed weights): one block of 32 channels for 8 pixels
// of a row, bias init fused; kh, kw and c loops carry the 8x32 accumulator in
// registers (the kh/kw unit tiles fold into a matmul tile). The filters are small,
// so output rows stay the outermost loop (threads split it).
// CHECK-LABEL: func @implicit_gemm
// CHECK: scf.for {{.*}} = %c0 to %c8
// CHECK: scf.for {{.*}} = %c0 to %c2
// CHECK: vector.broadcast {{.*}} to vector<1x1x8x1x32xf32>
// CHECK: scf.for {{.*}} = %c0 to %c3 {{.*}} -> ({{.*}}vector<8x32xf32>)
// CHECK: scf.for {{.*}} = %c0 to %c3 {{.*}} -> ({{.*}}vector<8x32xf32>)
// CHECK: scf.for {{.*}} = %c0 to %c16 {{.*}} -> ({{.*}}vector<8x32xf32>)
// CHECK-COUNT-8: vector.fma {{.*}} : vector<32xf32>
func.func @implicit_gemm(%x: tensor<1x10x10x16xf32>, %w: tensor<2x3x3x16x32xf32>, %b: tensor<2x32xf32>) -> tensor<1x8x8x2x32xf32> {
  %e = tensor.empty() : tensor<1x8x8x2x32xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<2x32xf32>) outs(%e : tensor<1x8x8x2x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x8x2x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x10x10x16xf32>, tensor<2x3x3x16x32xf32>) outs(%init : tensor<1x8x8x2x32xf32>) {
  ^bb0(%a: f32, %bb: f32, %acc: f32):
    %m = arith.mulf %a, %bb : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x2x32xf32>
  return %r : tensor<1x8x8x2x32xf32>
}

// -----

// Epilogue: the bias add + ReLU consumer of a matmul is tiled like the matmul, the
// matmul fused into its tile accumulating in the output tile, and the epilogue
// applied to the accumulator before the one store of each tile.
// CHECK-LABEL: func @matmul_epilogue
// CHECK: scf.for {{.*}} step %c8
// CHECK: scf.for {{.*}} step %c32
// CHECK: %[[ACC:.*]] = scf.for {{.*}} -> (vector<8x32xf32>)
// CHECK: vector.fma
// CHECK: arith.addf {{.*}} : vector<8x32xf32>
// CHECK: arith.maximumf {{.*}} : vector<8x32xf32>
// CHECK: vector.transfer_write
// CHECK-NOT: scf.for
func.func @matmul_epilogue(%a: tensor<64x128xf32>, %b: tensor<128x64xf32>, %bias: tensor<64xf32>) -> tensor<64x64xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<64x64xf32>, tensor<64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.maximumf %s, %cst : f32
    linalg.yield %z : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

// An epilogue over a contraction that accumulates onto values (here an argument; a
// grouped conv's unfused bias was one) keeps reading them: only an init whose
// contents nobody reads may become the output tile (the bias was dropped).
// CHECK-LABEL: func @matmul_accumulate_epilogue
// CHECK-SAME: %[[C:[a-z0-9]+]]: tensor<64x64xf32>)
// CHECK: scf.for {{.*}} step %c32
// CHECK: %[[INIT:.*]] = vector.transfer_read %[[C]]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]]) -> (vector<8x32xf32>)
// CHECK: arith.maximumf {{.*}} : vector<8x32xf32>
func.func @matmul_accumulate_epilogue(%a: tensor<64x128xf32>, %b: tensor<128x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %z = arith.maximumf %x, %cst : f32
    linalg.yield %z : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

// Row blocks: a normalize step reading a per-row statistic of a reduction is tiled by
// blocks of rows with its producer chain fused in; the row reduction keeps partial
// sums (32 for a row of 1024) in a vector across the row and adds them up once per row.
// CHECK-LABEL: func @row_block_normalize
// CHECK: scf.for {{.*}} = %c0 to %c512 step %c16
// CHECK: scf.for {{.*}} = %c0 to %c1024 step %c32 iter_args({{.*}}) -> (vector<1x32xf32>)
// CHECK: arith.addf {{.*}} : vector<1x32xf32>
// CHECK: arith.divf {{.*}} : vector<1x32xf32>
// CHECK: } {dlc.parallel, dlc.row_block}
// CHECK-NOT: scf.for {{.*}} = %c0 to %c512
func.func @row_block_normalize(%x: tensor<512x1024xf32>) -> tensor<512x1024xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<512xf32>) -> tensor<512xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<512x1024xf32>) outs(%f : tensor<512xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<512xf32>
  %e2 = tensor.empty() : tensor<512x1024xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<512x1024xf32>, tensor<512xf32>) outs(%e2 : tensor<512x1024xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.divf %a, %m : f32
    linalg.yield %d : f32
  } -> tensor<512x1024xf32>
  return %r : tensor<512x1024xf32>
}

// -----

// A chain producer with several users in the block (exp(x): summed, then divided)
// is computed once per block into the block's own small tensor, not into a slice of
// a whole-size intermediate (which would be written back to memory).
// CHECK-LABEL: func @row_block_private_intermediate
// CHECK: scf.for {{.*}} = %c0 to %c512 step %c16
// CHECK: tensor.empty() : tensor<16x1024xf32>
// CHECK: math.exp {{.*}} : vector<1x32xf32>
// CHECK: } {dlc.parallel, dlc.row_block}
func.func @row_block_private_intermediate(%x: tensor<512x1024xf32>) -> tensor<512x1024xf32> {
  %c0 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<512x1024xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<512x1024xf32>) outs(%e2 : tensor<512x1024xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<512x1024xf32>
  %e = tensor.empty() : tensor<512xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<512xf32>) -> tensor<512xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<512x1024xf32>) outs(%f : tensor<512xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<512xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<512x1024xf32>, tensor<512xf32>) outs(%e2 : tensor<512x1024xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.divf %a, %m : f32
    linalg.yield %d : f32
  } -> tensor<512x1024xf32>
  return %r : tensor<512x1024xf32>
}

// -----

// A zero-filled accumulator of an implicit GEMM (1x1 conv) with an epilogue starts as a
// zero vector: the fill is not written to the output tile and read back (the read has
// another vector type than the write, which upstream forwarding does not fold).
// CHECK-LABEL: func @implicit_gemm_zero_init
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8x32xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: vector.transfer_write
// CHECK: scf.for {{.*}} iter_args({{.*}} = %[[ZERO]]) -> (vector<8x32xf32>)
// CHECK-COUNT-8: vector.fma
// CHECK: vector.transfer_write
func.func @implicit_gemm_zero_init(%x: tensor<1x8x8x16xf32>, %w: tensor<2x1x1x16x32xf32>) -> tensor<1x8x8x2x32xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x2x32xf32>
  %init = linalg.fill ins(%cst : f32) outs(%e : tensor<1x8x8x2x32xf32>) -> tensor<1x8x8x2x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x8x8x16xf32>, tensor<2x1x1x16x32xf32>) outs(%init : tensor<1x8x8x2x32xf32>) {
  ^bb0(%a: f32, %bb: f32, %acc: f32):
    %m = arith.mulf %a, %bb : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x2x32xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%r : tensor<1x8x8x2x32xf32>) outs(%e : tensor<1x8x8x2x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %z = arith.maximumf %in, %cst : f32
    linalg.yield %z : f32
  } -> tensor<1x8x8x2x32xf32>
  return %o : tensor<1x8x8x2x32xf32>
}

// -----

// A transpose is tiled 16 x 16: 16 contiguous rows of the input read as one vector,
// transposed in registers by 64 shuffles (AVX-512 16x16 network), written as 16 rows.
// CHECK-LABEL: func @transpose_tile
// CHECK: scf.for {{.*}} step %c16
// CHECK: scf.for {{.*}} step %c16
// CHECK: vector.transfer_read {{.*}} : tensor<32x64xf32>, vector<16x16xf32>
// CHECK-COUNT-64: vector.shuffle
// CHECK: vector.transfer_write {{.*}} : vector<16x16xf32>, tensor<64x32xf32>
func.func @transpose_tile(%x: tensor<32x64xf32>) -> tensor<64x32xf32> {
  %e = tensor.empty() : tensor<64x32xf32>
  %t = linalg.transpose ins(%x : tensor<32x64xf32>) outs(%e : tensor<64x32xf32>) permutation = [1, 0]
  return %t : tensor<64x32xf32>
}

// -----

// Six output channels (no vector width divides them): all six in one partial vector
// per pixel, not two lanes at a time.
// CHECK-LABEL: func @conv_six_channels
// CHECK-COUNT-7: vector.fma {{.*}} : vector<6xf32>
func.func @conv_six_channels(%x: tensor<1x18x18x4xf32>, %w: tensor<5x5x4x6xf32>) -> tensor<1x14x14x6xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x14x14x6xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<1x14x14x6xf32>) -> tensor<1x14x14x6xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x18x18x4xf32>, tensor<5x5x4x6xf32>) outs(%f : tensor<1x14x14x6xf32>) -> tensor<1x14x14x6xf32>
  return %r : tensor<1x14x14x6xf32>
}

// -----

// Sizes the register tile does not divide (20 rows, 40 columns): whole 8x32 tiles, then
// the last partial tiles peeled off with static sizes (8x8, 4x32, 4x8), all vectorized.
// CHECK-LABEL: func @matmul_partial_tiles
// CHECK: scf.for {{.*}} = %c0 to %c16 step %c8
// CHECK: scf.for {{.*}} -> (vector<8x32xf32>)
// CHECK: vector.fma {{.*}} : vector<32xf32>
// CHECK: scf.for {{.*}} -> (vector<8x8xf32>)
// CHECK: vector.fma {{.*}} : vector<8xf32>
// CHECK: } {dlc.parallel}
// CHECK: scf.for {{.*}} -> (vector<4x32xf32>)
// CHECK: scf.for {{.*}} -> (vector<4x8xf32>)
// CHECK-NOT: linalg.
func.func @matmul_partial_tiles(%a: tensor<20x64xf32>, %b: tensor<64x40xf32>) -> tensor<20x40xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<20x40xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<20x40xf32>) -> tensor<20x40xf32>
  %m = linalg.matmul ins(%a, %b : tensor<20x64xf32>, tensor<64x40xf32>) outs(%f : tensor<20x40xf32>) -> tensor<20x40xf32>
  return %m : tensor<20x40xf32>
}

// -----

// A row of 1000 (not a multiple of 32): elementwise ops and the row reduction's partial
// sums step 32 lanes, then one partial step of 8.
// CHECK-LABEL: func @row_partial_tiles
// CHECK: scf.for {{.*}} = %c0 to %c992 step %c32 iter_args({{.*}}) -> (vector<1x32xf32>)
// CHECK: vector.transfer_read %arg0{{.*}} vector<1x8xf32>
// CHECK: scf.for {{.*}} = %c0 to %c992 step %c32
// CHECK: math.exp {{.*}} : vector<1x32xf32>
// CHECK: math.exp {{.*}} : vector<1x8xf32>
// CHECK-NOT: linalg.
func.func @row_partial_tiles(%x: tensor<64x1000xf32>) -> (tensor<64xf32>, tensor<64x1000xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x1000xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64x1000xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x1000xf32>) outs(%e2 : tensor<64x1000xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<64x1000xf32>
  return %sum, %ex : tensor<64xf32>, tensor<64x1000xf32>
}

// -----

// An output row of 13 pixels (prime): implicit-GEMM tiles of 8 pixels and a partial
// one of 5, not 13 tiles of one pixel.
// CHECK-LABEL: func @implicit_gemm_partial_row
// CHECK: scf.for {{.*}} -> ({{.*}}vector<8x32xf32>)
// CHECK: scf.for {{.*}} -> ({{.*}}vector<5x32xf32>)
func.func @implicit_gemm_partial_row(%x: tensor<1x13x13x16xf32>, %w: tensor<2x1x1x16x32xf32>) -> tensor<1x13x13x2x32xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x13x13x2x32xf32>
  %init = linalg.fill ins(%cst : f32) outs(%e : tensor<1x13x13x2x32xf32>) -> tensor<1x13x13x2x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x13x13x16xf32>, tensor<2x1x1x16x32xf32>) outs(%init : tensor<1x13x13x2x32xf32>) {
  ^bb0(%a: f32, %bb: f32, %acc: f32):
    %m = arith.mulf %a, %bb : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x13x13x2x32xf32>
  return %r : tensor<1x13x13x2x32xf32>
}

// -----

// A mean over [H, W] (global average pooling, squeeze-excite) is one reduction over
// H * W: 64 partial sums carried across the row, instead of a horizontal sum per tile
// of the innermost dim (faster; rounding grows with sqrt(n), not n / 16).
// CHECK-LABEL: func @mean_over_hw
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : tensor<1x48x56x56xf32> into tensor<1x48x3136xf32>
// CHECK: scf.for {{.*}} to %c3136 step %c64
// CHECK: arith.addf {{.*}} : vector<1x1x64xf32>
#mhw_in = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#mhw_out = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
func.func @mean_over_hw(%x: tensor<1x48x56x56xf32>) -> tensor<1x48xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x48xf32>
  %1 = linalg.fill ins(%zero : f32) outs(%0 : tensor<1x48xf32>) -> tensor<1x48xf32>
  %2 = linalg.generic {indexing_maps = [#mhw_in, #mhw_out], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x : tensor<1x48x56x56xf32>) outs(%1 : tensor<1x48xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %3 = arith.addf %in, %acc : f32
    linalg.yield %3 : f32
  } -> tensor<1x48xf32>
  return %2 : tensor<1x48xf32>
}
