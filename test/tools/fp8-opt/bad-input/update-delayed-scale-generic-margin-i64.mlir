// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.update_delayed_scale' op attribute 'margin' failed to satisfy constraint: 32-bit signless integer attribute
// fp8.update_delayed_scale in generic form with an i64 margin (it is i32).

func.func @f(%h: tensor<16xf32>, %s: tensor<1xf32>) {
  %0:3 = "fp8.update_delayed_scale"(%h, %s, %s) <{format = #fp8.format<e4m3>, margin = 1 : i64}> : (tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<16xf32>, tensor<1xf32>, tensor<1xf32>)
  return
}
