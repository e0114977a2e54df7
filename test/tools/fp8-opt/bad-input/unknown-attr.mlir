// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: unknown attribute `bogus` in dialect `fp8`
// An fp8 attribute that does not exist.

func.func @f() attributes {a = #fp8.bogus<1>} { return }
