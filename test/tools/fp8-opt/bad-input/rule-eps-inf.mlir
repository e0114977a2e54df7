// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: custom op 'fp8.compute_scale' eps must be a finite value >= 0
// An infinite eps in #fp8.rule (given as f32 bits).

func.func @f(%a: tensor<1x1xf32>) {
  %0 = fp8.compute_scale %a rule <pow2, eps = 0x7F800000> for <e4m3> : tensor<1x1xf32> -> tensor<1x1xf32>
  return
}
