// RUN: fp8-opt %s --fp8-legalize-layout=chip=sm_100a | FileCheck %s

// NVFP4 on Blackwell: E2M1 operands must be K-major (kind::mxf4nvf4 has no
// transpose), so the 16x16-block weight stored [K, N] is copied, E4M3 scales
// and all.
// CHECK-LABEL: func.func @nvfp4
// CHECK: %[[QT:.*]] = linalg.transpose ins(%arg2 : tensor<64x32xf4E2M1FN>)
// CHECK: %[[ST:.*]] = linalg.transpose ins(%arg3 : tensor<4x2xf8E4M3FN>)
// CHECK: fp8.scaled_matmul %arg0, %[[QT]] scales(%arg1, %[[ST]]) by(<1x16>, <16x16>) lhs_global(%arg4 : tensor<1x1xf32>) rhs_global(%arg5 : tensor<1x1xf32>) transpose_rhs
func.func @nvfp4(%qa: tensor<16x64xf4E2M1FN>, %sa: tensor<16x4xf8E4M3FN>, %qb: tensor<64x32xf4E2M1FN>, %sb: tensor<4x2xf8E4M3FN>, %ga: tensor<1x1xf32>, %gb: tensor<1x1xf32>) -> tensor<16x32xf32> {
  %c = fp8.scaled_matmul %qa, %qb scales(%sa, %sb) by(<1x16>, <16x16>) lhs_global(%ga : tensor<1x1xf32>) rhs_global(%gb : tensor<1x1xf32>) : tensor<16x64xf4E2M1FN>, tensor<64x32xf4E2M1FN>, tensor<16x4xf8E4M3FN>, tensor<4x2xf8E4M3FN> -> tensor<16x32xf32>
  return %c : tensor<16x32xf32>
}
