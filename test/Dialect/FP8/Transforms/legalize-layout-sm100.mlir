// RUN: fp8-opt %s --fp8-legalize-layout=chip=sm_100a | FileCheck %s
// RUN: fp8-opt %s --fp8-legalize-layout=chip=sm_100a --remarks-filter=fp8-legalize-layout --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

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

// MXFP8 on Blackwell: tcgen05.mma could read the 8-bit weight stored [K, N]
// through the instruction descriptor's transpose bits, but the generated
// GEMM reads K-major operands only, so the layout is decided here, in the
// graph: a transposed copy of the codes and of their E8M0 scales, which the
// quantization of the weight then writes directly (cast+transpose).
// CHECK-LABEL: func.func @mxfp8
// CHECK: %[[QT:.*]] = linalg.transpose ins(%arg2 : tensor<64x48xf8E4M3FN>)
// CHECK: %[[ST:.*]] = linalg.transpose ins(%arg3 : tensor<2x48xf8E8M0FNU>)
// CHECK: fp8.scaled_matmul %arg0, %[[QT]] scales(%arg1, %[[ST]]) by(<1x32>, <1x32>) transpose_rhs
// REMARK: remark: [Missed] copied | Category:fp8-legalize-layout | Function=mxfp8 | Remark="B is stored [K = 64, N = 48] (N-major), but the sm_100a GEMM reads f8E4M3FN operands K-major only (tcgen05.mma could read them MN-major through the instruction descriptor's transpose bits, which are not generated): inserted a transposed copy of its codes and scales"
func.func @mxfp8(%qa: tensor<16x64xf8E4M3FN>, %sa: tensor<16x2xf8E8M0FNU>, %qb: tensor<64x48xf8E4M3FN>, %sb: tensor<2x48xf8E8M0FNU>) -> tensor<16x48xf32> {
  %c = fp8.scaled_matmul %qa, %qb scales(%sa, %sb) by(<1x32>, <32x1>) : tensor<16x64xf8E4M3FN>, tensor<64x48xf8E4M3FN>, tensor<16x2xf8E8M0FNU>, tensor<2x48xf8E8M0FNU> -> tensor<16x48xf32>
  return %c : tensor<16x48xf32>
}
