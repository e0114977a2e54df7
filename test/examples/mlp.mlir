// The shipped MLP example runs on the CPU with upstream passes, and its FP8
// form verifies and fuses.
// REQUIRES: mlir-runner
// RUN: fp8-opt %fp8_src_root/examples/mlp/mlp.mlir \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries" --convert-linalg-to-loops \
// RUN:   --convert-scf-to-cf --expand-strided-metadata --lower-affine --convert-to-llvm \
// RUN:   --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%runner_utils,%c_runner_utils \
// RUN: | FileCheck %s

// CHECK: sizes = [4, 8]
// CHECK-NEXT: [0.00657084, {{ *}}-0.00626785,
// CHECK-NEXT: [0.0141746,
// CHECK-NEXT: [0.0134882,
// CHECK-NEXT: [0.008473,
