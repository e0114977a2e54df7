// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.amax' op requires a single operand
// fp8.amax in generic form without its operand.

func.func @f() -> tensor<1x1xf32> {
  %0 = "fp8.amax"() <{granularity = #fp8.granularity<tensor>}> : () -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}
