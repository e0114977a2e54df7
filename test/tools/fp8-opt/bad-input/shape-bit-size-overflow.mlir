// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.amax' op tensor type 'tensor<9223372036854775807x2xf32>' is too large: its size in bits overflows a 64-bit integer
func.func @f(%x: tensor<9223372036854775807x2xf32>) {
  %0 = fp8.amax %x by <tensor> : tensor<9223372036854775807x2xf32> -> tensor<1x1xf32>
  return
}
