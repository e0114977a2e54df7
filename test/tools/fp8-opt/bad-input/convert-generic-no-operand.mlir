// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.convert' op expected 1 or more operands, but found 0
// fp8.convert in generic form without its input.

func.func @f() {
  %0 = "fp8.convert"() : () -> f8E4M3FN
  return
}
