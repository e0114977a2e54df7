// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.quantize' op expected 2 or more operands, but found 1
// fp8.quantize in generic form without its scale operand.

func.func @f(%x: tensor<4x8xf32>) {
  %0 = "fp8.quantize"(%x) <{granularity = #fp8.granularity<tensor>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (tensor<4x8xf32>) -> tensor<4x8xf8E4M3FN>
  return
}
