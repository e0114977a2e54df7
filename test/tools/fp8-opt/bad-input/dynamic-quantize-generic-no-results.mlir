// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.dynamic_quantize' op expected 2 or more results
// fp8.dynamic_quantize in generic form without results.

func.func @f(%x: tensor<4x8xbf16>) {
  "fp8.dynamic_quantize"(%x) <{granularity = #fp8.granularity<tensor>, resultSegmentSizes = array<i32: 0, 0, 0, 0, 0>, rule = #fp8.rule<ratio>}> : (tensor<4x8xbf16>) -> ()
  return
}
