// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: custom op 'fp8.compute_scale' eps must be a finite value >= 0
// A NaN eps in #fp8.rule (given as f32 bits).

func.func @f(%a: tensor<1x1xf32>) {
  %0 = fp8.compute_scale %a rule <ratio, eps = 0x7FC00000> for <e4m3> : tensor<1x1xf32> -> tensor<1x1xf32>
  return
}
