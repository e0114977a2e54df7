// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.scaled_matmul' op requires exactly one `lhs_scale` operand, got 2
func.func @f(%a: tensor<4x4xf8E4M3FN>, %s: tensor<1x1xf32>) {
  %0 = "fp8.scaled_matmul"(%a, %a, %s, %s) <{lhs_granularity = #fp8.granularity<tensor>, rhs_granularity = #fp8.granularity<tensor>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0>}> ({}) : (tensor<4x4xf8E4M3FN>, tensor<4x4xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<4x4xf32>
  return
}
