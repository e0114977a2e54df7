// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: custom op 'fp8.amax' integer value too large
// A block extent that does not fit in int64.

func.func @f(%x: tensor<4x8xbf16>) -> tensor<4x1xf32> {
  %0 = fp8.amax %x by <1x9223372036854775808> : tensor<4x8xbf16> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}
