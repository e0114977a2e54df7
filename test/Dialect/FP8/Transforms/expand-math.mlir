// RUN: fp8-opt %s --fp8-expand-math --split-input-file | FileCheck %s

// erf on f32 as numerics.md section 16 specifies: |x|, the odd polynomial of
// the small branch (6 fused steps in x^2, then a + a q), the erfc polynomial
// of |x| - 2.5 (12 fused steps), 1 - e, the two selects and the sign.
// CHECK-LABEL: func.func @scalar(
// CHECK-SAME: %[[X:.*]]: f32)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[TOP:.*]] = arith.constant 3.925000e+00 : f32
// CHECK-DAG: %[[MID:.*]] = arith.constant 2.500000e+00 : f32
// CHECK-DAG: %[[P6:.*]] = arith.constant 7.88936886E-5 : f32
// CHECK-DAG: %[[P0:.*]] = arith.constant 0.128379166 : f32
// CHECK-DAG: %[[E12:.*]] = arith.constant 9.12474206E-6 : f32
// CHECK-DAG: %[[E0:.*]] = arith.constant 4.0693162E-4 : f32
// CHECK: %[[A:.*]] = math.absf %[[X]] : f32
// CHECK: %[[S:.*]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK: math.fma %[[P6]], %[[S]]
// CHECK-COUNT-4: math.fma {{.*}}, %[[S]]
// CHECK: %[[Q:.*]] = math.fma {{.*}}, %[[S]], %[[P0]] : f32
// CHECK: %[[SMALL:.*]] = math.fma %[[A]], %[[Q]], %[[A]] : f32
// CHECK: %[[T:.*]] = arith.subf %[[A]], %[[MID]] : f32
// CHECK: math.fma %[[E12]], %[[T]]
// CHECK-COUNT-10: math.fma {{.*}}, %[[T]]
// CHECK: %[[E:.*]] = math.fma {{.*}}, %[[T]], %[[E0]] : f32
// CHECK: %[[LARGE:.*]] = arith.subf %[[ONE]], %[[E]] : f32
// CHECK: %[[LT:.*]] = arith.cmpf olt, %[[A]], %[[ONE]] : f32
// CHECK: %[[R:.*]] = arith.select %[[LT]], %[[SMALL]], %[[LARGE]] : f32
// CHECK: %[[GE:.*]] = arith.cmpf oge, %[[A]], %[[TOP]] : f32
// CHECK: %[[R1:.*]] = arith.select %[[GE]], %[[ONE]], %[[R]] : f32
// CHECK: %[[Y:.*]] = math.copysign %[[R1]], %[[X]] : f32
// CHECK: return %[[Y]]
// CHECK-NOT: math.erf
func.func @scalar(%x: f32) -> f32 {
  %y = math.erf %x : f32
  return %y : f32
}

// -----

// Vectors and static tensors take splat constants.
// CHECK-LABEL: func.func @shaped(
// CHECK-DAG: arith.constant dense<1.000000e+00> : vector<4xf32>
// CHECK-DAG: arith.constant dense<2.500000e+00> : tensor<2x3xf32>
// CHECK: math.copysign {{.*}} : vector<4xf32>
// CHECK: math.copysign {{.*}} : tensor<2x3xf32>
// CHECK-NOT: math.erf
func.func @shaped(%v: vector<4xf32>, %t: tensor<2x3xf32>) -> (vector<4xf32>, tensor<2x3xf32>) {
  %a = math.erf %v : vector<4xf32>
  %b = math.erf %t : tensor<2x3xf32>
  return %a, %b : vector<4xf32>, tensor<2x3xf32>
}

// -----

