// RUN: fp8-opt %s -split-input-file -verify-diagnostics

func.func @static_rule(%a: tensor<1x1xf32>) {
  // expected-error@+1 {{the static rule is a compile-time constant scale; materialize it with arith.constant instead of computing it}}
  %0 = fp8.compute_scale %a rule <static> for <e4m3> : tensor<1x1xf32> -> tensor<1x1xf32>
  return
}

// -----

func.func @nvfp4_needs_e2m1(%a: tensor<1x1xf32>) {
  // expected-error@+1 {{the nvfp4 rule quantizes e2m1 (f4E2M1FN) data only, not e4m3}}
  %0 = fp8.compute_scale %a rule <nvfp4> for <e4m3> : tensor<1x1xf32> -> tensor<1x1xf32>
  return
}

// -----

func.func @shape(%a: tensor<4x4xf32>) {
  // expected-error@+1 {{scale shape [4, 2] must equal [4, 4]}}
  %0 = fp8.compute_scale %a rule <ratio> for <e4m3> : tensor<4x4xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @inv_shape(%a: tensor<4x4xf32>) {
  // expected-error@+1 {{scale_inv shape [1, 1] must equal [4, 4]}}
  %0, %1 = fp8.compute_scale %a rule <ratio> for <e4m3> : tensor<4x4xf32> -> tensor<4x4xf32>, tensor<1x1xf32>
  return
}

// -----

func.func @e8m0_rule_on_f32(%a: tensor<4x4xf32>) {
  // expected-error@+1 {{rule e8m0_rceil produces 'f8E8M0FNU' scales, not 'f32'}}
  %0 = fp8.compute_scale %a rule <e8m0_rceil> for <e4m3> : tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @ratio_on_e8m0(%a: tensor<4x4xf32>) {
  // expected-error@+1 {{rule ratio produces 'f32' scales, not 'f8E8M0FNU'}}
  %0 = fp8.compute_scale %a rule <ratio> for <e4m3> : tensor<4x4xf32> -> tensor<4x4xf8E8M0FNU>
  return
}

// -----

func.func @nvfp4_block_without_global(%a: tensor<4x4xf32>) {
  // expected-error@+1 {{rule nvfp4 produces 'f32' scales, not 'f8E4M3FN' (with `global(...)` it computes f8E4M3FN block scales, without it the f32 global scale)}}
  %0 = fp8.compute_scale %a rule <nvfp4> for <e2m1> : tensor<4x4xf32> -> tensor<4x4xf8E4M3FN>
  return
}

// -----

func.func @global_for_ratio(%a: tensor<4x4xf32>, %g: tensor<1x1xf32>) {
  // expected-error@+1 {{only the nvfp4 rule takes a global scale operand; remove `global(...)`}}
  %0 = fp8.compute_scale %a global(%g : tensor<1x1xf32>) rule <ratio> for <e4m3> : tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @global_not_scalar(%a: tensor<4x4xf32>, %g: tensor<2x1xf32>) {
  // expected-error@+1 {{global scale must hold exactly one element (e.g. tensor<1x1xf32>), got 'tensor<2x1xf32>'}}
  %0 = fp8.compute_scale %a global(%g : tensor<2x1xf32>) rule <nvfp4> for <e2m1> : tensor<4x4xf32> -> tensor<4x4xf8E4M3FN>
  return
}

// -----

func.func @inv_of_e8m0(%a: tensor<4x4xf32>) {
  // expected-error@+1 {{scale_inv exists only for f32 scales; 'f8E8M0FNU' scales are already decode scales}}
  %0, %1 = fp8.compute_scale %a rule <e8m0_floor> for <e4m3> : tensor<4x4xf32> -> tensor<4x4xf8E8M0FNU>, tensor<4x4xf32>
  return
}

// -----

func.func @scale_type_constraint(%a: tensor<4x4xf32>) {
  // expected-error@+1 {{result #0 must be ranked tensor of 32-bit float or f8E8M0FNU type or f8E4M3FN type values, but got 'tensor<4x4xf16>'}}
  %0 = fp8.compute_scale %a rule <ratio> for <e4m3> : tensor<4x4xf32> -> tensor<4x4xf16>
  return
}
