// Quantizations the quantize kernels do not take are diagnosed at the op.
// RUN: fp8-opt %s -split-input-file -verify-diagnostics --convert-fp8-to-gpu=chip=sm_90a -o /dev/null

// Blocks of two of the four matrices: neither inside one matrix nor across
// all of them.
func.func @blocks_of_some_matrices(%x: tensor<4x64x64xbf16>) -> (tensor<4x64x64xf8E4M3FN>, tensor<2x64x2xf32>) {
  // expected-error @below {{fp8 GPU lowering: the scale blocks of <2x1x32> on [4, 64, 64] span some of its matrices or parts of several; the quantize kernels take blocks inside one matrix or across all of them}}
  %q, %s = fp8.dynamic_quantize %x by <2x1x32> rule <pow2> : tensor<4x64x64xbf16> -> tensor<4x64x64xf8E4M3FN>, tensor<2x64x2xf32>
  return %q, %s : tensor<4x64x64xf8E4M3FN>, tensor<2x64x2xf32>
}

// -----

// Blocks across the batch of half a matrix's rows each.
func.func @blocks_across_parts(%x: tensor<4x64x64xbf16>) -> (tensor<4x64x64xf8E4M3FN>, tensor<1x2x1xf32>) {
  // expected-error @below {{the scale blocks of <4x32x64> on [4, 64, 64] span some of its matrices or parts of several}}
  %q, %s = fp8.dynamic_quantize %x by <4x32x64> rule <pow2> : tensor<4x64x64xbf16> -> tensor<4x64x64xf8E4M3FN>, tensor<1x2x1xf32>
  return %q, %s : tensor<4x64x64xf8E4M3FN>, tensor<1x2x1xf32>
}

// -----

// fp8.amax takes the same matrices.
func.func @amax_of_some_matrices(%x: tensor<4x64x64xf32>) -> tensor<2x1x1xf32> {
  // expected-error @below {{the scale blocks of <2x64x64> on [4, 64, 64] span some of its matrices or parts of several}}
  %a = fp8.amax %x by <2x64x64> : tensor<4x64x64xf32> -> tensor<2x1x1xf32>
  return %a : tensor<2x1x1xf32>
}

// -----

// Transposed copies of more matrices than a grid has rows.
func.func @too_many_matrices(%x: tensor<65536x32x16xbf16>) -> (tensor<65536x16x32xf8E4M3FN>, tensor<65536x16x1xf32>) {
  // expected-error @below {{fp8 GPU lowering: 65536 matrices are quantized one per grid row, of which there are at most 65535}}
  %q, %s = fp8.dynamic_quantize %x by <*x1> rule <pow2> : tensor<65536x32x16xbf16> -> tensor<65536x32x16xf8E4M3FN>, tensor<65536x1x16xf32>
  %e = tensor.empty() : tensor<65536x16x32xf8E4M3FN>
  %t = linalg.transpose ins(%q : tensor<65536x32x16xf8E4M3FN>) outs(%e : tensor<65536x16x32xf8E4M3FN>) permutation = [0, 2, 1]
  %es = tensor.empty() : tensor<65536x16x1xf32>
  %ts = linalg.transpose ins(%s : tensor<65536x1x16xf32>) outs(%es : tensor<65536x16x1xf32>) permutation = [0, 2, 1]
  return %t, %ts : tensor<65536x16x32xf8E4M3FN>, tensor<65536x16x1xf32>
}

// -----

// E2M1 codes by given scales (NVFP4's gradients) need cvt.rn.satfinite.e2m1x2,
// which sm_90a does not have: said here, where the NVPTX backend would abort
// ("Cannot select").
func.func @e2m1_given(%x: tensor<64x128xf32>, %sb: tensor<64x8xf8E4M3FN>, %s: tensor<1x1xf32>) -> tensor<64x128xf4E2M1FN> {
  // expected-error @below {{fp8 GPU lowering: quantization to E2M1 codes (NVFP4) converts with cvt.rn.satfinite.e2m1x2, which only sm_100a has}}
  %q = fp8.quantize %x, %sb by <1x16> global(%s : tensor<1x1xf32>) : tensor<64x128xf32>, tensor<64x8xf8E4M3FN> -> tensor<64x128xf4E2M1FN>
  return %q : tensor<64x128xf4E2M1FN>
}
