// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: integer value too large
// A margin that does not fit in the i32 parameter of #fp8.rule.

func.func @f() attributes {a = #fp8.rule<ratio, margin = 2147483648>} { return }
