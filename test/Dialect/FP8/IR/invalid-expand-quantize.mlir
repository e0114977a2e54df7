// RUN: fp8-opt %s -split-input-file -verify-diagnostics

func.func @data_shape(%x: tensor<4x256xf32>) {
  // expected-error@+1 {{data shape [4, 128] must equal [4, 256]}}
  %q, %a, %j = fp8.expand_quantize %x by <1x128> : tensor<4x256xf32> -> tensor<4x128xf8E4M3FN>, tensor<4x2xf32>, tensor<4x2xi8>
  return
}

// -----

func.func @amax_shape(%x: tensor<4x256xf32>) {
  // expected-error@+1 {{scale shape [4, 1] of the data does not match granularity #fp8.granularity<1x128> on data of shape [4, 256]: expected [4, 2] (ceil(shape / block))}}
  %q, %a, %j = fp8.expand_quantize %x by <1x128> : tensor<4x256xf32> -> tensor<4x256xf8E4M3FN>, tensor<4x1xf32>, tensor<4x2xi8>
  return
}

// -----

func.func @exponent_shape(%x: tensor<4x256xf32>) {
  // expected-error@+1 {{exponent shape [4, 3] must equal [4, 2]}}
  %q, %a, %j = fp8.expand_quantize %x by <1x128> : tensor<4x256xf32> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<4x3xi8>
  return
}

// -----

func.func @limit(%x: tensor<4x256xf32>) {
  // expected-error@+1 {{attribute 'limit' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 8}}
  %q, %a, %j = fp8.expand_quantize %x by <1x128> limit(9) : tensor<4x256xf32> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<4x2xi8>
  return
}

// -----

func.func @fp4_data(%x: tensor<4x256xf32>) {
  // expected-error@+1 {{result #0 must be ranked tensor of f8E4M3FN type or f8E5M2 type values, but got 'tensor<4x256xf4E2M1FN>'}}
  %q, %a, %j = fp8.expand_quantize %x by <1x128> : tensor<4x256xf32> -> tensor<4x256xf4E2M1FN>, tensor<4x2xf32>, tensor<4x2xi8>
  return
}

// -----

func.func @exponent_type(%x: tensor<4x256xf32>) {
  // expected-error@+1 {{result #2 must be ranked tensor of 8-bit signless integer values, but got 'tensor<4x2xi32>'}}
  %q, %a, %j = fp8.expand_quantize %x by <1x128> : tensor<4x256xf32> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<4x2xi32>
  return
}

// -----

func.func @block_rank(%x: tensor<256xf32>) {
  // expected-error@+1 {{granularity #fp8.granularity<1x128> names 2 block dimensions but the data has rank 1; use at most 1 block extents}}
  %q, %a, %j = fp8.expand_quantize %x by <1x128> : tensor<256xf32> -> tensor<256xf8E4M3FN>, tensor<2xf32>, tensor<2xi8>
  return
}

// -----

func.func @too_large(%x: tensor<4611686018427387904x4xf32>) {
  // expected-error@+1 {{tensor type 'tensor<4611686018427387904x4xf32>' is too large: its size in bits overflows a 64-bit integer}}
  %q, %a, %j = fp8.expand_quantize %x by <tensor> : tensor<4611686018427387904x4xf32> -> tensor<4611686018427387904x4xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xi8>
  return
}

// -----

func.func @dequantize_shape(%q: tensor<4x256xf8E4M3FN>, %a: tensor<4x2xf32>, %j: tensor<4x2xi8>) {
  // expected-error@+1 {{result shape [4, 255] must equal [4, 256]}}
  %y = fp8.expand_dequantize %q, %a, %j by <1x128> : tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<4x2xi8> -> tensor<4x255xf32>
  return
}

// -----

func.func @dequantize_amax_shape(%q: tensor<4x256xf8E4M3FN>, %a: tensor<2x2xf32>, %j: tensor<2x2xi8>) {
  // expected-error@+1 {{scale shape [2, 2] of the data does not match granularity #fp8.granularity<1x128> on data of shape [4, 256]: expected [4, 2] (ceil(shape / block))}}
  %y = fp8.expand_dequantize %q, %a, %j by <1x128> : tensor<4x256xf8E4M3FN>, tensor<2x2xf32>, tensor<2x2xi8> -> tensor<4x256xf32>
  return
}

// -----

func.func @dequantize_exponent_shape(%q: tensor<4x256xf8E4M3FN>, %a: tensor<4x2xf32>, %j: tensor<4x1xi8>) {
  // expected-error@+1 {{exponent shape [4, 1] must equal [4, 2]}}
  %y = fp8.expand_dequantize %q, %a, %j by <1x128> : tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<4x1xi8> -> tensor<4x256xf32>
  return
}

// -----

func.func @dequantize_input_type(%q: tensor<4x256xf4E2M1FN>, %a: tensor<4x2xf32>, %j: tensor<4x2xi8>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of f8E4M3FN type or f8E5M2 type values, but got 'tensor<4x256xf4E2M1FN>'}}
  %y = fp8.expand_dequantize %q, %a, %j by <1x128> : tensor<4x256xf4E2M1FN>, tensor<4x2xf32>, tensor<4x2xi8> -> tensor<4x256xf32>
  return
}
