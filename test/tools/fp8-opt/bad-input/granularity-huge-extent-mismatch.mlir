// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.amax' op scale shape [4, 2] of the input does not match granularity #fp8.granularity<1x9223372036854775807> on data of shape [4, 8]: expected [4, 1]
// An INT64_MAX block extent (valid) with the wrong scale shape.

func.func @f(%x: tensor<4x8xbf16>) -> tensor<4x2xf32> {
  %0 = fp8.amax %x by <1x9223372036854775807> : tensor<4x8xbf16> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
