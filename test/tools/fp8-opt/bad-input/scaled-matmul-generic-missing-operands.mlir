// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.scaled_matmul' op expected 4 or more operands, but found 2
// fp8.scaled_matmul in generic form without its scale operands.

func.func @f(%a: tensor<4x4xf8E4M3FN>) {
  %0 = "fp8.scaled_matmul"(%a, %a) <{lhs_granularity = #fp8.granularity<tensor>, rhs_granularity = #fp8.granularity<tensor>, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0>}> ({}) : (tensor<4x4xf8E4M3FN>, tensor<4x4xf8E4M3FN>) -> tensor<4x4xf32>
  return
}
