// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: expected floating point literal
// `nan` is not a float literal in #fp8.rule.

func.func @f() attributes {a = #fp8.rule<ratio, eps = nan>} { return }
