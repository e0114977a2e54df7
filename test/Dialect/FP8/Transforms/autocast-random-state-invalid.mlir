// RUN: fp8-opt %s --fp8-autocast=recipe=nvfp4 -verify-diagnostics -o /dev/null

// A global of the counter's name but another type is refused.
// expected-error @below {{fp8-autocast: '@__fp8_rng_dgrad' is the call counter of @dgrad's stochastic rounding and must be a mutable ml_program.global of type 'tensor<1xi32>'}}
ml_program.global private mutable @__fp8_rng_dgrad(dense<0> : tensor<1xi64>) : tensor<1xi64>
func.func @dgrad(%dy: tensor<64x32xf32>, %w: tensor<32x128xf32>) -> tensor<64x128xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %c = linalg.matmul {fp8.role = #fp8.gemm_role<dgrad>} ins(%dy, %w : tensor<64x32xf32>, tensor<32x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %c : tensor<64x128xf32>
}
