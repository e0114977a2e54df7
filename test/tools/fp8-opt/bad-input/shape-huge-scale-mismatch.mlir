// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.amax' op tensor type 'tensor<9223372036854775807x2xf32>' is too large
// Absurd shape: an INT64_MAX dimension in fp8.amax with the wrong scale shape.

func.func @f(%x: tensor<9223372036854775807x2xf32>) -> tensor<1x1xf32> {
  %0 = fp8.amax %x by <1x2> : tensor<9223372036854775807x2xf32> -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}
