// The dialect's discardable attributes verify with every allowed kind and
// value, and round-trip.
// RUN: fp8-opt %s | fp8-opt | FileCheck %s

// CHECK: module attributes {fp8.plans = {f = {chip = "sm_90a"}, g = {}}}
module attributes {fp8.plans = {f = {chip = "sm_90a"}, g = {}}} {

// CHECK-LABEL: func.func @marks
func.func @marks(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK: {fp8.autocast, fp8.grad_operand = 1 : i64, fp8.name = "layer0.fc1", fp8.role = #fp8.gemm_role<dgrad>}
  %0 = arith.negf %a {fp8.role = #fp8.gemm_role<dgrad>, fp8.grad_operand = 1, fp8.name = "layer0.fc1", fp8.autocast} : tensor<4x8xf32>
  // CHECK: {fp8.grad_operand = 0 : index, fp8.role = #fp8.gemm_role<wgrad>}
  %1 = arith.negf %0 {fp8.role = #fp8.gemm_role<wgrad>, fp8.grad_operand = 0 : index} : tensor<4x8xf32>
  // CHECK: {fp8.unit_dim = 0 : i64, fp8.unit_op = "softmax_grad"}
  %2 = arith.negf %1 {fp8.unit_op = "softmax_grad", fp8.unit_dim = 0} : tensor<4x8xf32>
  // CHECK: {fp8.unit_scale = -5.000000e-01 : f32, fp8.unit_scaled}
  %3 = arith.negf %2 {fp8.unit_scale = -0.5 : f32, fp8.unit_scaled} : tensor<4x8xf32>
  // CHECK: {fp8.residual_tau = 2.500000e-01 : f64, fp8.unit_op = "residual"}
  %4 = arith.addf %3, %a {fp8.unit_op = "residual", fp8.residual_tau = 0.25} : tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}

}
