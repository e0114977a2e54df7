// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: invalid properties
// CHECK: size mismatch in attribute conversion: 2 vs 4
// fp8.quantize in generic form with operandSegmentSizes of the wrong length.

func.func @f(%x: tensor<4x8xf32>, %s: tensor<1x1xf32>) {
  %0 = "fp8.quantize"(%x, %s) <{granularity = #fp8.granularity<tensor>, operandSegmentSizes = array<i32: 1, 1>}> : (tensor<4x8xf32>, tensor<1x1xf32>) -> tensor<4x8xf8E4M3FN>
  return
}
