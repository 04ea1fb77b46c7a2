// RUN: dlc-opt %s -dlc-math-approximation | FileCheck %s
// f32 transcendentals become polynomials; constant powers become multiplications.

// CHECK-LABEL: func @approximate
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK-NOT: math.erf
// CHECK-NOT: math.powf
// CHECK: return
func.func @approximate(%x: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
  %three = arith.constant dense<3.0> : vector<16xf32>
  %0 = math.exp %x : vector<16xf32>
  %1 = math.tanh %x : vector<16xf32>
  %2 = math.erf %x : vector<16xf32>
  %3 = math.powf %x, %three : vector<16xf32>
  return %0, %1, %2, %3 : vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>
}

// CHECK-LABEL: func @cube
// CHECK: %[[SQ:.*]] = arith.mulf %arg0, %arg0
// CHECK: arith.mulf %arg0, %[[SQ]]
func.func @cube(%x: f32) -> f32 {
  %three = arith.constant 3.0 : f32
  %0 = math.powf %x, %three : f32
  return %0 : f32
}

// A power with a variable exponent stays exact (libm): exp(y log x) is NaN for x < 0.
// CHECK-LABEL: func @variable_power
// CHECK: math.powf
func.func @variable_power(%x: f32, %y: f32) -> f32 {
  %0 = math.powf %x, %y : f32
  return %0 : f32
}

// erf: one rational function of the input clamped to [-4, 4] (compare + select keeps
// NaN), no interval selection.
// CHECK-LABEL: func @erf_rational
// CHECK-COUNT-2: arith.select
// CHECK-COUNT-6: math.fma
// CHECK: arith.mulf
// CHECK-COUNT-3: math.fma
// CHECK: %[[Q:.*]] = math.fma
// CHECK-NEXT: arith.divf %{{.*}}, %[[Q]] : vector<16xf32>
// CHECK-NOT: arith.select
// CHECK: return
func.func @erf_rational(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.erf %x : vector<16xf32>
  return %0 : vector<16xf32>
}
