// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.convert' op requires the same shape for all operands and results
// Absurd shape: fp8.convert from an INT64_MAX-element tensor to a 1-element one.

func.func @f(%x: tensor<9223372036854775807xf32>) {
  %0 = fp8.convert %x : tensor<9223372036854775807xf32> to tensor<1xf8E4M3FN>
  return
}
