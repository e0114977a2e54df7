// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.scaled_matmul' op attribute 'promote_interval' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative
// fp8.scaled_matmul in generic form with a negative promote_interval.

func.func @f(%a: tensor<4x4xf8E4M3FN>, %s: tensor<1x1xf32>) {
  %0 = "fp8.scaled_matmul"(%a, %a, %s, %s) <{lhs_granularity = #fp8.granularity<tensor>, rhs_granularity = #fp8.granularity<tensor>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0>, promote_interval = -1 : i64}> ({}) : (tensor<4x4xf8E4M3FN>, tensor<4x4xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<4x4xf32>
  return
}
