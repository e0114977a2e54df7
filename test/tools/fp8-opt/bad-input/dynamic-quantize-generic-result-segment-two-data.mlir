// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.dynamic_quantize' op requires exactly one `data` result, got 2
func.func @f(%x: tensor<4x8xbf16>) {
  %0:2 = "fp8.dynamic_quantize"(%x) <{granularity = #fp8.granularity<tensor>, resultSegmentSizes = array<i32: 2, 0, 0, 0, 0>, rule = #fp8.rule<ratio>}> : (tensor<4x8xbf16>) -> (tensor<4x8xf8E4M3FN>, tensor<4x8xf8E4M3FN>)
  return
}
