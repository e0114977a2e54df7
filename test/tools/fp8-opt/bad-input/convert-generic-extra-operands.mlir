// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.convert' op operand group starting at #1 requires 0 or 1 element, but found 2
// fp8.convert in generic form with two rbits operands.

func.func @f(%x: f32, %r: i32) {
  %0 = "fp8.convert"(%x, %r, %r) <{rounding = #fp8.rounding<stochastic>}> : (f32, i32, i32) -> f8E4M3FN
  return
}
