// RUN: fp8-opt %s -split-input-file -verify-diagnostics

func.func @too_many_block_dims(%x: tensor<512xf32>) {
  // expected-error@+1 {{granularity #fp8.granularity<1x128> names 2 block dimensions but the input has rank 1; use at most 1 block extents}}
  %0 = fp8.amax %x by <1x128> : tensor<512xf32> -> tensor<4xf32>
  return
}

// -----

func.func @wrong_scale_shape(%x: tensor<256x512xbf16>) {
  // expected-error@+1 {{scale shape [256, 8] of the input does not match granularity #fp8.granularity<1x128> on data of shape [256, 512]: expected [256, 4] (ceil(shape / block))}}
  %0 = fp8.amax %x by <1x128> : tensor<256x512xbf16> -> tensor<256x8xf32>
  return
}

// -----

func.func @ragged_scale_shape(%x: tensor<3x33xf32>) {
  // expected-error@+1 {{expected [3, 2] (ceil(shape / block))}}
  %0 = fp8.amax %x by <1x32> : tensor<3x33xf32> -> tensor<3x1xf32>
  return
}

// -----

func.func @tensor_rank(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{expected [1, 1] (ceil(shape / block))}}
  %0 = fp8.amax %x by <tensor> : tensor<4x8xf32> -> tensor<f32>
  return
}

// -----

func.func @result_not_f32(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{result #0 must be ranked tensor of 32-bit float values, but got 'tensor<1x1xbf16>'}}
  %0 = fp8.amax %x by <tensor> : tensor<4x8xf32> -> tensor<1x1xbf16>
  return
}

// -----

func.func @integer_input(%x: tensor<4x8xi32>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of floating-point values, but got 'tensor<4x8xi32>'}}
  %0 = fp8.amax %x by <tensor> : tensor<4x8xi32> -> tensor<1x1xf32>
  return
}
