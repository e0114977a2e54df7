// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: expected '"' in string literal
// Malformed text: a string literal that never ends.

func.func @f() attributes {a = "unterminated} { return }