// bf16 and f16: erf of the exact f32 value, rounded once.
// CHECK-LABEL: func.func @narrow(
// CHECK-SAME: %[[B:.*]]: bf16, %[[H:.*]]: vector<2xf16>)
// CHECK: %[[BX:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK: math.absf %[[BX]] : f32
// CHECK: %[[BY:.*]] = math.copysign {{.*}}, %[[BX]] : f32
// CHECK: arith.truncf %[[BY]] : f32 to bf16
// CHECK: %[[HX:.*]] = arith.extf %[[H]] : vector<2xf16> to vector<2xf32>
// CHECK: %[[HY:.*]] = math.copysign {{.*}}, %[[HX]] : vector<2xf32>
// CHECK: arith.truncf %[[HY]] : vector<2xf32> to vector<2xf16>
// CHECK-NOT: math.erf
func.func @narrow(%b: bf16, %h: vector<2xf16>) -> (bf16, vector<2xf16>) {
  %a = math.erf %b : bf16
  %c = math.erf %h : vector<2xf16>
  return %a, %c : bf16, vector<2xf16>
}

// -----

// f64 and dynamic shapes are left to other lowerings.
// CHECK-LABEL: func.func @untouched(
// CHECK: math.erf {{.*}} : f64
// CHECK: math.erf {{.*}} : tensor<?xf32>
func.func @untouched(%d: f64, %t: tensor<?xf32>) -> (f64, tensor<?xf32>) {
  %a = math.erf %d : f64
  %c = math.erf %t : tensor<?xf32>
  return %a, %c : f64, tensor<?xf32>
}

// -----

// exp on f32 as numerics.md section 17 specifies: the clamps (NaN fails both
// and is put back at the end), k = roundeven(x log2 e) as the last place of a
// sum with 1.5 * 2^23, r by ln2 in two parts, 1 + r q(r) (5 fused steps for
// q), and 2^k applied as two normal powers of two built from their bits, with
// k, floor(k / 2) and the rest as integers: no float-to-integer conversion.
// CHECK-LABEL: func.func @exp(
// CHECK-SAME: %[[X:.*]]: f32)
// CHECK-DAG: %[[LOW:.*]] = arith.constant -1.040000e+02 : f32
// CHECK-DAG: %[[HIGH:.*]] = arith.constant 8.900000e+01 : f32
// CHECK-DAG: %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK-DAG: %[[RS:.*]] = arith.constant 0x4B400000 : f32
// CHECK-DAG: %[[RSBITS:.*]] = arith.constant 1262485504 : i32
// CHECK-DAG: %[[LN2HI:.*]] = arith.constant -0.693147182 : f32
// CHECK-DAG: %[[LN2LO:.*]] = arith.constant 1.90465421E-9 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[I1:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[BIAS:.*]] = arith.constant 127 : i32
// CHECK-DAG: %[[SHIFT:.*]] = arith.constant 23 : i32
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK: arith.cmpf olt, %[[X]], %[[LOW]] : f32
// CHECK: %[[C1:.*]] = arith.select {{.*}}, %[[LOW]], %[[X]] : f32
// CHECK: arith.cmpf ogt, %[[C1]], %[[HIGH]] : f32
// CHECK: %[[C:.*]] = arith.select {{.*}}, %[[HIGH]], %[[C1]] : f32
// CHECK: %[[T:.*]] = arith.mulf %[[C]], %[[LOG2E]] : f32
// CHECK: %[[SUM:.*]] = arith.addf %[[T]], %[[RS]] : f32
// CHECK: %[[K:.*]] = arith.subf %[[SUM]], %[[RS]] : f32
// CHECK: %[[SUMBITS:.*]] = arith.bitcast %[[SUM]] : f32 to i32
// CHECK: %[[KI:.*]] = arith.subi %[[SUMBITS]], %[[RSBITS]] : i32
// CHECK: %[[R0:.*]] = math.fma %[[K]], %[[LN2HI]], %[[C]] : f32
// CHECK: %[[R:.*]] = math.fma %[[K]], %[[LN2LO]], %[[R0]] : f32
// CHECK-COUNT-5: math.fma {{.*}}, %[[R]],
// CHECK: %[[P:.*]] = math.fma %[[R]], %{{.*}}, %[[ONE]] : f32
// CHECK: %[[K1:.*]] = arith.shrsi %[[KI]], %[[I1]] : i32
// CHECK: %[[K2:.*]] = arith.subi %[[KI]], %[[K1]] : i32
// CHECK-DAG: %[[E1:.*]] = arith.addi %[[K1]], %[[BIAS]] : i32
// CHECK-DAG: %[[B1:.*]] = arith.shli %[[E1]], %[[SHIFT]] : i32
// CHECK-DAG: %[[S1:.*]] = arith.bitcast %[[B1]] : i32 to f32
// CHECK-DAG: %[[E2:.*]] = arith.addi %[[K2]], %[[BIAS]] : i32
// CHECK-DAG: %[[B2:.*]] = arith.shli %[[E2]], %[[SHIFT]] : i32
// CHECK-DAG: %[[S2:.*]] = arith.bitcast %[[B2]] : i32 to f32
// CHECK: %[[PS:.*]] = arith.mulf %[[P]], %[[S1]] : f32
// CHECK: %[[Y:.*]] = arith.mulf %[[PS]], %[[S2]] : f32
// CHECK: arith.select %[[NAN]], %[[X]], %[[Y]] : f32
// CHECK-NOT: math.exp
// CHECK-NOT: arith.fptosi
// CHECK-NOT: math.roundeven
// CHECK-NOT: math.floor
func.func @exp(%x: f32) -> f32 {
  %y = math.exp %x : f32
  return %y : f32
}

