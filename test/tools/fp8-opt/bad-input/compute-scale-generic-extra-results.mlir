// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.compute_scale' op result group starting at #1 requires 0 or 1 element, but found 2
// fp8.compute_scale in generic form with three results.

func.func @f(%a: tensor<4x1xf32>) {
  %0:3 = "fp8.compute_scale"(%a) <{format = #fp8.format<e4m3>, rule = #fp8.rule<ratio>}> : (tensor<4x1xf32>) -> (tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return
}
