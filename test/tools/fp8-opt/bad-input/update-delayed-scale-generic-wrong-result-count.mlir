// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.update_delayed_scale' op expected 3 results
// fp8.update_delayed_scale in generic form with two results instead of three.

func.func @f(%h: tensor<16xf32>, %s: tensor<1xf32>) {
  %0:2 = "fp8.update_delayed_scale"(%h, %s, %s) <{format = #fp8.format<e4m3>}> : (tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<16xf32>, tensor<1xf32>)
  return
}
