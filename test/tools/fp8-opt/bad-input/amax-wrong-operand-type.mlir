// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.amax' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<4x8xi32>'
// fp8.amax of an integer tensor.

func.func @f(%x: tensor<4x8xi32>) -> tensor<1x1xf32> {
  %0 = "fp8.amax"(%x) <{granularity = #fp8.granularity<tensor>}> : (tensor<4x8xi32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}
