// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: expected ::mlir::fp8::Format to be one of: e4m3, e5m2, e2m1, e2m3, e3m2
// An fp8 enum attribute with a value it does not have.

func.func @f() attributes {a = #fp8.format<e9m9>} { return }
