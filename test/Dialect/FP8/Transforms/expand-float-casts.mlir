// The structure of the expansion: only integer and bit-cast arithmetic
// remains. Its numerics are checked exhaustively by the SoftFloat unit test
// and by test/Execution.
// RUN: fp8-opt %s -fp8-expand-float-casts -split-input-file | FileCheck %s

// CHECK-LABEL: func @truncf_scalar
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK: %[[BITS:.*]] = arith.bitcast %[[X]] : f32 to i32
// CHECK: arith.shrui
// CHECK: arith.select
// CHECK: %[[CODE:.*]] = arith.trunci %{{.*}} : i32 to i8
// CHECK: %[[R:.*]] = arith.bitcast %[[CODE]] : i8 to f8E4M3FN
// CHECK-NOT: arith.truncf
// CHECK: return %[[R]]
func.func @truncf_scalar(%x: f32) -> f8E4M3FN {
  %0 = arith.truncf %x : f32 to f8E4M3FN
  return %0 : f8E4M3FN
}

// -----

// Vectors stay vectors, so loops vectorize.
// CHECK-LABEL: func @truncf_vector
// CHECK: arith.bitcast %{{.*}} : vector<8xbf16> to vector<8xi16>
// CHECK: arith.trunci %{{.*}} : vector<8xi16> to vector<8xi4>
// CHECK: arith.bitcast %{{.*}} : vector<8xi4> to vector<8xf4E2M1FN>
// CHECK-NOT: arith.truncf
func.func @truncf_vector(%x: vector<8xbf16>) -> vector<8xf4E2M1FN> {
  %0 = arith.truncf %x : vector<8xbf16> to vector<8xf4E2M1FN>
  return %0 : vector<8xf4E2M1FN>
}

// -----

// CHECK-LABEL: func @extf
// CHECK: arith.bitcast %{{.*}} : f8E5M2 to i8
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK-NOT: arith.extf %{{.*}} : f8E5M2
func.func @extf(%x: f8E5M2) -> f64 {
  %0 = arith.extf %x : f8E5M2 to f64
  return %0 : f64
}

// -----

// Subnormal narrow values are normalized with a leading-zero count.
// CHECK-LABEL: func @extf_e4m3
// CHECK: math.ctlz
func.func @extf_e4m3(%x: f8E4M3FN) -> f32 {
  %0 = arith.extf %x : f8E4M3FN to f32
  return %0 : f32
}

// -----

// CHECK-LABEL: func @convert_e8m0
// CHECK: arith.bitcast %{{.*}} : tensor<4xf32> to tensor<4xi32>
// CHECK: arith.trunci %{{.*}} : tensor<4xi32> to tensor<4xi8>
// CHECK: arith.bitcast %{{.*}} : tensor<4xi8> to tensor<4xf8E8M0FNU>
// CHECK-NOT: fp8.convert
func.func @convert_e8m0(%x: tensor<4xf32>) -> tensor<4xf8E8M0FNU> {
  %0 = fp8.convert %x rounding <rceil> : tensor<4xf32> to tensor<4xf8E8M0FNU>
  return %0 : tensor<4xf8E8M0FNU>
}

// -----

// Small-float constants become integer constants and a bit cast.
// CHECK-LABEL: func @constants
// CHECK-DAG: arith.constant dense<[56, 126, 127]> : tensor<3xi8>
// CHECK-DAG: arith.constant 60 : i8
// CHECK-DAG: arith.bitcast %{{.*}} : tensor<3xi8> to tensor<3xf8E4M3FN>
// CHECK-DAG: arith.bitcast %{{.*}} : i8 to f8E5M2
// CHECK-NOT: arith.constant {{.*}}f8E
func.func @constants() -> (tensor<3xf8E4M3FN>, f8E5M2) {
  %0 = arith.constant dense<[1.0, 448.0, 0x7F]> : tensor<3xf8E4M3FN>
  %1 = arith.constant 1.0 : f8E5M2
  return %0, %1 : tensor<3xf8E4M3FN>, f8E5M2
}

// -----

// Conversions between wide types are left alone.
// CHECK-LABEL: func @untouched
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: arith.extf %{{.*}} : f16 to f32
func.func @untouched(%x: f32, %y: f16) -> (bf16, f32) {
  %0 = arith.truncf %x : f32 to bf16
  %1 = arith.extf %y : f16 to f32
  return %0, %1 : bf16, f32
}
