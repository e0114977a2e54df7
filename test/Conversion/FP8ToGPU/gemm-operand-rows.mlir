// A weight of K = 4 shared by a forward GEMM and a data-gradient GEMM under
// DeepSeek's recipe: the gradient reads the weight's FP8 codes transposed,
// a copy a layout kernel makes in rows of 4 bytes, which TMA cannot read
// (rows 16-byte multiples apart). The planner says so, on both chips,
// where it wrote a tensor map that fp8-run --check rejected, and no
// artifact is written. (Each GEMM alone reads codes its quantization pads.)
// RUN: rm -rf %t
// RUN: not fp8-opt %s --fp8-autocast=recipe=deepseek "--fp8-gpu-pipeline=chip=sm_90a artifacts=%t" -o /dev/null 2>&1 | FileCheck %s
// RUN: not ls %t
// RUN: not fp8-opt %s --fp8-autocast=recipe=deepseek --fp8-gpu-pipeline=chip=sm_100a -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: fp8 GPU lowering: operand B is stored in rows 4 bytes apart, and TMA reads rows 16-byte multiples apart: pad K to a multiple of 16 elements
func.func @f(%dy: tensor<64x4xf32>, %x: tensor<64x64xf32>, %w: tensor<4x64xf32>) -> (tensor<64x4xf32>, tensor<64x64xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %e3 = tensor.empty() : tensor<64x4xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<64x4xf32>) -> tensor<64x4xf32>
  %v3 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w : tensor<64x64xf32>, tensor<4x64xf32>) outs(%z3 : tensor<64x4xf32>) -> tensor<64x4xf32>
  %e4 = tensor.empty() : tensor<64x64xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %v4 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] {fp8.role = #fp8.gemm_role<dgrad>, fp8.grad_operand = 0 : i64} ins(%dy, %w : tensor<64x4xf32>, tensor<4x64xf32>) outs(%z4 : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %v3, %v4 : tensor<64x4xf32>, tensor<64x64xf32>
}
