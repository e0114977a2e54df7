// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.amax' op requires attribute 'granularity'
// fp8.amax in generic form without its required granularity property.

func.func @f(%x: tensor<4x8xf32>) -> tensor<1x1xf32> {
  %0 = "fp8.amax"(%x) : (tensor<4x8xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}
