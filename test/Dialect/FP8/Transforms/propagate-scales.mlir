// RUN: fp8-opt %s -split-input-file --fp8-propagate-scales --cse | FileCheck %s

// A per-tensor quantization moves above the head split (expand_shape) and
// the head transpose; the codes move instead, and the scale is reshaped.
// CHECK-LABEL: func.func @heads
// CHECK-SAME: (%[[X:.*]]: tensor<64x128xf32>)
// CHECK: %[[Q:.*]], %[[S:.*]] = fp8.dynamic_quantize %[[X]] by <tensor> rule <ratio> : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<1x1xf32>
// CHECK: %[[QE:.*]] = tensor.expand_shape %[[Q]] {{\[}}[0], [1, 2]] output_shape [64, 4, 32] : tensor<64x128xf8E4M3FN> into tensor<64x4x32xf8E4M3FN>
// CHECK-DAG: %[[QT:.*]] = linalg.transpose ins(%[[QE]] : tensor<64x4x32xf8E4M3FN>) outs(%{{.*}} : tensor<4x64x32xf8E4M3FN>) permutation = [1, 0, 2]
// CHECK-DAG: %[[E:.*]] = tensor.extract %[[S]]
// CHECK-DAG: %[[S3:.*]] = tensor.from_elements %[[E]] : tensor<1x1x1xf32>
// CHECK: return %[[QT]], %[[S3]]
func.func @heads(%x: tensor<64x128xf32>) -> (tensor<4x64x32xf8E4M3FN>, tensor<1x1x1xf32>) {
  %h = tensor.expand_shape %x [[0], [1, 2]] output_shape [64, 4, 32] : tensor<64x128xf32> into tensor<64x4x32xf32>
  %e = tensor.empty() : tensor<4x64x32xf32>
  %t = linalg.transpose ins(%h : tensor<64x4x32xf32>) outs(%e : tensor<4x64x32xf32>) permutation = [1, 0, 2]
  %q, %s = fp8.dynamic_quantize %t by <tensor> rule <ratio> : tensor<4x64x32xf32> -> tensor<4x64x32xf8E4M3FN>, tensor<1x1x1xf32>
  return %q, %s : tensor<4x64x32xf8E4M3FN>, tensor<1x1x1xf32>
}

// -----

// Block scales move through a matrix transpose with the transposed
// granularity; quantizing a tensor and its transpose the same way then
// shares one quantization.
// CHECK-LABEL: func.func @transpose_blocks
// CHECK-SAME: (%[[X:.*]]: tensor<64x128xf32>)
// CHECK: %[[Q:.*]], %[[S:.*]] = fp8.dynamic_quantize %[[X]] by <32x1> rule <e8m0_rceil> : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<2x128xf8E8M0FNU>
// CHECK-NOT: fp8.dynamic_quantize
// CHECK: %[[QT:.*]] = linalg.transpose ins(%[[Q]] : tensor<64x128xf8E4M3FN>) {{.*}} permutation = [1, 0]
// CHECK: %[[ST:.*]] = linalg.transpose ins(%[[S]] : tensor<2x128xf8E8M0FNU>) {{.*}} permutation = [1, 0]
// CHECK: return %[[QT]], %[[ST]], %[[Q]], %[[S]]
func.func @transpose_blocks(%x: tensor<64x128xf32>) -> (tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<64x128xf8E4M3FN>, tensor<2x128xf8E8M0FNU>) {
  %e = tensor.empty() : tensor<128x64xf32>
  %t = linalg.transpose ins(%x : tensor<64x128xf32>) outs(%e : tensor<128x64xf32>) permutation = [1, 0]
  %q, %s = fp8.dynamic_quantize %t by <1x32> rule <e8m0_rceil> : tensor<128x64xf32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>
  %q2, %s2 = fp8.dynamic_quantize %x by <32x1> rule <e8m0_rceil> : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<2x128xf8E8M0FNU>
  return %q, %s, %q2, %s2 : tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<64x128xf8E4M3FN>, tensor<2x128xf8E8M0FNU>
}

// -----

