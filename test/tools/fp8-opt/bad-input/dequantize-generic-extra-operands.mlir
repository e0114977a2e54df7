// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.dequantize' op operand group starting at #2 requires 0 or 1 element, but found 2
// fp8.dequantize in generic form with two operands too many.

func.func @f(%q: tensor<4x8xf8E4M3FN>, %s: tensor<1x1xf32>) {
  %0 = "fp8.dequantize"(%q, %s, %s, %s) <{granularity = #fp8.granularity<tensor>}> : (tensor<4x8xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<4x8xf32>
  return
}
