// Framework-style bf16 programs for fp8-gpu-pipeline: ragged M, N and K (K = 136
// is not a multiple of 16: the quantization pads rows for TMA), a chain
// whose second GEMM quantizes the first's result, and a weight stored [N, K].
func.func @mlp(%x: tensor<200x320xbf16>, %w1: tensor<320x136xbf16>, %w2: tensor<136x96xbf16>) -> tensor<200x96xf32> {
  %z = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<200x136xbf16>
  %f = linalg.fill ins(%z : bf16) outs(%e : tensor<200x136xbf16>) -> tensor<200x136xbf16>
  %h = linalg.matmul ins(%x, %w1 : tensor<200x320xbf16>, tensor<320x136xbf16>) outs(%f : tensor<200x136xbf16>) -> tensor<200x136xbf16>
  %z32 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<200x96xf32>
  %f2 = linalg.fill ins(%z32 : f32) outs(%e2 : tensor<200x96xf32>) -> tensor<200x96xf32>
  %y = linalg.matmul ins(%h, %w2 : tensor<200x136xbf16>, tensor<136x96xbf16>) outs(%f2 : tensor<200x96xf32>) -> tensor<200x96xf32>
  return %y : tensor<200x96xf32>
}
func.func @linear_t(%x: tensor<77x256xbf16>, %w: tensor<48x256xbf16>) -> tensor<77x48xbf16> {
  %z = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<77x48xbf16>
  %f = linalg.fill ins(%z : bf16) outs(%e : tensor<77x48xbf16>) -> tensor<77x48xbf16>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w : tensor<77x256xbf16>, tensor<48x256xbf16>) outs(%f : tensor<77x48xbf16>) -> tensor<77x48xbf16>
  return %y : tensor<77x48xbf16>
}
