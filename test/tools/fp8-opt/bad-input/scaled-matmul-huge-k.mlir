// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.scaled_matmul' op tensor type 'tensor<4x9223372036854775807xf8E4M3FN>' is too large: its size in bits overflows a 64-bit integer
// Absurd shape: fp8.scaled_matmul with K = INT64_MAX on one side only.

func.func @f(%a: tensor<4x9223372036854775807xf8E4M3FN>, %b: tensor<4x4xf8E4M3FN>, %s: tensor<1x1xf32>) {
  %0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) : tensor<4x9223372036854775807xf8E4M3FN>, tensor<4x4xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<4x4xf32>
  return
}
