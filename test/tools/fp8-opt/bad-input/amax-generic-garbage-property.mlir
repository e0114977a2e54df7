// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: invalid properties
// CHECK: Invalid attribute `granularity` in property conversion: 42 : i64
// fp8.amax in generic form with an integer where the granularity goes.

func.func @f(%x: tensor<4x8xf32>) -> tensor<1x1xf32> {
  %0 = "fp8.amax"(%x) <{granularity = 42 : i64}> : (tensor<4x8xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}
