// RUN: fp8-opt %s -split-input-file -verify-diagnostics

func.func @shape(%q: tensor<4x8xf8E4M3FN>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{result shape [4, 4] must equal [4, 8]}}
  %0 = fp8.dequantize %q, %s by <tensor> : tensor<4x8xf8E4M3FN>, tensor<1x1xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @scale_shape(%q: tensor<256x256xf8E4M3FN>, %s: tensor<2x1xf32>) {
  // expected-error@+1 {{scale shape [2, 1] of the input does not match granularity #fp8.granularity<128x128> on data of shape [256, 256]: expected [2, 2] (ceil(shape / block))}}
  %0 = fp8.dequantize %q, %s by <128x128> : tensor<256x256xf8E4M3FN>, tensor<2x1xf32> -> tensor<256x256xbf16>
  return
}

// -----

func.func @nvfp4_without_global(%q: tensor<16x32xf4E2M1FN>, %s: tensor<16x2xf8E4M3FN>) {
  // expected-error@+1 {{input: f8E4M3FN block scales (NVFP4) need the global f32 scale operand `global(...)`}}
  %0 = fp8.dequantize %q, %s by <1x16> : tensor<16x32xf4E2M1FN>, tensor<16x2xf8E4M3FN> -> tensor<16x32xf32>
  return
}

// -----

func.func @wide_input(%q: tensor<4x8xbf16>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of f8E4M3FN type or f8E5M2 type or f4E2M1FN type or f6E2M3FN type or f6E3M2FN type values, but got 'tensor<4x8xbf16>'}}
  %0 = fp8.dequantize %q, %s by <tensor> : tensor<4x8xbf16>, tensor<1x1xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @narrow_result(%q: tensor<4x8xf8E4M3FN>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{result #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<4x8xf8E5M2>'}}
  %0 = fp8.dequantize %q, %s by <tensor> : tensor<4x8xf8E4M3FN>, tensor<1x1xf32> -> tensor<4x8xf8E5M2>
  return
}

// -----

func.func @unranked(%q: tensor<*xf8E4M3FN>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf8E4M3FN>'}}
  %0 = fp8.dequantize %q, %s by <tensor> : tensor<*xf8E4M3FN>, tensor<1x1xf32> -> tensor<4x8xf32>
  return
}
