// Backward GEMMs: the gradient operand gets the gradient format (E5M2 in the
// HYBRID recipes); in wgrad, weight blocks become 1-D blocks along K; NVFP4
// gradients round stochastically.
// RUN: fp8-opt %s -split-input-file --fp8-autocast=recipe=tensor-current | FileCheck %s --check-prefix=TC
// RUN: fp8-opt %s -split-input-file --fp8-autocast=recipe=deepseek | FileCheck %s --check-prefix=DS
// RUN: fp8-opt %s -split-input-file --fp8-autocast="recipe=nvfp4 seed=7" | FileCheck %s --check-prefix=NV
// RUN: fp8-opt %s -split-input-file --fp8-autocast="recipe=mxfp8 grad-format=e5m2" | FileCheck %s --check-prefix=MX

// dX = dY x W with dY [M, N] and W [N, K].
// TC-LABEL: func @dgrad
// TC-DAG: fp8.dynamic_quantize %arg0 by <tensor> rule <ratio> : tensor<64x32xf32> -> tensor<64x32xf8E5M2>
// TC-DAG: fp8.dynamic_quantize %arg1 by <tensor> rule <ratio> : tensor<32x128xf32> -> tensor<32x128xf8E4M3FN>
// TC: fp8.scaled_matmul {{.*}}role = #fp8.gemm_role<dgrad>
// DS-LABEL: func @dgrad
// DS-DAG: fp8.dynamic_quantize %arg0 by <1x128> rule <pow2> : tensor<64x32xf32> -> tensor<64x32xf8E4M3FN>
// DS-DAG: fp8.dynamic_quantize %arg1 by <128x128> rule <pow2>
// NV-LABEL: func @dgrad
// NV: fp8.dynamic_quantize %arg1 by <16x16> rule <nvfp4>
// NV: tensor.generate
// NV: arith.muli
// NV: fp8.quantize %arg0, %{{.*}} by <1x16> global(%{{.*}} : tensor<1x1xf32>) rounding <stochastic> rbits(%{{.*}} : tensor<64x32xi32>)
// MX-LABEL: func @dgrad
// MX-DAG: fp8.dynamic_quantize %arg0 by <1x32> rule <e8m0_rceil> : tensor<64x32xf32> -> tensor<64x32xf8E5M2>
// MX-DAG: fp8.dynamic_quantize %arg1 by <32x1> rule <e8m0_rceil> : tensor<32x128xf32> -> tensor<32x128xf8E4M3FN>
func.func @dgrad(%dy: tensor<64x32xf32>, %w: tensor<32x128xf32>) -> tensor<64x128xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %c = linalg.matmul {fp8.role = #fp8.gemm_role<dgrad>} ins(%dy, %w : tensor<64x32xf32>, tensor<32x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %c : tensor<64x128xf32>
}

// -----

// dW = X^T x dY with X [M, K] read transposed and dY [M, N]: the gradient is
// the right operand. Neither operand is a weight: 1-D blocks along M.
// TC-LABEL: func @wgrad
// TC-DAG: fp8.dynamic_quantize %arg0 by <tensor> rule <ratio> : tensor<256x64xf32> -> tensor<256x64xf8E4M3FN>
// TC-DAG: fp8.dynamic_quantize %arg1 by <tensor> rule <ratio> : tensor<256x32xf32> -> tensor<256x32xf8E5M2>
// DS-LABEL: func @wgrad
// DS-DAG: fp8.dynamic_quantize %arg0 by <128x1> rule <pow2>
// DS-DAG: fp8.dynamic_quantize %arg1 by <128x1> rule <pow2>
// DS: fp8.scaled_matmul {{.*}} by(<128x1>, <128x1>) transpose_lhs {{.*}}role = #fp8.gemm_role<wgrad>
// NV-LABEL: func @wgrad
// NV-DAG: fp8.dynamic_quantize %arg0 by <16x1> rule <nvfp4>
// NV-DAG: fp8.quantize %arg1, %{{.*}} by <16x1> {{.*}}rounding <stochastic>
func.func @wgrad(%x: tensor<256x64xf32>, %dy: tensor<256x32xf32>) -> tensor<64x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %c = linalg.matmul
      indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
      {fp8.role = #fp8.gemm_role<wgrad>, fp8.grad_operand = 1 : i64}
      ins(%x, %dy : tensor<256x64xf32>, tensor<256x32xf32>) outs(%f : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
