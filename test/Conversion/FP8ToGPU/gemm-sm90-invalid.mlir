// Scaled GEMMs without an sm_90a kernel are diagnosed at the op, saying what
// the kernels support.
// RUN: fp8-opt %s -split-input-file -verify-diagnostics --convert-fp8-to-gpu=chip=sm_90a -o /dev/null

// Per-tensor scales on one operand, row-wise on the other.
func.func @mixed(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<384x1xf32>) -> tensor<256x384xbf16> {
  // expected-error @below {{no sm_90a kernel scales A by <tensor> and B by <1x*> with 'f32' scales}}
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <1x*>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<384x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

// -----

// Block scales along K every 64 elements: the kernel promotes 32 or 128.
func.func @blocks_64(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x8xf32>, %sb: tensor<384x8xf32>) -> tensor<256x384xbf16> {
  // expected-error @below {{fp8 GPU lowering: block scales along K every 64 elements; the sm_90a GEMM applies blocks of 32 or 128}}
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x64>, <1x64>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x8xf32>, tensor<384x8xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

// -----

// Reciprocal scales fold into per-tensor GEMMs only: here A's single row
// scale is 1 / s, but B is scaled per row.
func.func @reciprocal_rows(%a: tensor<1x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<384x1xf32>) -> tensor<1x384xbf16> {
  %one = arith.constant dense<1.0> : tensor<1x1xf32>
  %inv = arith.divf %one, %sa : tensor<1x1xf32>
  // expected-error @below {{fp8 GPU lowering: reciprocal scales are folded into per-tensor GEMMs only}}
  %c = fp8.scaled_matmul %a, %b scales(%inv, %sb) by(<1x*>, <1x*>) transpose_rhs : tensor<1x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<384x1xf32> -> tensor<1x384xbf16>
  return %c : tensor<1x384xbf16>
}

// -----

// A promotion interval past 2^30 k32 steps: the kernel counts K tiles in 32
// bits, and 2^34 / 4 wrapped to 0 (a remainder by zero that LLVM deleted
// the promotion for).
func.func @huge_promote_interval(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xbf16> {
  // expected-error @below {{fp8 GPU lowering: promote_interval 17179869184: the sm_90a GEMM promotes at least every 1073741824 k32 steps (its K tiles are counted in 32 bits); use 0 to never promote}}
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs promote_interval(17179869184) : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}