// Delayed scaling's quantize and amax move through a broadcast: the small
// source is quantized and measured once.
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[B:.*]]: tensor<128xf32>, %[[S:.*]]: tensor<1x1xf32>)
// CHECK: %[[S1:.*]] = tensor.from_elements %{{.*}} : tensor<1xf32>
// CHECK: %[[Q:.*]] = fp8.quantize %[[B]], %[[S1]] by <tensor> : tensor<128xf32>, tensor<1xf32> -> tensor<128xf8E5M2>
// CHECK: linalg.broadcast ins(%[[Q]] : tensor<128xf8E5M2>)
// CHECK: fp8.amax %[[B]] by <tensor> : tensor<128xf32> -> tensor<1xf32>
func.func @broadcast(%b: tensor<128xf32>, %s: tensor<1x1xf32>) -> (tensor<64x128xf8E5M2>, tensor<1x1xf32>) {
  %e = tensor.empty() : tensor<64x128xf32>
  %x = linalg.broadcast ins(%b : tensor<128xf32>) outs(%e : tensor<64x128xf32>) dimensions = [0]
  %q = fp8.quantize %x, %s by <tensor> : tensor<64x128xf32>, tensor<1x1xf32> -> tensor<64x128xf8E5M2>
  %a = fp8.amax %x by <tensor> : tensor<64x128xf32> -> tensor<1x1xf32>
  return %q, %a : tensor<64x128xf8E5M2>, tensor<1x1xf32>
}

// -----

// Left in place: block scales across a transpose of other dimensions, a
// block-scaled reshape, stochastic rounding, and a row/column pair.
// CHECK-LABEL: func.func @stays
// CHECK: %[[T:.*]] = linalg.transpose
// CHECK-NEXT: fp8.dynamic_quantize %[[T]]
// CHECK-NEXT: %[[C:.*]] = tensor.collapse_shape
// CHECK-NEXT: fp8.dynamic_quantize %[[C]]
// CHECK-NEXT: fp8.quantize %[[T]], {{.*}} rounding <stochastic>
// CHECK: %[[T4:.*]] = linalg.transpose
// CHECK-NEXT: fp8.dynamic_quantize %[[T4]] {{.*}} colwise
func.func @stays(%x: tensor<2x64x32xf32>, %r: tensor<64x2x32xi32>, %s: tensor<1x1x1xf32>) -> (tensor<64x2x32xf8E4M3FN>, tensor<128x32xf8E4M3FN>, tensor<64x2x32xf8E5M2>, tensor<32x64xf8E4M3FN>) {
  %e = tensor.empty() : tensor<64x2x32xf32>
  %t = linalg.transpose ins(%x : tensor<2x64x32xf32>) outs(%e : tensor<64x2x32xf32>) permutation = [1, 0, 2]
  %q, %qs = fp8.dynamic_quantize %t by <1x32> rule <e8m0_rceil> : tensor<64x2x32xf32> -> tensor<64x2x32xf8E4M3FN>, tensor<64x2x1xf8E8M0FNU>
  %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x64x32xf32> into tensor<128x32xf32>
  %q2, %qs2 = fp8.dynamic_quantize %c by <1x32> rule <e8m0_rceil> : tensor<128x32xf32> -> tensor<128x32xf8E4M3FN>, tensor<128x1xf8E8M0FNU>
  %t3 = linalg.transpose ins(%x : tensor<2x64x32xf32>) outs(%e : tensor<64x2x32xf32>) permutation = [1, 0, 2]
  %q3 = fp8.quantize %t3, %s by <tensor> rounding <stochastic> rbits(%r : tensor<64x2x32xi32>) : tensor<64x2x32xf32>, tensor<1x1x1xf32> -> tensor<64x2x32xf8E5M2>
  %m = tensor.extract_slice %x[0, 0, 0] [1, 64, 32] [1, 1, 1] : tensor<2x64x32xf32> to tensor<64x32xf32>
  %e4 = tensor.empty() : tensor<32x64xf32>
  %t4 = linalg.transpose ins(%m : tensor<64x32xf32>) outs(%e4 : tensor<32x64xf32>) permutation = [1, 0]
  %q4, %s4, %qc4, %sc4 = fp8.dynamic_quantize %t4 by <1x32> colwise <32x1> rule <e8m0_rceil> : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU> colwise tensor<32x64xf8E4M3FN>, tensor<1x64xf8E8M0FNU>
  return %q, %q2, %q3, %q4 : tensor<64x2x32xf8E4M3FN>, tensor<128x32xf8E4M3FN>, tensor<64x2x32xf8E5M2>, tensor<32x64xf8E4M3FN>
}

// -----

