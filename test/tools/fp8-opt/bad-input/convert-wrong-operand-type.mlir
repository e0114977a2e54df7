// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.convert' op operand #0 must be f32, bf16 or f16, but got 'index'
// fp8.convert of an index value.

func.func @f(%x: index) {
  %0 = fp8.convert %x : index to f8E4M3FN
  return
}
