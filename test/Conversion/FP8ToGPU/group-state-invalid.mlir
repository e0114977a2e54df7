// RUN: fp8-opt %s -split-input-file --fp8-gpu-pipeline="chip=sm_90a ptxas=none" -verify-diagnostics -o /dev/null

// Groups must run along the last dimension.
func.func @square_groups(%x: tensor<128x256xf32>) -> (tensor<128x256xf8E4M3FN>, tensor<2x2xf32>, tensor<2x2xi8>) {
  // expected-error @+1 {{fp8 GPU lowering: 'fp8.expand_quantize' has no kernel: its groups must run along the last dimension of a static shape}}
  %q, %a, %j = fp8.expand_quantize %x by <64x128> : tensor<128x256xf32> -> tensor<128x256xf8E4M3FN>, tensor<2x2xf32>, tensor<2x2xi8>
  return %q, %a, %j : tensor<128x256xf8E4M3FN>, tensor<2x2xf32>, tensor<2x2xi8>
}

// -----

// Groups of at most 512 elements (16 per lane of the warp that owns one).
func.func @long_groups(%x: tensor<4x2048xf32>) -> (tensor<4x2048xf8E4M3FN>, tensor<4x2xf32>, tensor<4x2xi8>) {
  // expected-error @+1 {{fp8 GPU lowering: 'fp8.expand_quantize' has no kernel: its groups of 1024 elements are longer than 512}}
  %q, %a, %j = fp8.expand_quantize %x by <1024> : tensor<4x2048xf32> -> tensor<4x2048xf8E4M3FN>, tensor<4x2xf32>, tensor<4x2xi8>
  return %q, %a, %j : tensor<4x2048xf8E4M3FN>, tensor<4x2xf32>, tensor<4x2xi8>
}