// The attention's gradient of a projection, split into heads: its
// token-major transpose is stored anyway (the bias gradient sums its
// columns), so the per-tensor quantization reads that copy where it is
// rather than moving above the transpose, which would add a transpose of
// the codes (and keep fp8-fuse-dynamic-quantize from folding the GEMM's
// transposed copy into a pair).
// CHECK-LABEL: func.func @stored_transpose
// CHECK: %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<2x64x32xf32>)
// CHECK-NEXT: %[[C:.*]] = tensor.collapse_shape %[[T]]
// CHECK-NEXT: fp8.dynamic_quantize %[[C]] by <tensor> rule <ratio> : tensor<64x64xf32>
// CHECK-NOT: linalg.transpose
// CHECK: linalg.reduce ins(%[[C]]
// CHECK-NOT: linalg.transpose
// CHECK: return
func.func @stored_transpose(%x: tensor<2x64x32xf32>) -> (tensor<64x64xf8E5M2>, tensor<1x1xf32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64x2x32xf32>
  %t = linalg.transpose ins(%x : tensor<2x64x32xf32>) outs(%e : tensor<64x2x32xf32>) permutation = [1, 0, 2]
  %c = tensor.collapse_shape %t [[0], [1, 2]] : tensor<64x2x32xf32> into tensor<64x64xf32>
  %q, %s = fp8.dynamic_quantize %c by <tensor> rule <ratio> : tensor<64x64xf32> -> tensor<64x64xf8E5M2>, tensor<1x1xf32>
  %z = tensor.empty() : tensor<64xf32>
  %sum = linalg.reduce ins(%c : tensor<64x64xf32>) outs(%z : tensor<64xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return %q, %s, %sum : tensor<64x64xf8E5M2>, tensor<1x1xf32>, tensor<64xf32>
}

// -----

// The same transpose read only by quantizations: both move above it and
// become one.
// CHECK-LABEL: func.func @quantized_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x64x32xf32>)
// CHECK: fp8.dynamic_quantize %[[X]] by <tensor>
// CHECK-NOT: fp8.dynamic_quantize
// CHECK: fp8.amax %[[X]] by <tensor>
func.func @quantized_transpose(%x: tensor<2x64x32xf32>) -> (tensor<64x64xf8E5M2>, tensor<1x1xf32>, tensor<1x1x1xf32>) {
  %e = tensor.empty() : tensor<64x2x32xf32>
  %t = linalg.transpose ins(%x : tensor<2x64x32xf32>) outs(%e : tensor<64x2x32xf32>) permutation = [1, 0, 2]
  %c = tensor.collapse_shape %t [[0], [1, 2]] : tensor<64x2x32xf32> into tensor<64x64xf32>
  %q, %s = fp8.dynamic_quantize %c by <tensor> rule <ratio> : tensor<64x64xf32> -> tensor<64x64xf8E5M2>, tensor<1x1xf32>
  %a = fp8.amax %t by <tensor> : tensor<64x2x32xf32> -> tensor<1x1x1xf32>
  return %q, %s, %a : tensor<64x64xf8E5M2>, tensor<1x1xf32>, tensor<1x1x1xf32>
}

// -----

// Attention's context merged back into tokens: the batch of GEMMs stores
// its result merged itself on the GPU, so the per-tensor quantization stays
// below the transpose (through the truncation epilogue) instead of adding
// a transpose of its codes.
// CHECK-LABEL: func.func @merged_gemm_heads
// CHECK: %[[P:.*]] = linalg.batch_matmul
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[P]]
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[R]] : tensor<2x64x32xbf16>)
// CHECK-NEXT: %[[C:.*]] = tensor.collapse_shape %[[T]]
// CHECK-NEXT: fp8.dynamic_quantize %[[C]] by <tensor> rule <ratio> : tensor<64x64xbf16>
// CHECK-NOT: linalg.transpose
// CHECK: return
#id3 = affine_map<(b, m, n) -> (b, m, n)>
func.func @merged_gemm_heads(%a: tensor<2x64x64xbf16>, %b: tensor<2x64x32xbf16>) -> (tensor<64x64xf8E4M3FN>, tensor<1x1xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x64x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x64x32xf32>) -> tensor<2x64x32xf32>
  %p = linalg.batch_matmul ins(%a, %b : tensor<2x64x64xbf16>, tensor<2x64x32xbf16>) outs(%init : tensor<2x64x32xf32>) -> tensor<2x64x32xf32>
  %e16 = tensor.empty() : tensor<2x64x32xbf16>
  %r = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%p : tensor<2x64x32xf32>) outs(%e16 : tensor<2x64x32xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %y = arith.truncf %x : f32 to bf16
    linalg.yield %y : bf16
  } -> tensor<2x64x32xbf16>
  %et = tensor.empty() : tensor<64x2x32xbf16>
  %t = linalg.transpose ins(%r : tensor<2x64x32xbf16>) outs(%et : tensor<64x2x32xbf16>) permutation = [1, 0, 2]
  %c = tensor.collapse_shape %t [[0], [1, 2]] : tensor<64x2x32xbf16> into tensor<64x64xbf16>
  %q, %s = fp8.dynamic_quantize %c by <tensor> rule <ratio> : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<1x1xf32>
  return %q, %s : tensor<64x64xf8E4M3FN>, tensor<1x1xf32>
}

