// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: expected ')' to end operand list
// Malformed text: a generic fp8 op whose operand list is not closed.

func.func @f(%x: tensor<4x8xf32>) -> tensor<1x1xf32> {
  %0 = "fp8.amax"(%x <{granularity = #fp8.granularity<tensor>}> : (tensor<4x8xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}
