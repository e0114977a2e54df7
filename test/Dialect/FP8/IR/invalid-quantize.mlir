// RUN: fp8-opt %s -split-input-file -verify-diagnostics

func.func @shape(%x: tensor<4x8xf32>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{result shape [8, 4] must equal [4, 8]}}
  %0 = fp8.quantize %x, %s by <tensor> : tensor<4x8xf32>, tensor<1x1xf32> -> tensor<8x4xf8E4M3FN>
  return
}

// -----

func.func @scale_shape(%x: tensor<64x128xbf16>, %s: tensor<64x2xf8E8M0FNU>) {
  // expected-error@+1 {{scale shape [64, 2] of the input does not match granularity #fp8.granularity<1x32> on data of shape [64, 128]: expected [64, 4] (ceil(shape / block))}}
  %0 = fp8.quantize %x, %s by <1x32> : tensor<64x128xbf16>, tensor<64x2xf8E8M0FNU> -> tensor<64x128xf8E4M3FN>
  return
}

// -----

func.func @granularity_rank(%x: tensor<64xbf16>, %s: tensor<64xf32>) {
  // expected-error@+1 {{granularity #fp8.granularity<1x*> names 2 block dimensions but the input has rank 1; use at most 1 block extents}}
  %0 = fp8.quantize %x, %s by <1x*> : tensor<64xbf16>, tensor<64xf32> -> tensor<64xf8E4M3FN>
  return
}

// -----

func.func @nvfp4_without_global(%x: tensor<64x128xf32>, %s: tensor<64x8xf8E4M3FN>) {
  // expected-error@+1 {{input: f8E4M3FN block scales (NVFP4) need the global f32 scale operand `global(...)`}}
  %0 = fp8.quantize %x, %s by <1x16> : tensor<64x128xf32>, tensor<64x8xf8E4M3FN> -> tensor<64x128xf4E2M1FN>
  return
}

// -----

func.func @e4m3_scales_for_fp8(%x: tensor<64x128xf32>, %s: tensor<64x8xf8E4M3FN>, %g: tensor<1x1xf32>) {
  // expected-error@+1 {{input: f8E4M3FN block scales (NVFP4) scale f4E2M1FN data only; use f32 or f8E8M0FNU scales for this format}}
  %0 = fp8.quantize %x, %s by <1x16> global(%g : tensor<1x1xf32>) : tensor<64x128xf32>, tensor<64x8xf8E4M3FN> -> tensor<64x128xf8E4M3FN>
  return
}

// -----

func.func @global_without_nvfp4(%x: tensor<64x128xf32>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{input: a global scale is only used with f8E4M3FN block scales (NVFP4); remove it or use f8E4M3FN scales}}
  %0 = fp8.quantize %x, %s by <tensor> global(%s : tensor<1x1xf32>) : tensor<64x128xf32>, tensor<1x1xf32> -> tensor<64x128xf8E4M3FN>
  return
}

// -----

func.func @global_not_scalar(%x: tensor<64x128xf32>, %s: tensor<64x8xf8E4M3FN>, %g: tensor<64x1xf32>) {
  // expected-error@+1 {{input global scale must hold exactly one element (e.g. tensor<1x1xf32>), got 'tensor<64x1xf32>'}}
  %0 = fp8.quantize %x, %s by <1x16> global(%g : tensor<64x1xf32>) : tensor<64x128xf32>, tensor<64x8xf8E4M3FN> -> tensor<64x128xf4E2M1FN>
  return
}

// -----

func.func @stochastic_without_bits(%x: tensor<4x8xf32>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{stochastic rounding needs one i32 random word per element: add `rbits(%bits : tensor<...xi32>)`}}
  %0 = fp8.quantize %x, %s by <tensor> rounding <stochastic> : tensor<4x8xf32>, tensor<1x1xf32> -> tensor<4x8xf8E5M2>
  return
}

// -----

func.func @bits_without_stochastic(%x: tensor<4x8xf32>, %s: tensor<1x1xf32>, %r: tensor<4x8xi32>) {
  // expected-error@+1 {{`rbits` is only used by stochastic rounding; remove it or add `rounding <stochastic>`}}
  %0 = fp8.quantize %x, %s by <tensor> rbits(%r : tensor<4x8xi32>) : tensor<4x8xf32>, tensor<1x1xf32> -> tensor<4x8xf8E5M2>
  return
}

// -----

func.func @bits_shape(%x: tensor<4x8xf32>, %s: tensor<1x1xf32>, %r: tensor<4xi32>) {
  // expected-error@+1 {{rbits shape [4] must equal [4, 8]}}
  %0 = fp8.quantize %x, %s by <tensor> rounding <stochastic> rbits(%r : tensor<4xi32>) : tensor<4x8xf32>, tensor<1x1xf32> -> tensor<4x8xf8E5M2>
  return
}

// -----

func.func @e8m0_result(%x: tensor<4x8xf32>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{result #0 must be ranked tensor of f8E4M3FN type or f8E5M2 type or f4E2M1FN type or f6E2M3FN type or f6E3M2FN type values, but got 'tensor<4x8xf8E8M0FNU>'}}
  %0 = fp8.quantize %x, %s by <tensor> : tensor<4x8xf32>, tensor<1x1xf32> -> tensor<4x8xf8E8M0FNU>
  return
}

// -----

func.func @f64_input(%x: tensor<4x8xf64>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<4x8xf64>'}}
  %0 = fp8.quantize %x, %s by <tensor> : tensor<4x8xf64>, tensor<1x1xf32> -> tensor<4x8xf8E4M3FN>
  return
}

// -----

func.func @f16_scale(%x: tensor<4x8xf32>, %s: tensor<1x1xf16>) {
  // expected-error@+1 {{operand #1 must be ranked tensor of 32-bit float or f8E8M0FNU type or f8E4M3FN type values, but got 'tensor<1x1xf16>'}}
  %0 = fp8.quantize %x, %s by <tensor> : tensor<4x8xf32>, tensor<1x1xf16> -> tensor<4x8xf8E4M3FN>
  return
}

// -----

func.func @rceil_quantize(%x: tensor<4x8xf32>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{rounding rceil applies to f8E8M0FNU scales only; quantize with rne or stochastic}}
  %0 = fp8.quantize %x, %s by <tensor> rounding <rceil> : tensor<4x8xf32>, tensor<1x1xf32> -> tensor<4x8xf8E4M3FN>
  return
}
