// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: custom op 'fp8.amax' block extents must be positive or `*` (a whole dimension), got 0
// A 0 block extent in a granularity.

func.func @f(%x: tensor<4x8xbf16>) -> tensor<4x1xf32> {
  %0 = fp8.amax %x by <1x0> : tensor<4x8xbf16> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}
