// Every scaled op gets a remark with its factor.
// RUN: fp8-opt %s --fp8-unit-scale --remarks-filter=fp8-unit-scale \
// RUN:   --remark-format=emitRemark -verify-diagnostics -o /dev/null

func.func @remarks(%x: tensor<8x128xf32>, %w: tensor<128x8xf32>, %c: tensor<8x8xf32>, %d: tensor<?x?xf32>, %v: tensor<?x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<?x8xf32>) {
  // expected-remark @below {{Remark="linalg.matmul (contraction): product scaled by 0.0883883, then added to the init"}}
  %y = linalg.matmul ins(%x, %w : tensor<8x128xf32>, tensor<128x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark @below {{Remark="linalg.softmax (softmax): result scaled by 6.10687"}}
  %s = linalg.softmax dimension(1) ins(%y : tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark @below {{Remark="arith.addf (residual add): result scaled by 0.707107"}}
  %r = arith.addf %y, %s : tensor<8x8xf32>
  // expected-remark @below {{Remark="arith.addf (residual add, tau 2): skip scaled by 0.447214, branch (operand 1) by 0.894427"}}
  %r2 = arith.addf %r, %s {fp8.residual_tau = 2.0} : tensor<8x8xf32>
  %zero = arith.constant 0.0 : f32
  %z = linalg.fill ins(%zero : f32) outs(%v : tensor<?x8xf32>) -> tensor<?x8xf32>
  // expected-remark @below {{Remark="linalg.matmul (contraction): result scaled by 1 / sqrt(n), n computed at run time"}}
  %dy = linalg.matmul ins(%d, %v : tensor<?x?xf32>, tensor<?x8xf32>) outs(%z : tensor<?x8xf32>) -> tensor<?x8xf32>
  // expected-remark @below {{Remark="arith.negf (cross-entropy gradient): result scaled by n / sqrt(n - 1), n computed at run time"}}
  %ce = arith.negf %d {fp8.unit_op = "cross_entropy_grad"} : tensor<?x?xf32>
  return %r, %r2, %dy : tensor<8x8xf32>, tensor<8x8xf32>, tensor<?x8xf32>
}
