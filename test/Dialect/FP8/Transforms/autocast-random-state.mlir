// RUN: fp8-opt %s -split-input-file --fp8-autocast=recipe=nvfp4 | FileCheck %s
// RUN: fp8-opt %s -split-input-file --fp8-autocast="recipe=nvfp4 random-state=false" | FileCheck %s --check-prefix=FIXED

// The random words of NVFP4's stochastically rounded gradient read a call
// counter, the function's global, which moves the hash's stream by
// 0x27D4EB2F (668265263) per call; the function stores it advanced by one
// before it returns. random-state=false: no counter, the same bits on every
// call.
// CHECK: ml_program.global private mutable @__fp8_rng_dgrad(dense<0> : tensor<1xi32>) : tensor<1xi32>
// CHECK-LABEL: func.func @dgrad(
// CHECK: %[[COUNTER:.*]] = ml_program.global_load @__fp8_rng_dgrad : tensor<1xi32>
// CHECK: %[[BITS:.*]] = tensor.generate
// CHECK:   %[[CALL:.*]] = tensor.extract %[[COUNTER]][%{{.*}}] : tensor<1xi32>
// CHECK:   %[[MOVE:.*]] = arith.muli %[[CALL]], %{{.*}} : i32
// CHECK:   arith.addi %{{.*}}, %[[MOVE]] : i32
// CHECK: fp8.quantize {{.*}} rounding <stochastic> rbits(%[[BITS]] :
// CHECK: %[[BEFORE:.*]] = ml_program.global_load @__fp8_rng_dgrad : tensor<1xi32>
// CHECK: %[[NEXT:.*]] = tensor.generate
// CHECK:   %[[C:.*]] = tensor.extract %[[BEFORE]]
// CHECK:   %[[ONE:.*]] = arith.constant 1 : i32
// CHECK:   arith.addi %[[C]], %[[ONE]] : i32
// CHECK: ml_program.global_store @__fp8_rng_dgrad = %[[NEXT]] : tensor<1xi32>
// CHECK-NEXT: return
// FIXED-NOT: ml_program.global
// FIXED-LABEL: func.func @dgrad(
// FIXED-NOT: ml_program
// FIXED: rounding <stochastic>
// FIXED-NOT: ml_program
// FIXED: return
func.func @dgrad(%dy: tensor<64x32xf32>, %w: tensor<32x128xf32>) -> tensor<64x128xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %c = linalg.matmul {fp8.role = #fp8.gemm_role<dgrad>} ins(%dy, %w : tensor<64x32xf32>, tensor<32x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %c : tensor<64x128xf32>
}

// -----

// A forward GEMM rounds to nearest: no counter.
// CHECK-NOT: __fp8_rng
// CHECK-LABEL: func.func @fprop(
// CHECK-NOT: ml_program
// CHECK: return
func.func @fprop(%x: tensor<64x32xf32>, %w: tensor<32x128xf32>) -> tensor<64x128xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %c = linalg.matmul ins(%x, %w : tensor<64x32xf32>, tensor<32x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %c : tensor<64x128xf32>
}

// -----

// A module that declares the counter owns it: its value is the first call's.
// CHECK: ml_program.global private mutable @__fp8_rng_owned(dense<7> : tensor<1xi32>) : tensor<1xi32>
// CHECK-NOT: ml_program.global
// CHECK-LABEL: func.func @owned(
// CHECK: ml_program.global_load @__fp8_rng_owned
ml_program.global private mutable @__fp8_rng_owned(dense<7> : tensor<1xi32>) : tensor<1xi32>
func.func @owned(%dy: tensor<64x32xf32>, %w: tensor<32x128xf32>) -> tensor<64x128xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %c = linalg.matmul {fp8.role = #fp8.gemm_role<dgrad>} ins(%dy, %w : tensor<64x32xf32>, tensor<32x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %c : tensor<64x128xf32>
}
