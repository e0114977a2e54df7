// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.quantize' op operand count (2) does not match with the total size (3) specified in attribute 'operandSegmentSizes'
// fp8.quantize in generic form with operandSegmentSizes that add up to more operands than it has.

func.func @f(%x: tensor<4x8xf32>, %s: tensor<1x1xf32>) {
  %0 = "fp8.quantize"(%x, %s) <{granularity = #fp8.granularity<tensor>, operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (tensor<4x8xf32>, tensor<1x1xf32>) -> tensor<4x8xf8E4M3FN>
  return
}
