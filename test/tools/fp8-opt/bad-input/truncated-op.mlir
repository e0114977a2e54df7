// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: custom op 'fp8.amax' expected `tensor` or a block shape
// Malformed text: the file ends in the middle of an fp8 op.

func.func @f(%x: tensor<4x256xbf16>) {
  %0 = fp8.amax %x by <1x