// -----

// Heads of 8 merged into rows of 72 codes: the quantizations stay below the
// reshape, where their kernels pad the rows they write to 16 bytes (a GEMM
// reading them along K needs that); reshaped codes would have rows 72 bytes
// apart. Their amax still moves. Rows of 80 codes move as before.
// CHECK-LABEL: func.func @unpadded_rows
// CHECK-SAME: (%[[X:.*]]: tensor<9x64x8xbf16>, %[[Y:.*]]: tensor<10x64x8xbf16>, %[[S:.*]]: tensor<1x1xf32>)
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<9x64x8xbf16>)
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[T]] {{\[}}[0], [1, 2]] : tensor<64x9x8xbf16> into tensor<64x72xbf16>
// CHECK: fp8.dynamic_quantize %[[C]] by <tensor> rule <ratio> : tensor<64x72xbf16>
// CHECK: fp8.quantize %[[C]], %[[S]] by <tensor> : tensor<64x72xbf16>, tensor<1x1xf32> -> tensor<64x72xf8E4M3FN>
// CHECK: fp8.amax %[[X]] by <tensor> : tensor<9x64x8xbf16>
// CHECK: fp8.dynamic_quantize %[[Y]] by <tensor> rule <ratio> : tensor<10x64x8xbf16>
func.func @unpadded_rows(%x: tensor<9x64x8xbf16>, %y: tensor<10x64x8xbf16>, %scale: tensor<1x1xf32>)
    -> (tensor<64x72xf8E5M2>, tensor<1x1xf32>, tensor<64x72xf8E4M3FN>, tensor<64x80xf8E5M2>, tensor<1x1xf32>, tensor<1x1xf32>) {
  %e = tensor.empty() : tensor<64x9x8xbf16>
  %t = linalg.transpose ins(%x : tensor<9x64x8xbf16>) outs(%e : tensor<64x9x8xbf16>) permutation = [1, 0, 2]
  %c = tensor.collapse_shape %t [[0], [1, 2]] : tensor<64x9x8xbf16> into tensor<64x72xbf16>
  %q, %s = fp8.dynamic_quantize %c by <tensor> rule <ratio> : tensor<64x72xbf16> -> tensor<64x72xf8E5M2>, tensor<1x1xf32>
  %q2 = fp8.quantize %c, %scale by <tensor> : tensor<64x72xbf16>, tensor<1x1xf32> -> tensor<64x72xf8E4M3FN>
  %a = fp8.amax %c by <tensor> : tensor<64x72xbf16> -> tensor<1x1xf32>
  %e2 = tensor.empty() : tensor<64x10x8xbf16>
  %t2 = linalg.transpose ins(%y : tensor<10x64x8xbf16>) outs(%e2 : tensor<64x10x8xbf16>) permutation = [1, 0, 2]
  %c2 = tensor.collapse_shape %t2 [[0], [1, 2]] : tensor<64x10x8xbf16> into tensor<64x80xbf16>
  %q3, %s3 = fp8.dynamic_quantize %c2 by <tensor> rule <ratio> : tensor<64x80xbf16> -> tensor<64x80xf8E5M2>, tensor<1x1xf32>
  return %q, %s, %q2, %q3, %s3, %a : tensor<64x72xf8E5M2>, tensor<1x1xf32>, tensor<64x72xf8E4M3FN>, tensor<64x80xf8E5M2>, tensor<1x1xf32>, tensor<1x1xf32>
}
