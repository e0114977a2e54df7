// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: invalid properties
// CHECK: Invalid attribute `nan_policy` in property conversion: #fp8.overflow<saturate>
// fp8.amax in generic form with an enum attribute of the wrong kind.

func.func @f(%x: tensor<4x8xf32>) -> tensor<1x1xf32> {
  %0 = "fp8.amax"(%x) <{granularity = #fp8.granularity<tensor>, nan_policy = #fp8.overflow<saturate>}> : (tensor<4x8xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}
