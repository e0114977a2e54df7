// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// The custom form of linalg.batch_matmul casts its operands to the result's
// element type, and upstream's parser crashes where index elements have no
// cast; fp8-opt says why before parsing.
// CHECK: error: 'linalg.batch_matmul' of `index` elements is not supported: its custom form casts operands to the result's element type, which index elements have no cast for; write it as a linalg.generic
// CHECK-NOT: internal error
func.func @f(%a: tensor<2x4x8xf32>, %b: tensor<2x8x4xf32>, %c: tensor<2x4x4xindex>) -> tensor<2x4x4xindex> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%c : tensor<2x4x4xindex>) -> tensor<2x4x4xindex>
  return %r : tensor<2x4x4xindex>
}
