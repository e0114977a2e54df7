// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: expected '>' in tensor type
// Malformed text: a tensor type without its closing '>'.

func.func @f(%x: tensor<4x8xf32) {
  return
}
