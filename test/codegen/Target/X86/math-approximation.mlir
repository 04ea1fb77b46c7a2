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

// max/min against a constant (ReLU6) become compare + select (one vmaxps/vminps on x86,
// NaN kept); against a NaN constant or between two variables they stay.
// CHECK-LABEL: func @relu6
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00>
// CHECK-DAG: %[[SIX:.*]] = arith.constant dense<6.000000e+00>
// CHECK: %[[LT:.*]] = arith.cmpf olt, %arg0, %[[ZERO]]
// CHECK: %[[LO:.*]] = arith.select %[[LT]], %[[ZERO]], %arg0
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[LO]], %[[SIX]]
// CHECK: arith.select %[[GT]], %[[SIX]], %[[LO]]
// CHECK: arith.maximumf %arg0, %{{.*}}
// CHECK: arith.minimumf %arg0, %arg1
func.func @relu6(%x: vector<16xf32>, %y: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>) {
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %six = arith.constant dense<6.0> : vector<16xf32>
  %nan = arith.constant dense<0x7FC00000> : vector<16xf32>
  %0 = arith.maximumf %zero, %x : vector<16xf32>
  %1 = arith.minimumf %0, %six : vector<16xf32>
  %2 = arith.maximumf %x, %nan : vector<16xf32>
  %3 = arith.minimumf %x, %y : vector<16xf32>
  return %1, %2, %3 : vector<16xf32>, vector<16xf32>, vector<16xf32>
}

// Division by a constant whose reciprocal is a normal f32 is a multiply (gelu's
// x / sqrt(2)); by zero, a denormal's reciprocal or a non-constant it stays a divide.
// CHECK-LABEL: func @div_by_constant
// CHECK-DAG: %[[R:.*]] = arith.constant dense<0.707106769> : vector<16xf32>
// CHECK-DAG: %[[Q:.*]] = arith.constant 2.500000e-01 : f32
// CHECK: arith.mulf %arg0, %[[R]] : vector<16xf32>
// CHECK: arith.mulf %arg2, %[[Q]] : f32
// CHECK: arith.divf %arg0, %{{.*}} : vector<16xf32>
// CHECK: arith.divf %arg2, %{{.*}} : f32
// CHECK: arith.divf %arg0, %arg1 : vector<16xf32>
func.func @div_by_constant(%x: vector<16xf32>, %y: vector<16xf32>, %s: f32)
    -> (vector<16xf32>, f32, vector<16xf32>, f32, vector<16xf32>) {
  %sqrt2 = arith.constant dense<1.41421354> : vector<16xf32>
  %four = arith.constant 4.0 : f32
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %huge = arith.constant 3.0e38 : f32
  %a = arith.divf %x, %sqrt2 : vector<16xf32>
  %b = arith.divf %s, %four : f32
  %c = arith.divf %x, %zero : vector<16xf32>
  %d = arith.divf %s, %huge : f32
  %e = arith.divf %x, %y : vector<16xf32>
  return %a, %b, %c, %d, %e : vector<16xf32>, f32, vector<16xf32>, f32, vector<16xf32>
}

// log scales inputs below the smallest normal by 2^24 and takes 24 log 2 off the result
// (the polynomial reads the exponent field: every denormal looked like 2^-126).
// sin and cos stay libm calls: the polynomial's range reduction fails for large arguments.
// CHECK-LABEL: func @log_denormal_sin_cos
// CHECK: %[[SMALL:.*]] = arith.cmpf olt, %arg0, %{{.*}} : vector<16xf32>
// CHECK: arith.select %[[SMALL]]
// CHECK-NOT: math.log
// CHECK: arith.subf
// CHECK: arith.select %[[SMALL]]
// CHECK: math.sin
// CHECK: math.cos
func.func @log_denormal_sin_cos(%x: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>) {
  %0 = math.log %x : vector<16xf32>
  %1 = math.sin %x : vector<16xf32>
  %2 = math.cos %x : vector<16xf32>
  return %0, %1, %2 : vector<16xf32>, vector<16xf32>, vector<16xf32>
}
