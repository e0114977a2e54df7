// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// The segment sizes add up, but the required `scale` group is empty.
// CHECK: error: 'fp8.quantize' op requires exactly one `input` operand, got 2
func.func @f(%x: tensor<4x8xf32>, %s: tensor<1x1xf32>) {
  %0 = "fp8.quantize"(%x, %s) <{granularity = #fp8.granularity<tensor>, operandSegmentSizes = array<i32: 2, 0, 0, 0>}> : (tensor<4x8xf32>, tensor<1x1xf32>) -> tensor<4x8xf8E4M3FN>
  return
}
