// Every verifier error of the dialect's discardable attributes.
// RUN: fp8-opt %s -split-input-file -verify-diagnostics

func.func @role_kind(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'fp8.role' must be a #fp8.gemm_role attribute, got "dgrad"}}
  %0 = arith.negf %a {fp8.role = "dgrad"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @grad_operand_value(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'fp8.grad_operand' must be 0 (the left operand) or 1 (the right operand), got 2 : i64}}
  %0 = arith.negf %a {fp8.grad_operand = 2} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @grad_operand_bool(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'fp8.grad_operand' must be 0 (the left operand) or 1 (the right operand), got true}}
  %0 = arith.negf %a {fp8.grad_operand = true} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @grad_operand_signed(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'fp8.grad_operand' must be 0 (the left operand) or 1 (the right operand), got 1 : si64}}
  %0 = arith.negf %a {fp8.grad_operand = 1 : si64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @name_empty(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'fp8.name' must be a non-empty string, got ""}}
  %0 = arith.negf %a {fp8.name = ""} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @name_kind(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'fp8.name' must be a non-empty string, got 3 : i64}}
  %0 = arith.negf %a {fp8.name = 3} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @autocast_kind(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'fp8.autocast' must be a unit attribute, got true}}
  %0 = arith.negf %a {fp8.autocast = true} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unit_scaled_kind(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'fp8.unit_scaled' must be a unit attribute, got 1 : i64}}
  %0 = arith.negf %a {fp8.unit_scaled = 1} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unit_op_value(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'fp8.unit_op' must be one of gelu, gelu_grad, softmax, softmax_grad, cross_entropy_grad, residual, layernorm_grad, none, got "relu"}}
  %0 = arith.negf %a {fp8.unit_op = "relu"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unit_op_kind(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'fp8.unit_op' must be one of gelu, gelu_grad, softmax, softmax_grad, cross_entropy_grad, residual, layernorm_grad, none, got 3 : i64}}
  %0 = arith.negf %a {fp8.unit_op = 3} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unit_dim_negative(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'fp8.unit_dim' must be a non-negative integer, got -1 : i64}}
  %0 = arith.negf %a {fp8.unit_op = "softmax_grad", fp8.unit_dim = -1} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unit_dim_kind(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'fp8.unit_dim' must be a non-negative integer, got 1.000000e+00 : f64}}
  %0 = arith.negf %a {fp8.unit_op = "softmax_grad", fp8.unit_dim = 1.0} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unit_scale_kind(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'fp8.unit_scale' must be a finite float, got "two"}}
  %0 = arith.negf %a {fp8.unit_scale = "two"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unit_scale_infinite(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'fp8.unit_scale' must be a finite float, got 0x7F800000 : f32}}
  %0 = arith.negf %a {fp8.unit_scale = 0x7F800000 : f32} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @residual_tau_negative(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'fp8.residual_tau' must be a positive finite float, got -2.000000e+00 : f64}}
  %0 = arith.addf %a, %b {fp8.residual_tau = -2.0} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @residual_tau_zero(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'fp8.residual_tau' must be a positive finite float, got 0.000000e+00 : f64}}
  %0 = arith.addf %a, %b {fp8.residual_tau = 0.0} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @residual_tau_kind(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'fp8.residual_tau' must be a positive finite float, got 2 : i64}}
  %0 = arith.addf %a, %b {fp8.residual_tau = 2} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error@+1 {{'fp8.plans' belongs on a builtin.module only}}
func.func @plans_on_function() attributes {fp8.plans = {}} {
  return
}

// -----

// expected-error@+1 {{'fp8.plans' must be a dictionary of launch plans by function name, got ["f"]}}
module attributes {fp8.plans = ["f"]} {
}

// -----

// expected-error@+1 {{'fp8.plans' entry 'f' must be a plan dictionary, got 1 : i64}}
module attributes {fp8.plans = {f = 1}} {
}

// -----

func.func @unknown(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'fp8.grad_operands' is not an attribute of the fp8 dialect}}
  %0 = arith.negf %a {fp8.grad_operands = 1} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error@+1 {{'fp8.prepare_group' must be a non-empty string, got ""}}
func.func @empty_group() attributes {fp8.prepare_group = ""} {
  return
}

// -----

// expected-error@+1 {{'fp8.prepare' must be a flat symbol reference to the prepare function, got "f_prepare"}}
func.func @string_prepare() attributes {fp8.prepare = "f_prepare"} {
  return
}

// -----

func.func @not_a_function(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'fp8.prepare_group' belongs on a function only}}
  %0 = arith.negf %a {fp8.prepare_group = "g"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
