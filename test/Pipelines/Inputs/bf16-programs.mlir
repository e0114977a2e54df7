// Framework-style bf16 programs for fp8-gpu-pipeline: ragged M, N and K (K = 136
// is not a multiple of 16: the quantization pads rows for TMA), a chain
// whose second GEMM quantizes the first's result, a weight stored [N, K], and
// an MLP with a bias add, ReLU and tanh between its GEMMs (elementwise
// kernels).
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
func.func @mlp_act(%x: tensor<200x320xbf16>, %w1: tensor<320x256xbf16>, %b1: tensor<256xbf16>, %w2: tensor<256x96xbf16>) -> tensor<200x96xbf16> {
  %z = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<200x256xbf16>
  %f = linalg.fill ins(%z : bf16) outs(%e : tensor<200x256xbf16>) -> tensor<200x256xbf16>
  %h = linalg.matmul ins(%x, %w1 : tensor<200x320xbf16>, tensor<320x256xbf16>) outs(%f : tensor<200x256xbf16>) -> tensor<200x256xbf16>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%h, %b1 : tensor<200x256xbf16>, tensor<256xbf16>) outs(%e : tensor<200x256xbf16>) {
  ^bb0(%v: bf16, %b: bf16, %o: bf16):
    %s = arith.addf %v, %b : bf16
    %r = arith.maximumf %s, %z : bf16
    linalg.yield %r : bf16
  } -> tensor<200x256xbf16>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<200x256xbf16>) outs(%e : tensor<200x256xbf16>) {
  ^bb0(%v: bf16, %o: bf16):
    %w = arith.extf %v : bf16 to f32
    %t = math.tanh %w : f32
    %n = arith.truncf %t : f32 to bf16
    linalg.yield %n : bf16
  } -> tensor<200x256xbf16>
  %e2 = tensor.empty() : tensor<200x96xbf16>
  %f2 = linalg.fill ins(%z : bf16) outs(%e2 : tensor<200x96xbf16>) -> tensor<200x96xbf16>
  %y = linalg.matmul ins(%g, %w2 : tensor<200x256xbf16>, tensor<256x96xbf16>) outs(%f2 : tensor<200x96xbf16>) -> tensor<200x96xbf16>
  return %y : tensor<200x96xbf16>
}
