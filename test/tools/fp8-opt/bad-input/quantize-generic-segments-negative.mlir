// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.quantize' op 'operandSegmentSizes' attribute cannot have negative elements
// fp8.quantize in generic form with a negative operand segment size.

func.func @f(%x: tensor<4x8xf32>, %s: tensor<1x1xf32>) {
  %0 = "fp8.quantize"(%x, %s) <{granularity = #fp8.granularity<tensor>, operandSegmentSizes = array<i32: 1, 2, -1, 0>}> : (tensor<4x8xf32>, tensor<1x1xf32>) -> tensor<4x8xf8E4M3FN>
  return
}
