// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: invalid properties
// CHECK: size mismatch in attribute conversion: 3 vs 5
// fp8.dynamic_quantize in generic form with resultSegmentSizes of the wrong length.

func.func @f(%x: tensor<4x8xbf16>) {
  %0:2 = "fp8.dynamic_quantize"(%x) <{granularity = #fp8.granularity<tensor>, resultSegmentSizes = array<i32: 1, 1, 1>, rule = #fp8.rule<ratio>}> : (tensor<4x8xbf16>) -> (tensor<4x8xf8E4M3FN>, tensor<1x1xf32>)
  return
}
