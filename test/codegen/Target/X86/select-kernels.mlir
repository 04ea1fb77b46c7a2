// RUN: dlc-opt %s -split-input-file -dlc-cpu-select-kernels=cpu=x86-64-v4 | FileCheck %s --check-prefixes=CHECK,V4
// RUN: dlc-opt %s -split-input-file -dlc-cpu-select-kernels=cpu=x86-64-v3 | FileCheck %s --check-prefixes=CHECK,V3
// RUN: dlc-opt %s -split-input-file -dlc-cpu-select-kernels="cpu=x86-64-v3 dump-target=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TARGET
// Each op's kernel for the target CPU, recorded as #dlc.kernel_config. AVX-512 (v4):
// 32 zmm registers of 16 floats; AVX2 (v3): 16 ymm of 8, so smaller register tiles.

// TARGET: target: x86-64-v3 (avx2, 256-bit, 16 registers; L1d 32 KiB, L2 512 KiB, L3 16384 KiB)

// A matmul whose only user is an elementwise op: the kernel computes it as its
// epilogue; threads split the row tiles.
// CHECK-LABEL: func @matmul_epilogue
// V4: linalg.matmul {dlc.kernel_config = #dlc.kernel_config<contraction, tiles = [8, 32, 1], split = 0, epilogue>}
// V3: linalg.matmul {dlc.kernel_config = #dlc.kernel_config<contraction, tiles = [6, 16, 1], split = 0, epilogue>}
// V4: #dlc.kernel_config<generic, tiles = [1, 32], split = 0>
// V3: #dlc.kernel_config<generic, tiles = [1, 16], split = 0>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @matmul_epilogue(%a: tensor<64x256xf32>, %b: tensor<256x128xf32>, %c: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x256xf32>, tensor<256x128xf32>) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
         ins(%0 : tensor<64x128xf32>) outs(%c : tensor<64x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<64x128xf32>
  return %1 : tensor<64x128xf32>
}

// -----

// A row sum: partial sums across the row (64 on AVX-512, at most 4 ymm = 32 on AVX2).
// CHECK-LABEL: func @row_sum
// V4: #dlc.kernel_config<generic, tiles = [1, 64], split = 0, partial_sums>
// V3: #dlc.kernel_config<generic, tiles = [1, 32], split = 0, partial_sums>
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @row_sum(%x: tensor<64x4096xf32>, %r: tensor<64xf32>) -> tensor<64xf32> {
  %0 = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
         ins(%x : tensor<64x4096xf32>) outs(%r : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

// A transpose: 16 x 16 tiles transposed in zmm registers, 8 x 8 in ymm.
// CHECK-LABEL: func @transpose
// V4: #dlc.kernel_config<generic, tiles = [16, 16], split = 0>
// V3: #dlc.kernel_config<generic, tiles = [8, 8], split = 0>
#t = affine_map<(d0, d1) -> (d1, d0)>
#o = affine_map<(d0, d1) -> (d0, d1)>
func.func @transpose(%x: tensor<128x64xf32>, %y: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %0 = linalg.generic {indexing_maps = [#t, #o], iterator_types = ["parallel", "parallel"]}
         ins(%x : tensor<128x64xf32>) outs(%y : tensor<64x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<64x128xf32>
  return %0 : tensor<64x128xf32>
}

// -----

// A channels-last convolution: 8 pixels x 32 channels (v4), 4 x 16 (v3); the filter
// width whole, one output row at a time.
// CHECK-LABEL: func @conv_nhwc
// V4: linalg.conv_2d_nhwc_hwcf {{.*}}dlc.kernel_config = #dlc.kernel_config<convolution, tiles = [1, 1, 8, 32, 1, 0, 1], split = 1>
// V3: linalg.conv_2d_nhwc_hwcf {{.*}}dlc.kernel_config = #dlc.kernel_config<convolution, tiles = [1, 1, 4, 16, 1, 0, 1], split = 1>
func.func @conv_nhwc(%x: tensor<1x18x18x32xf32>, %w: tensor<3x3x32x64xf32>, %y: tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x18x18x32xf32>, tensor<3x3x32x64xf32>) outs(%y : tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32>
  return %0 : tensor<1x16x16x64xf32>
}

// -----

// Too little work for threads: no split.
// CHECK-LABEL: func @small
// CHECK: #dlc.kernel_config<generic, tiles = [1, {{16|32}}]>
#s = affine_map<(d0, d1) -> (d0, d1)>
func.func @small(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %0 = linalg.generic {indexing_maps = [#s, #s], iterator_types = ["parallel", "parallel"]}
         ins(%x : tensor<4x64xf32>) outs(%x : tensor<4x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %in : f32
    linalg.yield %r : f32
  } -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}
