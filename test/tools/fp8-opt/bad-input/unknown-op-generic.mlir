// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: unregistered operation 'fp8.bogus' found in dialect ('fp8')
// An fp8 op that does not exist, in generic form.

func.func @f(%x: tensor<4x8xf32>) {
  %0 = "fp8.bogus"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}
