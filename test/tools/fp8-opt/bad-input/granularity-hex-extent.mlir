// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: block extents are decimal integers or `*`; `0x...` reads as hexadecimal
func.func @f() attributes {a = #fp8.granularity<0x8>} { return }
