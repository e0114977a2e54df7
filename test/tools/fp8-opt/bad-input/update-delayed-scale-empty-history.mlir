// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.update_delayed_scale' op history must be a static 1-D tensor with at least one slot
// fp8.update_delayed_scale with a 0-sized history.

func.func @f(%h: tensor<0xf32>, %s: tensor<1xf32>) {
  %0:3 = fp8.update_delayed_scale %s into(%h, %s) for <e4m3> : tensor<0xf32>, tensor<1xf32>
  return
}
