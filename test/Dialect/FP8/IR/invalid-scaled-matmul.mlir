// RUN: fp8-opt %s -split-input-file -verify-diagnostics

func.func @rank(%a: tensor<16xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error@+1 {{operands must be matrices of rank 2, or rank 3 with a leading batch dimension; got rank 1}}
  %0 = fp8.scaled_matmul %a, %a scales(%s, %s) by(<tensor>, <tensor>) : tensor<16xf8E4M3FN>, tensor<16xf8E4M3FN>, tensor<1xf32>, tensor<1xf32> -> tensor<16xf32>
  return
}

// -----

func.func @rank_mismatch(%a: tensor<16x32xf8E4M3FN>, %b: tensor<2x32x8xf8E4M3FN>, %s: tensor<1x1xf32>, %t: tensor<1x1x1xf32>) {
  // expected-error@+1 {{lhs, rhs and result must have the same rank, got 2, 3 and 2}}
  %0 = fp8.scaled_matmul %a, %b scales(%s, %t) by(<tensor>, <tensor>) : tensor<16x32xf8E4M3FN>, tensor<2x32x8xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1x1xf32> -> tensor<16x8xf32>
  return
}

// -----

func.func @k_mismatch(%a: tensor<16x32xf8E4M3FN>, %b: tensor<8x64xf8E4M3FN>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{contraction dimensions differ: lhs has K = 32, rhs has K = 64 (stored [N, K])}}
  %0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs : tensor<16x32xf8E4M3FN>, tensor<8x64xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x8xf32>
  return
}

// -----

func.func @k_mismatch_lhs_t(%a: tensor<32x16xf8E4M3FN>, %b: tensor<16x8xf8E4M3FN>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{contraction dimensions differ: lhs has K = 32 (stored [K, M]), rhs has K = 16 (stored [K, N])}}
  %0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_lhs : tensor<32x16xf8E4M3FN>, tensor<16x8xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x8xf32>
  return
}

// -----

func.func @batch_mismatch(%a: tensor<2x16x32xf8E4M3FN>, %b: tensor<3x32x8xf8E4M3FN>, %s: tensor<1x1x1xf32>) {
  // expected-error@+1 {{batch dimensions differ: 2 vs 3}}
  %0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) : tensor<2x16x32xf8E4M3FN>, tensor<3x32x8xf8E4M3FN>, tensor<1x1x1xf32>, tensor<1x1x1xf32> -> tensor<2x16x8xf32>
  return
}

// -----

func.func @result_shape(%a: tensor<16x32xf8E4M3FN>, %b: tensor<32x8xf8E4M3FN>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{result shape [8, 16] must be [16, 8] ([M, N] of the operands)}}
  %0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) : tensor<16x32xf8E4M3FN>, tensor<32x8xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<8x16xf32>
  return
}

// -----

func.func @lhs_scale_shape(%a: tensor<16x256xf8E4M3FN>, %b: tensor<256x8xf8E4M3FN>, %sa: tensor<16x1xf32>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{scale shape [16, 1] of the lhs does not match granularity #fp8.granularity<1x128> on data of shape [16, 256]: expected [16, 2] (ceil(shape / block))}}
  %0 = fp8.scaled_matmul %a, %b scales(%sa, %s) by(<1x128>, <tensor>) : tensor<16x256xf8E4M3FN>, tensor<256x8xf8E4M3FN>, tensor<16x1xf32>, tensor<1x1xf32> -> tensor<16x8xf32>
  return
}

// -----

func.func @rhs_scale_shape_transposed(%a: tensor<16x256xf8E4M3FN>, %b: tensor<8x256xf8E4M3FN>, %sa: tensor<16x8xf8E8M0FNU>, %sb: tensor<8x1xf8E8M0FNU>) {
  // expected-error@+1 {{scale shape [8, 1] of the rhs does not match granularity #fp8.granularity<1x32> on data of shape [8, 256]: expected [8, 8] (ceil(shape / block))}}
  %0 = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) transpose_rhs : tensor<16x256xf8E4M3FN>, tensor<8x256xf8E4M3FN>, tensor<16x8xf8E8M0FNU>, tensor<8x1xf8E8M0FNU> -> tensor<16x8xf32>
  return
}

