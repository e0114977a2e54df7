// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.amax' op scale shape [1, 1] of the input does not match granularity #fp8.granularity<1x8> on data of shape [0, 8]: expected [0, 1]
// A 0-sized dimension in fp8.amax with the wrong scale shape.

func.func @f(%x: tensor<0x8xbf16>) -> tensor<1x1xf32> {
  %0 = fp8.amax %x by <1x8> : tensor<0x8xbf16> -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}
