// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.amax' op granularity #fp8.granularity<1x1x1x1x1x1x1x1> names 8 block dimensions but the input has rank 2
// A granularity with more block extents than the tensor has dimensions.

func.func @f(%x: tensor<4x8xbf16>) -> tensor<4x1xf32> {
  %0 = fp8.amax %x by <1x1x1x1x1x1x1x1> : tensor<4x8xbf16> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}
