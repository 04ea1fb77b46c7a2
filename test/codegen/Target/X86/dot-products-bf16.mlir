// RUN: dlc-opt %s -convert-graph-to-linalg="bf16-weights=true bf16-dot-lanes=16" | FileCheck %s --check-prefix=LOWER
// RUN: dlc-opt %s -convert-graph-to-linalg="bf16-weights=true bf16-dot-lanes=16" -dlc-fuse-elementwise -dlc-cpu-select-kernels=cpu=znver4 | FileCheck %s --check-prefix=SELECT
// RUN: dlc-opt %s -convert-graph-to-linalg="bf16-weights=true bf16-dot-lanes=16" -dlc-fuse-elementwise -dlc-cpu-select-kernels=cpu=znver4 -dlc-cpu-tile-vectorize=cpu=znver4 | FileCheck %s --check-prefix=BF16
// RUN: dlc-opt %s -convert-graph-to-linalg="bf16-weights=true bf16-dot-lanes=16" -dlc-fuse-elementwise -dlc-cpu-select-kernels=cpu=x86-64-v4 -dlc-cpu-tile-vectorize=cpu=x86-64-v4 | FileCheck %s --check-prefix=NOBF16
// RUN: dlc-opt %s -convert-graph-to-linalg="bf16-weights=true" | FileCheck %s --check-prefix=NODOT
// A matmul whose weights are exactly bf16 (--precision=bf16 rounded them) in the bf16 dot
// form (QUANT-NOTES.md §3.5): weights packed [N/16][K/2][16][2] (K = 7 padded to 8 with a
// zero row), the activations rounded to bf16 and padded to K = 8, pairs of K products
// accumulated in f32. A register tile of 8 rows x 2 blocks of 16 columns; with
// AVX512-BF16 (znver4) each (row, block) is one dlc_x86.dot_bf16 (vdpbf16ps) per pair of
// K, the row's pair broadcast as one 32-bit word. x86-64-v4 lacks AVX512-BF16: the
// contraction is lowered as any other. Without bf16-dot-lanes: the f32 kernel over bf16
// weights (widened in the body).

// LOWER: arith.constant dense<{{.*}}> : tensor<2x4x16x2xbf16>
// LOWER: linalg.generic {{.*}} ins(%arg0 : tensor<64x7xf32>) outs(%{{.*}} : tensor<64x7xbf16>)
// LOWER: arith.truncf {{.*}} : f32 to bf16
// LOWER: tensor.pad {{.*}} low[0, 0] high[0, 1]
// LOWER: tensor.expand_shape {{.*}} : tensor<64x8xbf16> into tensor<64x4x2xbf16>
// LOWER: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<64x4x2xbf16>, tensor<2x4x16x2xbf16>) outs(%{{.*}} : tensor<64x2x16xf32>)
// LOWER: arith.extf {{.*}} : bf16 to f32
// LOWER: arith.extf {{.*}} : bf16 to f32
// LOWER: arith.mulf
// LOWER: arith.addf

// SELECT: #dlc.kernel_config<contraction, tiles = [8, 2, 16, 1, 0], split = 0>

// BF16: scf.for {{.*}} iter_args({{.*}}) -> (tensor<8x2x16xf32>, vector<8x2x16xf32>)
// BF16-COUNT-2: vector.transfer_read {{.*}} : tensor<2x4x16x2xbf16>, vector<16x2xbf16>
// BF16-COUNT-8: vector.broadcast {{.*}} : i32 to vector<16xi32>
// BF16-COUNT-16: dlc_x86.dot_bf16 {{.*}} : vector<32xbf16>, vector<16x2xbf16> -> vector<16xf32>
// BF16-NOT: dlc_x86.dot_bf16
// NOBF16-NOT: dlc_x86

// NODOT: arith.constant dense<{{.*}}> : tensor<1x7x32xbf16>
// NODOT: linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<64x7xf32>, tensor<1x7x32xbf16>) outs(%{{.*}} : tensor<64x1x32xf32>)
func.func @bf16_dot(%a: tensor<64x7xf32>) -> tensor<64x32xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, -1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0, -9.0, -10.0, -11.0, -12.0, -13.0, -14.0, -15.0, -16.0], [0.5, 0.25, 0.125, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5, 12.5, 13.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, -1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0, -9.0, -10.0, -11.0, -12.0, -13.0, -14.0, -15.0, -16.0], [0.5, 0.25, 0.125, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5, 12.5, 13.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, -1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0, -9.0, -10.0, -11.0, -12.0, -13.0, -14.0, -15.0, -16.0], [0.5, 0.25, 0.125, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5, 12.5, 13.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, -1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0, -9.0, -10.0, -11.0, -12.0, -13.0, -14.0, -15.0, -16.0]]> : tensor<7x32xf32>
  %0 = dlc_graph.matmul %a, %w : tensor<64x7xf32>, tensor<7x32xf32> -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}
