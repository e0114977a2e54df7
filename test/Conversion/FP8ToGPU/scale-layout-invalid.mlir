// The lowering writes block scales in the layout that
// fp8-assign-scale-layouts recorded, and never decides it itself: a layout
// it cannot honour is an error at the quantization or the GEMM.
// RUN: fp8-opt %s -split-input-file -verify-diagnostics --convert-fp8-to-gpu=chip=sm_100a -o /dev/null
// RUN: not fp8-opt %s -split-input-file --convert-fp8-to-gpu=chip=sm_90a -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM90

// SM90: error: fp8 GPU lowering: #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 4> is the scale layout of sm_100a GEMMs; the sm_90a GEMM reads row-major scales

// Scales in the tcgen05 layout read by an op that reads them row-major.
func.func @other_reader(%x: tensor<128x256xbf16>) -> tensor<128x8xf32> {
  // expected-error @below {{fp8 GPU lowering: scales stored in #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 4> are read by 'arith.extf', which reads row-major scales}}
  %q, %s = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil> {scale_layout = #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 4>} : tensor<128x256xbf16> -> tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>
  %f = arith.extf %s : tensor<128x8xf8E8M0FNU> to tensor<128x8xf32>
  return %f : tensor<128x8xf32>
}

// -----

// A stage depth the GEMM does not use (MXFP8 stages hold 4 k-blocks).
func.func @stage_mismatch(%x: tensor<128x256xbf16>, %w: tensor<96x256xbf16>) -> tensor<128x96xf32> {
  %qx, %sx = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil> {scale_layout = #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 8>} : tensor<128x256xbf16> -> tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>
  %qw, %sw = fp8.dynamic_quantize %w by <1x32> rule <e8m0_rceil> : tensor<96x256xbf16> -> tensor<96x256xf8E4M3FN>, tensor<96x8xf8E8M0FNU>
  // expected-error @below {{fp8 GPU lowering: the GEMM reads scales of 128 rows x 8 k-blocks in stages of 4 k-blocks, but their quantization stores them in a tcgen05 layout of 128 x 8 in stages of 8 (its scale_layout)}}
  %c = fp8.scaled_matmul %qx, %qw scales(%sx, %sw) by(<1x32>, <1x32>) transpose_rhs : tensor<128x256xf8E4M3FN>, tensor<96x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>, tensor<96x8xf8E8M0FNU> -> tensor<128x96xf32>
  return %c : tensor<128x96xf32>
}
