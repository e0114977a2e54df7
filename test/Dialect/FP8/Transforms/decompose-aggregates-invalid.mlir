// RUN: fp8-opt %s --fp8-decompose-aggregates -verify-diagnostics -o /dev/null

// Softmax of integers: upstream's decomposition builds -inf and exp, and
// crashes on them; the pass says why.
func.func @softmax_of_integers(%x: tensor<2x8xi8>) -> tensor<2x8xi8> {
  %e = tensor.empty() : tensor<2x8xi8>
  // expected-error @below {{fp8-decompose-aggregates: linalg.softmax of 'i8' elements; softmax is defined on floats}}
  %s = linalg.softmax dimension(1) ins(%x : tensor<2x8xi8>) outs(%e : tensor<2x8xi8>) -> tensor<2x8xi8>
  return %s : tensor<2x8xi8>
}
