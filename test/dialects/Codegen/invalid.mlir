// RUN: dlc-opt %s -split-input-file -verify-diagnostics
// Every #dlc.kernel_config diagnostic: the attribute on its own, then against its op.

// expected-error @+1 {{expected contraction, convolution, implicit_gemm or generic}}
func.func @kind() attributes {k = #dlc.kernel_config<blocked, tiles = [1]>}

// -----

// expected-error @+1 {{kernel_config needs tiles = [...]}}
func.func @no_tiles() attributes {k = #dlc.kernel_config<generic>}

// -----

// expected-error @+1 {{unknown kernel_config field 'threads'}}
func.func @field() attributes {k = #dlc.kernel_config<generic, tiles = [1], threads = 2>}

// -----

// expected-error @+1 {{tiles must be >= 0 (0: not tiled)}}
func.func @negative() attributes {k = #dlc.kernel_config<generic, tiles = [-1]>}

// -----

// expected-error @+1 {{interchange must be a permutation of the 2 loops}}
func.func @interchange() attributes {k = #dlc.kernel_config<generic, tiles = [1, 8], interchange = [1, 1]>}

// -----

// expected-error @+1 {{split must name a tiled loop}}
func.func @split() attributes {k = #dlc.kernel_config<generic, tiles = [0, 8], split = 0>}

// -----

// expected-error @+1 {{only a contraction or convolution computes an epilogue}}
func.func @epilogue() attributes {k = #dlc.kernel_config<generic, tiles = [8], epilogue>}

// -----

// expected-error @+1 {{partial sums need a generic kernel that tiles its innermost loop}}
func.func @partial() attributes {k = #dlc.kernel_config<contraction, tiles = [8, 32, 0], partial_sums>}

// -----

// expected-error @+1 {{row_block must be > 0, on a generic op of two or more loops}}
func.func @row_block() attributes {k = #dlc.kernel_config<generic, tiles = [1, 32], row_block = 0>}

// -----

// expected-error @+1 {{'dlc.kernel_config' must be a #dlc.kernel_config}}
func.func @not_config() attributes {dlc.kernel_config = 3 : i64}

// -----

// expected-error @+1 {{#dlc.kernel_config is only valid on a linalg op}}
func.func @not_linalg() attributes {dlc.kernel_config = #dlc.kernel_config<generic, tiles = [1]>}

// -----

func.func @loops(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{#dlc.kernel_config has 2 tiles for an op of 3 loops}}
  %0 = linalg.matmul {dlc.kernel_config = #dlc.kernel_config<contraction, tiles = [4, 16]>}
         ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @split_reduction(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{#dlc.kernel_config splits loop 2, which is not parallel}}
  %0 = linalg.matmul {dlc.kernel_config = #dlc.kernel_config<contraction, tiles = [4, 16, 1], split = 2>}
         ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @partial_parallel(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{#dlc.kernel_config keeps partial sums, but the op's innermost loop is not its one reduction}}
  %0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
         ins(%x : tensor<4x8xf32>) outs(%x : tensor<4x8xf32>)
         attrs = {dlc.kernel_config = #dlc.kernel_config<generic, tiles = [1, 8], partial_sums>} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @row_block_reduces(%x: tensor<4x8xf32>, %r: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{#dlc.kernel_config roots a row block, but the op reduces}}
  %0 = linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]}
         ins(%x : tensor<4x8xf32>) outs(%r : tensor<4xf32>)
         attrs = {dlc.kernel_config = #dlc.kernel_config<generic, tiles = [1, 8], row_block = 2>} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Several reductions that sum: the order matters, no partial results across the last.
#all = affine_map<(d0, d1) -> (d0, d1)>
#none = affine_map<(d0, d1) -> ()>
func.func @partial_sum_of_two(%x: tensor<4x8xf32>, %init: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{#dlc.kernel_config keeps partial sums, but the op's innermost loop is not its one reduction nor the last of trailing max/min reductions}}
  %0 = linalg.generic {indexing_maps = [#all, #none], iterator_types = ["reduction", "reduction"]}
         ins(%x : tensor<4x8xf32>) outs(%init : tensor<f32>)
         attrs = {dlc.kernel_config = #dlc.kernel_config<generic, tiles = [1, 8], partial_sums>} {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %0 : tensor<f32>
}
