// An empty space forms no row group (a kernel over no rows would be a launch
// of no CTAs): its ops keep their kernels, whose planners refuse empty
// inputs with an error, and the pipeline fails without writing artifacts.
// RUN: rm -rf %t && not fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t ptxas=none" \
// RUN:   -remarks-filter=fp8-gpu -o /dev/null 2>&1 | FileCheck %s
// RUN: not ls %t/empty_rows.json

// CHECK: remark: [Missed] rows-not-fused | Category:fp8-gpu | Function=empty_rows | Remark="linalg.generic and 3 other ops over its rows: kernels of their own: its space is empty"
// CHECK: error: fp8 GPU lowering: 'linalg.generic' has no reduction kernel: its input is empty
func.func @empty_rows(%x: tensor<0x64xf32>) -> tensor<0x64xf32> {
  %e = tensor.empty() : tensor<0x64xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<0x64xf32>) outs(%e : tensor<0x64xf32>) -> tensor<0x64xf32>
  return %r : tensor<0x64xf32>
}
