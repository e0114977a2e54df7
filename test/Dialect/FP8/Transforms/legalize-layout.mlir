// RUN: fp8-opt %s -split-input-file --fp8-legalize-layout=chip=sm_90a | FileCheck %s --check-prefix=H
// RUN: fp8-opt %s -split-input-file --fp8-legalize-layout=chip=sm_100a | FileCheck %s --check-prefix=H
// RUN: fp8-opt %s -split-input-file --fp8-legalize-layout=chip=sm_90a \
// RUN:   --remarks-filter=fp8-legalize-layout --remark-format=emitRemark 2>&1 | FileCheck %s --check-prefix=REMARK

// x [M, K] times a weight stored [K, N]: N-major B. The GEMMs of both chips
// read FP8 K-major only (Hopper's wgmma cannot read it otherwise; the
// Blackwell kernel does not set tcgen05's transpose bits), so B gets one
// transposed copy (codes and E8M0 scales, the granularity transposed) shared
// by both GEMMs. legalize-layout-sm100.mlir checks the sm_100a remark.
// H-LABEL: func.func @weight_kn
// H-SAME: (%[[QX:.*]]: tensor<64x128xf8E4M3FN>, %[[SX:.*]]: tensor<64x4xf8E8M0FNU>, %[[QW:.*]]: tensor<128x256xf8E4M3FN>, %[[SW:.*]]: tensor<4x256xf8E8M0FNU>)
// H: %[[QT:.*]] = linalg.transpose ins(%[[QW]] : tensor<128x256xf8E4M3FN>) outs(%{{.*}} : tensor<256x128xf8E4M3FN>) permutation = [1, 0]
// H: %[[ST:.*]] = linalg.transpose ins(%[[SW]] : tensor<4x256xf8E8M0FNU>) outs(%{{.*}} : tensor<256x4xf8E8M0FNU>) permutation = [1, 0]
// H: fp8.scaled_matmul %[[QX]], %[[QT]] scales(%[[SX]], %[[ST]]) by(<1x32>, <1x32>) transpose_rhs : tensor<64x128xf8E4M3FN>, tensor<256x128xf8E4M3FN>
// H-NOT: linalg.transpose
// H: fp8.scaled_matmul %[[QX]], %[[QT]] scales(%[[SX]], %[[ST]]) by(<1x32>, <1x32>) transpose_rhs
// REMARK-COUNT-2: B is stored [K = 128, N = 256] (N-major), but sm_90a wgmma reads f8E4M3FN operands K-major only: inserted a transposed copy of its codes and scales
func.func @weight_kn(%qx: tensor<64x128xf8E4M3FN>, %sx: tensor<64x4xf8E8M0FNU>, %qw: tensor<128x256xf8E4M3FN>, %sw: tensor<4x256xf8E8M0FNU>) -> (tensor<64x256xf32>, tensor<64x256xbf16>) {
  %c = fp8.scaled_matmul %qx, %qw scales(%sx, %sw) by(<1x32>, <32x1>) : tensor<64x128xf8E4M3FN>, tensor<128x256xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<4x256xf8E8M0FNU> -> tensor<64x256xf32>
  %d = fp8.scaled_matmul %qx, %qw scales(%sx, %sw) by(<1x32>, <32x1>) : tensor<64x128xf8E4M3FN>, tensor<128x256xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<4x256xf8E8M0FNU> -> tensor<64x256xbf16>
  return %c, %d : tensor<64x256xf32>, tensor<64x256xbf16>
}

// -----

// A wgrad GEMM dW = x^T dY reads x stored [K = M_tokens, M] (transpose_lhs):
// A is M-major. Per-tensor scales need no transpose.
// H-LABEL: func.func @wgrad
// H: %[[XT:.*]] = linalg.transpose ins(%arg0 : tensor<256x64xf8E4M3FN>)
// H-NOT: linalg.transpose ins(%arg2
// H: fp8.scaled_matmul %[[XT]], %{{.*}} scales(%arg2, %{{.*}}) by(<tensor>, <tensor>) transpose_rhs :
func.func @wgrad(%x: tensor<256x64xf8E4M3FN>, %dy: tensor<32x256xf8E5M2>, %sx: tensor<1x1xf32>, %sdy: tensor<1x1xf32>) -> tensor<64x32xf32> {
  %c = fp8.scaled_matmul %x, %dy scales(%sx, %sdy) by(<tensor>, <tensor>) transpose_lhs transpose_rhs : tensor<256x64xf8E4M3FN>, tensor<32x256xf8E5M2>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}


// -----

// K = 100, not a multiple of 16: A is quantized in the graph (its kernel
// pads its rows to 112 bytes), and B, stored [K, N], is read through the
// K-major copy inserted here, which only the GEMM reads: the layout kernel
// making it pads its rows too (convert-fp8-to-gpu). Accepted.
// H-LABEL: func.func @k_unaligned_copied
// H: %[[QA:.*]], %[[SA:.*]] = fp8.dynamic_quantize
// H: %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<100x32xf8E4M3FN>) outs(%{{.*}} : tensor<32x100xf8E4M3FN>)
// H: fp8.scaled_matmul %[[QA]], %[[T]] {{.*}} transpose_rhs
func.func @k_unaligned_copied(%a: tensor<64x100xbf16>, %b: tensor<100x32xf8E4M3FN>, %s: tensor<1x1xf32>) -> tensor<64x32xf32> {
  %qa, %sa = fp8.dynamic_quantize %a by <tensor> rule <ratio> : tensor<64x100xbf16> -> tensor<64x100xf8E4M3FN>, tensor<1x1xf32>
  %c = fp8.scaled_matmul %qa, %b scales(%sa, %s) by(<tensor>, <tensor>) : tensor<64x100xf8E4M3FN>, tensor<100x32xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
