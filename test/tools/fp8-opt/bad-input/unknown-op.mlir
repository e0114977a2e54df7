// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: custom op 'fp8.bogus' is unknown
// An fp8 op that does not exist, in custom form.

func.func @f(%x: tensor<4x8xf32>) {
  %0 = fp8.bogus %x : tensor<4x8xf32>
  return
}
