// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// As batch-matmul-index.mlir, for linalg.batch_reduce_matmul (an index
// operand).
// CHECK: error: 'linalg.batch_reduce_matmul' of `index` elements is not supported
// CHECK-NOT: internal error
func.func @f(%a: tensor<2x4x8xindex>, %b: tensor<2x8x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.batch_reduce_matmul ins(%a, %b : tensor<2x4x8xindex>, tensor<2x8x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
