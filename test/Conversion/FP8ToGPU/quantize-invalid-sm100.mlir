// Quantizations without a GPU kernel are diagnosed at the op.
// RUN: fp8-opt %s -split-input-file -verify-diagnostics --convert-fp8-to-gpu=chip=sm_100a -o /dev/null

// E2M1 codes by given E8M0 scales (MXFP4): only NVFP4's two-level scales
// quantize E2M1.
func.func @mxfp4(%x: tensor<64x128xf32>, %e: tensor<64x4xf8E8M0FNU>) -> tensor<64x128xf4E2M1FN> {
  // expected-error @below {{fp8 GPU lowering: quantizing by <1x32>: only E4M3 and E5M2 codes, and E2M1 with two-level (nvfp4) scales, are quantized by GPU kernels}}
  %q = fp8.quantize %x, %e by <1x32> : tensor<64x128xf32>, tensor<64x4xf8E8M0FNU> -> tensor<64x128xf4E2M1FN>
  return %q : tensor<64x128xf4E2M1FN>
}
