// Attributes of fp8-unit-scale that do not fit their op; the kinds and
// values of the attributes are the dialect verifier's (IR tests).
// RUN: fp8-opt %s -split-input-file --fp8-unit-scale -verify-diagnostics
// RUN: not fp8-opt %s --fp8-unit-scale=residual-tau=0 2>&1 | FileCheck %s --check-prefix=TAU
// RUN: not fp8-opt %s --fp8-unit-scale=residual-tau=-1 2>&1 | FileCheck %s --check-prefix=TAU

// TAU: error: fp8-unit-scale: residual-tau must be positive and finite

func.func @scalar(%a: f32) -> f32 {
  // expected-error @below {{'fp8.unit_op = "gelu_grad"' needs an op with one float tensor result}}
  %0 = arith.negf %a {fp8.unit_op = "gelu_grad"} : f32
  return %0 : f32
}

// -----

func.func @residual(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'fp8.unit_op = "residual"' needs an add of two full-shape tensors}}
  %0 = arith.mulf %a, %a {fp8.unit_op = "residual"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @factor_int(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @below {{'fp8.unit_scale' needs an op with one float tensor result}}
  %0 = arith.addi %a, %a {fp8.unit_scale = 2.0} : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @dim(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{'fp8.unit_dim' 2 is out of range for a result of rank 2}}
  %0 = arith.negf %a {fp8.unit_op = "softmax_grad", fp8.unit_dim = 2} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
