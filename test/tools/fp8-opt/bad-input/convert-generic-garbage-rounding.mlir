// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: invalid properties
// CHECK: Invalid attribute `rounding` in property conversion: "rne"
// fp8.convert in generic form with a string where the rounding attribute goes.

func.func @f(%x: f32) {
  %0 = "fp8.convert"(%x) <{rounding = "rne"}> : (f32) -> f8E4M3FN
  return
}
