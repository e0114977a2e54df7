// RUN: fp8-opt %s -split-input-file --fp8-autocast="recipe=mxfp8 fp8-attention=true" | FileCheck %s --check-prefix=MX
// RUN: fp8-opt %s -split-input-file --fp8-autocast="recipe=tensor-current fp8-attention=true" | FileCheck %s --check-prefix=TC
// RUN: fp8-opt %s -split-input-file --fp8-autocast="recipe=deepseek fp8-attention=true" | FileCheck %s --check-prefix=DS
// RUN: fp8-opt %s -split-input-file --fp8-autocast="recipe=nvfp4 fp8-attention=true" | FileCheck %s --check-prefix=NV
// RUN: fp8-opt %s -split-input-file --fp8-autocast=recipe=mxfp8 | FileCheck %s --check-prefix=TE

// MX-LABEL: func @matmul
// MX-DAG: %[[QA:.*]], %[[SA:.*]] = fp8.dynamic_quantize %arg0 by <1x32> rule <e8m0_rceil> : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
// MX-DAG: %[[QB:.*]], %[[SB:.*]] = fp8.dynamic_quantize %arg1 by <32x1> rule <e8m0_rceil> : tensor<128x32xbf16> -> tensor<128x32xf8E4M3FN>, tensor<4x32xf8E8M0FNU>
// MX: %[[C:.*]] = fp8.scaled_matmul %[[QA]], %[[QB]] scales(%[[SA]], %[[SB]]) by(<1x32>, <32x1>) {recipe = #fp8.recipe<mxfp8>, role = #fp8.gemm_role<fprop>}
// MX-SAME: -> tensor<64x32xf32>
// MX-NOT: linalg.matmul
// MX: return %[[C]]
// TC-LABEL: func @matmul
// TC: fp8.dynamic_quantize %{{.*}} by <tensor> rule <ratio>
// TC: fp8.scaled_matmul {{.*}} by(<tensor>, <tensor>)
// DS-LABEL: func @matmul
// DS-DAG: fp8.dynamic_quantize %arg0 by <1x128> rule <pow2>
// DS-DAG: fp8.dynamic_quantize %arg1 by <128x128> rule <pow2>
// NV-LABEL: func @matmul
// NV-DAG: %{{.*}}, %{{.*}}, %[[GA:.*]] = fp8.dynamic_quantize %arg0 by <1x16> rule <nvfp4> : tensor<64x128xbf16> -> tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN> global tensor<1x1xf32>
// NV-DAG: %{{.*}}, %{{.*}}, %[[GB:.*]] = fp8.dynamic_quantize %arg1 by <16x16> rule <nvfp4>
// NV: fp8.scaled_matmul {{.*}} lhs_global(%[[GA]] : tensor<1x1xf32>) rhs_global(%[[GB]] : tensor<1x1xf32>)
func.func @matmul(%a: tensor<64x128xbf16>, %b: tensor<128x32xbf16>) -> tensor<64x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %c = linalg.matmul ins(%a, %b : tensor<64x128xbf16>, tensor<128x32xbf16>) outs(%f : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// B stored [N, K] through linalg.matmul's indexing maps: blocks still run
// along K, and the product is marked transpose_rhs.
// MX-LABEL: func @matmul_transposed_b
// MX: fp8.dynamic_quantize %arg1 by <1x32> rule <e8m0_rceil> : tensor<32x128xf32>
// MX: fp8.scaled_matmul {{.*}} by(<1x32>, <1x32>) transpose_rhs
func.func @matmul_transposed_b(%a: tensor<64x128xf32>, %b: tensor<32x128xf32>) -> tensor<64x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %c = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%a, %b : tensor<64x128xf32>, tensor<32x128xf32>) outs(%f : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// A stored [K, M].
// MX-LABEL: func @matmul_transposed_a
// MX: fp8.dynamic_quantize %arg0 by <32x1> rule <e8m0_rceil> : tensor<128x64xf32>
// MX: fp8.scaled_matmul {{.*}} by(<32x1>, <32x1>) transpose_lhs
func.func @matmul_transposed_a(%a: tensor<128x64xf32>, %b: tensor<128x32xf32>) -> tensor<64x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %c = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%a, %b : tensor<128x64xf32>, tensor<128x32xf32>) outs(%f : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// Batched: one scale per 1x32 block of each batch. Without fp8-attention,
// batched contractions (attention's) stay as they are.
// TE-LABEL: func @batch
// TE-NOT: fp8.
// TE: linalg.batch_matmul
// MX-LABEL: func @batch
// MX: fp8.dynamic_quantize %arg0 by <1x32> rule <e8m0_rceil> : tensor<4x16x64xf32> -> tensor<4x16x64xf8E4M3FN>, tensor<4x16x2xf8E8M0FNU>
// MX: fp8.scaled_matmul {{.*}} -> tensor<4x16x8xf32>
func.func @batch(%a: tensor<4x16x64xf32>, %b: tensor<4x64x8xf32>) -> tensor<4x16x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  %c = linalg.batch_matmul ins(%a, %b : tensor<4x16x64xf32>, tensor<4x64x8xf32>) outs(%f : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  return %c : tensor<4x16x8xf32>
}

// -----

// A generic multiply-accumulate contraction, with bf16 result, into a
// non-zero accumulator: the product is computed in f32 and added to it.
// MX-LABEL: func @generic_accumulate
// MX: %[[P:.*]] = fp8.scaled_matmul {{.*}} -> tensor<16x8xf32>
// MX: linalg.generic {{.*}} ins(%[[P]], %arg2 : tensor<16x8xf32>, tensor<16x8xbf16>)
// MX: arith.extf %{{.*}} : bf16 to f32
// MX: arith.addf
// MX: arith.truncf %{{.*}} : f32 to bf16
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @generic_accumulate(%x: tensor<16x64xbf16>, %w: tensor<64x8xbf16>, %acc: tensor<16x8xbf16>) -> tensor<16x8xbf16> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<16x64xbf16>, tensor<64x8xbf16>) outs(%acc : tensor<16x8xbf16>) {
  ^bb0(%p: bf16, %q: bf16, %o: bf16):
    %m = arith.mulf %p, %q : bf16
    %s = arith.addf %o, %m : bf16
    linalg.yield %s : bf16
  } -> tensor<16x8xbf16>
  return %r : tensor<16x8xbf16>
}

// -----

// One quantization of %x serves both contractions that use it the same way.
// MX-LABEL: func @shared
// MX-COUNT-1: fp8.dynamic_quantize %arg0
// MX-NOT: fp8.dynamic_quantize %arg0
func.func @shared(%x: tensor<16x64xf32>, %w1: tensor<64x8xf32>, %w2: tensor<64x8xf32>) -> (tensor<16x8xf32>, tensor<16x8xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %c1 = linalg.matmul ins(%x, %w1 : tensor<16x64xf32>, tensor<64x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  %c2 = linalg.matmul ins(%x, %w2 : tensor<16x64xf32>, tensor<64x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %c1, %c2 : tensor<16x8xf32>, tensor<16x8xf32>
}