// -----

// tanh and log, which numerics.md does not expand by a design of its own, by
// upstream's polynomial approximations (section 18), as the GPU kernels
// compute them: tanh a ratio of an odd and an even polynomial of the clamped
// input, log Cephes' polynomial of the significand plus the exponent times
// ln 2; on bf16, the f32 function of the exact f32 value, rounded once. A
// math op on tensors is left for the passes that make it elementwise.
// CHECK-LABEL: func.func @tanh_log
// CHECK-SAME: (%[[X:.*]]: f32, %[[B:.*]]: bf16, %[[T:.*]]: tensor<4xf32>)
// CHECK: arith.cmpf ult, %[[X]], {{.*}} : f32
// CHECK-COUNT-6: math.fma
// CHECK: arith.mulf
// CHECK-COUNT-3: math.fma
// CHECK: arith.divf
// CHECK: arith.bitcast {{.*}} : f32 to i32
// CHECK: arith.shrui
// CHECK: arith.sitofp
// CHECK-COUNT-8: math.fma
// CHECK: %[[WIDE:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK: arith.cmpf ult, %[[WIDE]]
// CHECK: arith.divf
// CHECK: arith.truncf {{.*}} : f32 to bf16
// CHECK-NOT: math.tanh {{.*}} : f32
// CHECK-NOT: math.tanh {{.*}} : bf16
// CHECK-NOT: math.log
// CHECK: math.tanh %[[T]] : tensor<4xf32>
func.func @tanh_log(%x: f32, %b: bf16, %t: tensor<4xf32>) -> (f32, f32, bf16, tensor<4xf32>) {
  %y = math.tanh %x : f32
  %l = math.log %x : f32
  %yb = math.tanh %b : bf16
  %yt = math.tanh %t : tensor<4xf32>
  return %y, %l, %yb, %yt : f32, f32, bf16, tensor<4xf32>
}

// -----

// On vectors: upstream's approximations build their constants as vector
// broadcasts (the pass loads the vector dialect for them), on f32, bf16 and
// narrow floats alike.
// CHECK-LABEL: func.func @vectors
// CHECK-NOT: math.tanh
// CHECK-NOT: math.log
// CHECK-NOT: math.exp
// CHECK: return
func.func @vectors(%x: vector<4xf32>, %b: vector<4xbf16>, %n: vector<2xf8E4M3FN>)
    -> (vector<4xf32>, vector<4xf32>, vector<4xbf16>, vector<2xf8E4M3FN>) {
  %t = math.tanh %x : vector<4xf32>
  %l = math.log %x : vector<4xf32>
  %tb = math.tanh %b : vector<4xbf16>
  %e = math.exp %n : vector<2xf8E4M3FN>
  return %t, %l, %tb, %e : vector<4xf32>, vector<4xf32>, vector<4xbf16>, vector<2xf8E4M3FN>
}
