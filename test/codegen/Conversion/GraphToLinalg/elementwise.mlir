// RUN: dlc-opt %s -convert-graph-to-linalg -split-input-file | FileCheck %s
// Elementwise ops: broadcasting in the indexing maps, scalar body per op.

// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func @add_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%arg0, %arg1 : tensor<2x3xf32>, tensor<3xf32>)
// CHECK: arith.addf
func.func @add_broadcast(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = dlc_graph.add %x, %y : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-DAG: #[[UNIT:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func @size_one_dim
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[UNIT]], #{{.*}}]
// CHECK: arith.subi
func.func @size_one_dim(%x: tensor<4x3xi64>, %y: tensor<1x3xi64>) -> tensor<4x3xi64> {
  %0 = dlc_graph.sub %x, %y : tensor<4x3xi64>, tensor<1x3xi64> -> tensor<4x3xi64>
  return %0 : tensor<4x3xi64>
}

// -----

// CHECK-LABEL: func @compare_select
// CHECK: arith.cmpf olt
// CHECK: arith.select
func.func @compare_select(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %c = dlc_graph.less %x, %y : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  %0 = dlc_graph.where %c, %x, %y : tensor<4xi1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @unary
// CHECK: math.exp
// CHECK: math.tanh
// CHECK: math.erf
// CHECK: arith.cmpf olt
// CHECK: arith.select
// CHECK: arith.negf
// CHECK: math.exp
// CHECK: arith.divf
func.func @unary(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = dlc_graph.exp %x : tensor<4xf32>
  %1 = dlc_graph.tanh %0 : tensor<4xf32>
  %2 = dlc_graph.erf %1 : tensor<4xf32>
  %3 = dlc_graph.relu %2 : tensor<4xf32>
  %4 = dlc_graph.sigmoid %3 : tensor<4xf32>
  return %4 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @casts
// CHECK: arith.fptosi %{{.*}} : f32 to i64
// CHECK: arith.cmpi ne
// CHECK: arith.uitofp %{{.*}} : i1 to f32
func.func @casts(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = dlc_graph.cast %x : tensor<4xf32> to tensor<4xi64>
  %1 = dlc_graph.cast %0 : tensor<4xi64> to tensor<4xi1>
  %2 = dlc_graph.cast %1 : tensor<4xi1> to tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @expand
// CHECK: linalg.generic
// CHECK-SAME: ins(%arg0 : tensor<3xf32>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]]
func.func @expand(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = dlc_graph.expand %x : tensor<3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @unsigned_casts
// CHECK: arith.uitofp %{{.*}} : i8 to f32
// CHECK: arith.extui %{{.*}} : i8 to i32
func.func @unsigned_casts(%x: tensor<4xi8>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0 = dlc_graph.cast %x {unsigned_input} : tensor<4xi8> to tensor<4xf32>
  %1 = dlc_graph.cast %x {unsigned_input} : tensor<4xi8> to tensor<4xi32>
  return %0, %1 : tensor<4xf32>, tensor<4xi32>
}

// -----

// Shifts by the bit width or more (or negative counts) shift every bit out.
// CHECK-LABEL: func @shifts
// CHECK: arith.cmpi ult
// CHECK: arith.shli
// CHECK: arith.select
// CHECK: arith.cmpi ult
// CHECK: arith.select
// CHECK: arith.shrsi
func.func @shifts(%x: tensor<4xi8>, %y: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xi8>) {
  %0 = dlc_graph.shift_left %x, %y : tensor<4xi8>, tensor<4xi8> -> tensor<4xi8>
  %1 = dlc_graph.shift_right_arith %x, %y : tensor<4xi8>, tensor<4xi8> -> tensor<4xi8>
  return %0, %1 : tensor<4xi8>, tensor<4xi8>
}

// -----

// CHECK-LABEL: func @classify
// CHECK: arith.cmpf oeq
// CHECK: arith.ori
// CHECK: arith.cmpf uno
func.func @classify(%x: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>) {
  %0 = dlc_graph.is_inf %x {detect_positive = false, detect_negative = true} : tensor<4xf32> -> tensor<4xi1>
  %1 = dlc_graph.is_nan %x : tensor<4xf32> -> tensor<4xi1>
  return %0, %1 : tensor<4xi1>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func @bitcast
// CHECK: arith.bitcast %{{.*}} : f32 to i32
func.func @bitcast(%x: tensor<4xf32>) -> tensor<4xi32> {
  %0 = dlc_graph.bitcast %x : tensor<4xf32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
