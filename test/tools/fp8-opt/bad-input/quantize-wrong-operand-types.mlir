// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.quantize' op operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<4x8xf8E4M3FN>'
// fp8.quantize in generic form with a narrow input and an integer scale.

func.func @f(%x: tensor<4x8xf8E4M3FN>, %s: tensor<1x1xi32>) {
  %0 = "fp8.quantize"(%x, %s) <{granularity = #fp8.granularity<tensor>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (tensor<4x8xf8E4M3FN>, tensor<1x1xi32>) -> tensor<4x8xf8E4M3FN>
  return
}
