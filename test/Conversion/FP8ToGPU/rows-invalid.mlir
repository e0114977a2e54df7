// An empty space has no kernel: the planner refuses the tensor without
// elements before it forms row groups (plan-invalid.mlir), and the pipeline
// fails without writing artifacts.
// RUN: rm -rf %t && not fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t ptxas=none" \
// RUN:   -remarks-filter=fp8-gpu -o /dev/null 2>&1 | FileCheck %s
// RUN: not ls %t/empty_rows.json

// CHECK-NOT: rows-not-fused
// CHECK: error: fp8 GPU lowering: argument 0: 'tensor<0x64xf32>' has no elements
func.func @empty_rows(%x: tensor<0x64xf32>) -> tensor<0x64xf32> {
  %e = tensor.empty() : tensor<0x64xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<0x64xf32>) outs(%e : tensor<0x64xf32>) -> tensor<0x64xf32>
  return %r : tensor<0x64xf32>
}
