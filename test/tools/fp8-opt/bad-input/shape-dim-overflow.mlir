// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: invalid dimension
// Absurd shape: a dimension one past INT64_MAX.

func.func @f(%x: tensor<9223372036854775808x2xf32>) -> tensor<1x1xf32> {
  %0 = fp8.amax %x by <tensor> : tensor<9223372036854775808x2xf32> -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}
