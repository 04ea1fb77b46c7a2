// RUN: dlc-opt %s -dlc-cpu-tile-vectorize | FileCheck %s
// Hand-written configs that no selection would choose (a generic kernel with partial sums
// on a matmul, an implicit GEMM with huge tiles and an epilogue flag, a convolution kind
// on an elementwise op, a config on buffers) are applied where they can be and never crash;
// none is left behind.
// CHECK-LABEL: func @weird
// CHECK-NOT: dlc.kernel_config
// CHECK-LABEL: func @buffers
// CHECK: linalg.matmul
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @weird(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>, %m: memref<4x16xf32>) -> tensor<4x16xf32> {
  %0 = linalg.matmul {dlc.kernel_config = #dlc.kernel_config<generic, tiles = [1, 1, 16], partial_sums>}
         ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  %1 = linalg.matmul {dlc.kernel_config = #dlc.kernel_config<implicit_gemm, tiles = [100000, 3, 0], epilogue>}
         ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%0 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<4x16xf32>) outs(%c : tensor<4x16xf32>) attrs = {dlc.kernel_config = #dlc.kernel_config<convolution, tiles = [0, 0], interchange = [1, 0]>} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x16xf32>
  return %2 : tensor<4x16xf32>
}

func.func @buffers(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %m: memref<4x16xf32>) {
  linalg.matmul {dlc.kernel_config = #dlc.kernel_config<contraction, tiles = [2, 8, 1], split = 0>} ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%m : memref<4x16xf32>)
  return
}
