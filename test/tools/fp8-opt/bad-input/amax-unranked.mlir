// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: custom op 'fp8.amax' invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'
// fp8.amax of an unranked tensor.

func.func @f(%x: tensor<*xf32>) -> tensor<1x1xf32> {
  %0 = fp8.amax %x by <tensor> : tensor<*xf32> -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}
