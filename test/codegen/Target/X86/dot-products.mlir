// RUN: dlc-opt %s -convert-graph-to-linalg="int8-dot-lanes=16" -dlc-fuse-elementwise -dlc-cpu-select-kernels=cpu=znver4 | FileCheck %s --check-prefix=SELECT
// RUN: dlc-opt %s -convert-graph-to-linalg="int8-dot-lanes=16" -dlc-fuse-elementwise -dlc-cpu-select-kernels=cpu=znver4 -dlc-cpu-tile-vectorize=cpu=znver4 | FileCheck %s --check-prefix=VNNI
// RUN: dlc-opt %s -convert-graph-to-linalg="int8-dot-lanes=16" -dlc-fuse-elementwise -dlc-cpu-select-kernels=cpu=x86-64-v4 -dlc-cpu-tile-vectorize=cpu=x86-64-v4 | FileCheck %s --check-prefix=NOVNNI
// RUN: dlc-opt %s -convert-graph-to-linalg="int8-dot-lanes=8 int8-dot-group=2" -dlc-fuse-elementwise -dlc-cpu-select-kernels=cpu=x86-64-v3 -dlc-cpu-tile-vectorize=cpu=x86-64-v3 | FileCheck %s --check-prefix=PAIRS
// An 8-bit matmul in 4-byte K groups (QUANT-NOTES.md §3): a register tile of 8 rows x 2
// blocks of 16 columns, the K groups stepped one at a time; with AVX-512 VNNI (znver4)
// each (row, block) of the tile is one dlc_x86.dot_u8s8 per K group, the 4 activation
// bytes of the row broadcast, each block's [16, 4] weights read once. x86-64-v4 lacks
// VNNI, so the contraction is lowered as any other. On AVX2 (x86-64-v3) the operands are
// i16 pairs: a register tile of 6 rows x 2 blocks of 8 columns (12 accumulators), each
// (row, block) one dlc_x86.dot_i16 (vpmaddwd) per pair of K, the row's pair broadcast.

// SELECT: #dlc.kernel_config<contraction, tiles = [8, 2, 16, 1, 0], split = 0, epilogue>

// VNNI: scf.for
// VNNI: scf.for {{.*}} iter_args({{.*}}) -> (tensor<8x2x16xi32>, vector<8x2x16xi32>)
// VNNI-COUNT-2: vector.transfer_read {{.*}} : tensor<2x2x16x4xi8>, vector<16x4xi8>
// VNNI-COUNT-8: vector.broadcast {{.*}} : i32 to vector<16xi32>
// VNNI-COUNT-16: dlc_x86.dot_u8s8 {{.*}} : vector<64xi8>, vector<16x4xi8> -> vector<16xi32>
// VNNI-NOT: dlc_x86.dot_u8s8
// NOVNNI-NOT: dlc_x86
// PAIRS: scf.for {{.*}} iter_args({{.*}}) -> (tensor<6x2x8xi32>, vector<6x2x8xi32>)
// PAIRS: vector.transfer_read {{.*}} vector<6x1x2xi16>
// PAIRS-COUNT-2: vector.transfer_read {{.*}} : tensor<4x4x8x2xi16>, vector<8x2xi16>
// PAIRS-COUNT-6: vector.broadcast {{.*}} : i32 to vector<8xi32>
// PAIRS-COUNT-12: dlc_x86.dot_i16 {{.*}} : vector<16xi16>, vector<8x2xi16> -> vector<8xi32>
// PAIRS-NOT: dlc_x86.dot_i16 {{.*}} vector<6
func.func @dot(%a: tensor<64x8xi8>) -> tensor<64x32xi32> {
  %w = arith.constant dense<"0x0B30557A9FC4E90E33587DA2C7EC11365B80A5CAEF14395E83A8CDF2173C6186ABD0F51A3F6489AED3F81D42678CB1D6FB20456A8FB4D9FE23486D92B7DC01264B7095BADF04294E7398BDE2072C51769BC0E50A2F54799EC3E80D32577CA1C6EB10355A7FA4C9EE13385D82A7CCF1163B6085AACFF4193E6388ADD2F71C41668BB0D5FA1F44698EB3D8FD22476C91B6DB00254A6F94B9DE03284D7297BCE1062B50759ABFE4092E53789DC2E70C31567BA0C5EA0F34597EA3C8ED12375C81A6CBF0153A5F84A9CEF3183D6287ACD1F61B40658AAFD4F91E43688DB2D7FC21466B90B5DAFF24496E93B8DD02274C7196BBE0052A4F7499BEE3082D52779CC1E6"> : tensor<8x32xi8>
  %z = arith.constant dense<3> : tensor<32xi32>
  %0 = dlc_graph.matmul_integer %a, %w {lhs_unsigned} : tensor<64x8xi8>, tensor<8x32xi8> -> tensor<64x32xi32>
  %1 = dlc_graph.sub %0, %z : tensor<64x32xi32>, tensor<32xi32> -> tensor<64x32xi32>
  return %1 : tensor<64x32xi32>
}
