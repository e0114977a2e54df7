// Scaled GEMMs without an sm_100a kernel are diagnosed at the op, saying
// what the kernels support.
// RUN: fp8-opt %s -split-input-file -verify-diagnostics --convert-fp8-to-gpu=chip=sm_100a -o /dev/null

// DeepSeek's f32 1x128 / 128x128 block scales from outside the graph: the
// tensor cores apply only E8M0 (MX) or E4M3 (NVFP4) block scales, the
// sm_100a GEMM has no promotion on the CUDA cores, and nothing says these
// scales are powers of two.
func.func @deepseek(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x4xf32>, %sb: tensor<3x4xf32>) -> tensor<256x384xbf16> {
  // expected-error @below {{fp8 GPU lowering: no sm_100a kernel scales A by <1x128> and B by <128x128> with 'f32' block scales: tcgen05.mma applies block scales of type e8m0 (MXFP8, every 32 elements of K) and e4m3 (NVFP4, every 16) only, and the sm_100a GEMM does not promote partial sums on the CUDA cores; f32 scales become e8m0 exactly when they are powers of two in its range: constants that are, or the scales of quantizations in the graph by rule pow2 with a margin of at most 6 for e4m3 codes or 13 for e5m2, as the deepseek recipe's}}
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x4xf32>, tensor<3x4xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

// -----

// One DeepSeek block spanning K = 128 (a transposed weight of the backward
// pass): block scales still, since B's 128x128 squares are not per column.
// Scales quantized by the ratio rule are not powers of two.
func.func @deepseek_one_block(%x: tensor<256x128xbf16>, %w: tensor<384x128xbf16>) -> tensor<256x384xbf16> {
  %a, %sa = fp8.dynamic_quantize %x by <1x128> rule <ratio> : tensor<256x128xbf16> -> tensor<256x128xf8E4M3FN>, tensor<256x1xf32>
  %b, %sb = fp8.dynamic_quantize %w by <128x128> rule <ratio> : tensor<384x128xbf16> -> tensor<384x128xf8E4M3FN>, tensor<3x1xf32>
  // expected-error @below {{no sm_100a kernel scales A by <1x128> and B by <128x128> with 'f32' block scales}}
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs : tensor<256x128xf8E4M3FN>, tensor<384x128xf8E4M3FN>, tensor<256x1xf32>, tensor<3x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

// -----

// pow2 scales with a margin of 7 for e4m3 codes: the largest amax gives
// s = 1.75 * 2^-127 before truncation, a subnormal that truncates to 0, whose
// reciprocal is infinite (no E8M0 value).
func.func @deepseek_margin(%x: tensor<256x512xbf16>, %w: tensor<384x512xbf16>) -> tensor<256x384xbf16> {
  %a, %sa = fp8.dynamic_quantize %x by <1x128> rule <pow2, margin = 7> : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<256x4xf32>
  %b, %sb = fp8.dynamic_quantize %w by <128x128> rule <pow2> : tensor<384x512xbf16> -> tensor<384x512xf8E4M3FN>, tensor<3x4xf32>
  // expected-error @below {{no sm_100a kernel scales A by <1x128> and B by <128x128> with 'f32' block scales}}
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x4xf32>, tensor<3x4xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

// -----

// The same for e5m2 codes from a margin of 14 (gemm-sm100-pow2.mlir
// compiles 13).
func.func @deepseek_margin_e5m2(%x: tensor<256x512xbf16>, %w: tensor<384x512xbf16>) -> tensor<256x384xbf16> {
  %a, %sa = fp8.dynamic_quantize %x by <1x128> rule <pow2> : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<256x4xf32>
  %b, %sb = fp8.dynamic_quantize %w by <128x128> rule <pow2, margin = 14> : tensor<384x512xbf16> -> tensor<384x512xf8E5M2>, tensor<3x4xf32>
  // expected-error @below {{no sm_100a kernel scales A by <1x128> and B by <128x128> with 'f32' block scales}}
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E5M2>, tensor<256x4xf32>, tensor<3x4xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

// -----

// Constant scales that are not all powers of two.
func.func @deepseek_constant(%x: tensor<256x512xbf16>, %b: tensor<384x512xf8E4M3FN>) -> tensor<256x384xbf16> {
  %a, %sa = fp8.dynamic_quantize %x by <1x128> rule <pow2> : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<256x4xf32>
  %sb = arith.constant dense<[[1.0, 0.75, 2.0, 4.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]> : tensor<3x4xf32>
  // expected-error @below {{no sm_100a kernel scales A by <1x128> and B by <128x128> with 'f32' block scales}}
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x4xf32>, tensor<3x4xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

// -----

// 1x32 blocks with f32 scales.
func.func @blocks_f32(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x16xf32>, %sb: tensor<384x16xf32>) -> tensor<256x384xbf16> {
  // expected-error @below {{no sm_100a kernel scales A by <1x32> and B by <1x32> with 'f32' block scales: tcgen05.mma applies block scales of type e8m0}}
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x16xf32>, tensor<384x16xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

// -----

// B's MX blocks must be rows (1x32) or squares (32x32).
func.func @mx_b_16x32(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x16xf8E8M0FNU>, %sb: tensor<24x16xf8E8M0FNU>) -> tensor<256x384xbf16> {
  // expected-error @below {{no sm_100a kernel scales A by <1x32> and B by <16x32> with 'f8E8M0FNU' scales}}
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <16x32>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>, tensor<24x16xf8E8M0FNU> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

// -----

// kind::mxf8f6f4 scales blocks of 32: E8M0 scales every 64 elements are not
// a tcgen05 block size.
func.func @mx_64(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x8xf8E8M0FNU>, %sb: tensor<384x8xf8E8M0FNU>) -> tensor<256x384xbf16> {
  // expected-error @below {{fp8 GPU lowering: kind::mxf8f6f4 applies e8m0 scales to blocks of 32 elements of K, not e8m0 scales every 64}}
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x64>, <1x64>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x8xf8E8M0FNU>, tensor<384x8xf8E8M0FNU> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

// -----

// E8M0 scales every 16 elements on 8-bit operands (the chip's layout
// legality, checked first).
func.func @mx_16(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x32xf8E8M0FNU>, %sb: tensor<384x32xf8E8M0FNU>) -> tensor<256x384xbf16> {
  // expected-error @below {{operand A has a new scale every 16 elements of K (granularity <1x16>); sm_100a applies 'f8E8M0FNU' scales to whole blocks of 32 elements of K}}
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x16>, <1x16>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x32xf8E8M0FNU>, tensor<384x32xf8E8M0FNU> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

// -----

// E2M1 operands without block scales.
func.func @fp4_tensor(%a: tensor<256x512xf4E2M1FN>, %b: tensor<384x512xf4E2M1FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xbf16> {
  // expected-error @below {{fp8 GPU lowering: e2m1 operands need block scales (NVFP4 1x16 / 16x16 with e4m3 scales, or MXFP4 1x32 with e8m0)}}
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<256x512xf4E2M1FN>, tensor<384x512xf4E2M1FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

// -----

// NVFP4 E4M3 scales every 32 elements (a block16 kind).
func.func @nvfp4_32(%qa: tensor<256x512xf4E2M1FN>, %sa: tensor<256x16xf8E4M3FN>, %qb: tensor<384x512xf4E2M1FN>, %sb: tensor<384x16xf8E4M3FN>, %ga: tensor<1x1xf32>, %gb: tensor<1x1xf32>) -> tensor<256x384xf32> {
  // expected-error @below {{e2m1 operands take e4m3 scales every 16 elements of K (NVFP4) or e8m0 scales every 32 (MXFP4), not e4m3 scales every 32}}
  %c = fp8.scaled_matmul %qa, %qb scales(%sa, %sb) by(<1x32>, <1x32>) lhs_global(%ga : tensor<1x1xf32>) rhs_global(%gb : tensor<1x1xf32>) transpose_rhs : tensor<256x512xf4E2M1FN>, tensor<384x512xf4E2M1FN>, tensor<256x16xf8E4M3FN>, tensor<384x16xf8E4M3FN> -> tensor<256x384xf32>
  return %c : tensor<256x384xf32>
}

// -----

// An MN-major B: the kernel reads K-major operands only, and the lowering
// makes no copy of its own (fp8-legalize-layout decides layouts).
func.func @mn_major_argument(%a: tensor<256x512xf8E4M3FN>, %b: tensor<512x384xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xbf16> {
  // expected-error @below {{operand B is stored [K = 512, N = 384] (N-major), but the sm_100a GEMM reads f8E4M3FN operands K-major only (tcgen05.mma could read them MN-major through the instruction descriptor's transpose bits, which are not generated); run fp8-legalize-layout=chip=sm_100a first}}
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) : tensor<256x512xf8E4M3FN>, tensor<512x384xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

// -----

// Per-tensor scales on one operand, row-wise on the other.
func.func @mixed(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<384x1xf32>) -> tensor<256x384xbf16> {
  // expected-error @below {{no sm_100a kernel scales A by <tensor> and B by <1x*> with 'f32' scales}}
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <1x*>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<384x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}
