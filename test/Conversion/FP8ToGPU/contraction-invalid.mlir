// Contractions left in high precision that the GEMM does not take are named,
// with the reason.
// RUN: fp8-opt %s -split-input-file --convert-fp8-to-gpu=chip=sm_90a -verify-diagnostics

// The GEMM writes A x B; an init that is not zero would have to be added.
func.func @nonzero_init(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @below {{fp8 GPU lowering: 'linalg.matmul' has no kernel: it accumulates into an init that is not zero, and the GEMM writes A x B only}}
  %r = linalg.matmul ins(%a, %b : tensor<64x64xbf16>, tensor<64x64xbf16>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

func.func @mixed_operands(%a: tensor<64x64xbf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  // expected-error @below {{fp8 GPU lowering: 'linalg.matmul' has no kernel: contractions left in high precision multiply two operands of one type, bf16, f16 or f32, into bf16, f16 or f32; FP8 contractions run as fp8.scaled_matmul (fp8-autocast)}}
  %r = linalg.matmul ins(%a, %b : tensor<64x64xbf16>, tensor<64x64xf16>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

// Two reduction dimensions.
func.func @batch_reduce(%a: tensor<4x64x64xbf16>, %b: tensor<4x64x64xbf16>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  // expected-error @below {{fp8 GPU lowering: 'linalg.batch_reduce_matmul' has no kernel: the high-precision GEMM contracts one M, N and K dimension with at most one batch dimension}}
  %r = linalg.batch_reduce_matmul ins(%a, %b : tensor<4x64x64xbf16>, tensor<4x64x64xbf16>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

// TMA reads rows of 16-byte multiples: K = 20 bf16 is 40 bytes.
func.func @ragged_k_rows(%a: tensor<64x20xbf16>, %b: tensor<20x64xbf16>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  // expected-error @below {{fp8 GPU lowering: 'linalg.matmul' has no kernel: TMA reads operand rows of 16-byte multiples, and K = 20 elements of 2 bytes are not}}
  %r = linalg.matmul ins(%a, %b : tensor<64x20xbf16>, tensor<20x64xbf16>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

// N = 12 f16 results are 24 bytes a row.
func.func @ragged_result_rows(%a: tensor<64x64xf16>, %b: tensor<64x12xf16>) -> tensor<64x12xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x12xf16>
  %c = linalg.fill ins(%zero : f16) outs(%e : tensor<64x12xf16>) -> tensor<64x12xf16>
  // expected-error @below {{fp8 GPU lowering: 'linalg.matmul' has no kernel: result rows are 16-byte multiples, and N = 12 elements of 2 bytes are not}}
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x12xf16>) outs(%c : tensor<64x12xf16>) -> tensor<64x12xf16>
  return %r : tensor<64x12xf16>
}

// -----

// The result's dimensions in another order than [M, N].
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (n, m)>
func.func @transposed_result(%x: tensor<64x64xbf16>, %w: tensor<64x32xbf16>) -> tensor<32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  // expected-error @below {{fp8 GPU lowering: 'linalg.generic' has no kernel: the GEMM writes its result as [batch, M, N]; transpose the result after the contraction instead}}
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<64x64xbf16>, tensor<64x32xbf16>) outs(%f : tensor<32x64xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %m = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}