// -----

func.func @nvfp4_global(%a: tensor<16x32xf4E2M1FN>, %sa: tensor<16x2xf8E4M3FN>, %b: tensor<8x32xf4E2M1FN>, %sb: tensor<8x2xf8E4M3FN>, %g: tensor<1x1xf32>) {
  // expected-error@+1 {{rhs: f8E4M3FN block scales (NVFP4) need the global f32 scale operand `global(...)`}}
  %0 = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x16>, <1x16>) lhs_global(%g : tensor<1x1xf32>) transpose_rhs : tensor<16x32xf4E2M1FN>, tensor<8x32xf4E2M1FN>, tensor<16x2xf8E4M3FN>, tensor<8x2xf8E4M3FN> -> tensor<16x8xf32>
  return
}

// -----

func.func @bias_shape(%a: tensor<16x32xf8E4M3FN>, %b: tensor<32x8xf8E4M3FN>, %s: tensor<1x1xf32>, %bias: tensor<16xf32>) {
  // expected-error@+1 {{bias must be a vector of N = [8] elements, got 'tensor<16xf32>'}}
  %0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) bias(%bias : tensor<16xf32>) : tensor<16x32xf8E4M3FN>, tensor<32x8xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x8xf32>
  return
}

// -----

func.func @narrow_needs_out_scale(%a: tensor<16x32xf8E4M3FN>, %b: tensor<32x8xf8E4M3FN>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{a 'f8E4M3FN' result needs an f32 encode scale: add `out_scale(%s : tensor<1x1xf32>)`}}
  %0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) : tensor<16x32xf8E4M3FN>, tensor<32x8xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x8xf8E4M3FN>
  return
}

// -----

func.func @wide_with_out_scale(%a: tensor<16x32xf8E4M3FN>, %b: tensor<32x8xf8E4M3FN>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{`out_scale` encodes narrow results only; a 'bf16' result takes no output scale}}
  %0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) out_scale(%s : tensor<1x1xf32>) : tensor<16x32xf8E4M3FN>, tensor<32x8xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x8xbf16>
  return
}

// -----

func.func @out_scale_shape(%a: tensor<16x32xf8E4M3FN>, %b: tensor<32x8xf8E4M3FN>, %s: tensor<1x1xf32>, %o: tensor<16x1xf32>) {
  // expected-error@+1 {{out_scale must hold exactly one element (e.g. tensor<1x1xf32>), got 'tensor<16x1xf32>'}}
  %0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) out_scale(%o : tensor<16x1xf32>) : tensor<16x32xf8E4M3FN>, tensor<32x8xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x8xf8E5M2>
  return
}

// -----

func.func @amax_shape(%a: tensor<16x32xf8E4M3FN>, %b: tensor<32x8xf8E4M3FN>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{amax result must hold exactly one element (e.g. tensor<1x1xf32>), got 'tensor<16x1xf32>'}}
  %0, %1 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) : tensor<16x32xf8E4M3FN>, tensor<32x8xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x8xf32>, amax tensor<16x1xf32>
  return
}

// -----

func.func @negative_promote(%a: tensor<16x32xf8E4M3FN>, %b: tensor<32x8xf8E4M3FN>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{attribute 'promote_interval' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) promote_interval(-1) : tensor<16x32xf8E4M3FN>, tensor<32x8xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x8xf32>
  return
}

// -----

func.func @wide_operand(%a: tensor<16x32xbf16>, %b: tensor<32x8xf8E4M3FN>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of f8E4M3FN type or f8E5M2 type or f4E2M1FN type or f6E2M3FN type or f6E3M2FN type values, but got 'tensor<16x32xbf16>'}}
  %0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) : tensor<16x32xbf16>, tensor<32x8xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x8xf32>
  return
}
