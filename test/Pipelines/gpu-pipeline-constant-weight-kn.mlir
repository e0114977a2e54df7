// A frozen weight stored [K, N] (the ordinary layout of linalg.matmul's B)
// is quantized at compile time, and so is the K-major copy that
// fp8-legalize-layout asks for: fp8-quantize-constants runs again after it,
// so that no kernel transposes the constant on every call. NVFP4 needs it:
// no layout kernel moves E2M1 codes.
// RUN: fp8-opt %s --fp8-autocast=recipe=nvfp4 --fp8-gpu-graph-pipeline=chip=sm_100a | FileCheck %s --check-prefixes=GRAPH,NVFP4
// RUN: fp8-opt %s --fp8-autocast=recipe=mxfp8 --fp8-gpu-graph-pipeline=chip=sm_90a | FileCheck %s --check-prefixes=GRAPH,MXFP8
// RUN: fp8-opt %s --fp8-autocast=recipe=nvfp4 --fp8-gpu-pipeline="chip=sm_100a ptxas=none" | FileCheck %s --check-prefix=PLAN
// RUN: fp8-opt %s --fp8-autocast=recipe=mxfp8 --fp8-gpu-pipeline="chip=sm_90a ptxas=none" | FileCheck %s --check-prefix=PLAN

// GRAPH-LABEL: func.func @linear
// NVFP4-DAG: arith.constant dense<{{.*}}> : tensor<8x32xf4E2M1FN>
// MXFP8-DAG: arith.constant dense<{{.*}}> : tensor<8x32xf8E4M3FN>
// GRAPH-NOT: linalg.transpose
// GRAPH: fp8.scaled_matmul {{.*}} transpose_rhs
// GRAPH-NOT: linalg.transpose
// PLAN-NOT: fp8_layout
// PLAN: fp8_gemm
// PLAN-NOT: fp8_layout
func.func @linear(%x: tensor<64x32xbf16>) -> tensor<64x8xbf16> {
  %w = arith.constant dense<[[0.75, 0.25, -0.5, 0.25, -0.25, -3.0, 0.5, -0.5],
    [0.5, -2.0, -6.0, -2.0, -1.5, 6.0, -1.0, 1.5],
    [-3.0, 1.5, -0.75, -0.375, 6.0, 0.375, 4.5, -2.25],
    [-0.5, 0.125, 0.125, 0.5, -3.0, -2.0, -0.125, 0.25],
    [-4.0, 4.0, 0.25, -1.0, 0.25, -0.5, 0.25, 6.0],
    [0.75, 6.0, -1.5, 0.75, -4.5, -3.0, 9.0, 1.5],
    [-0.125, 1.5, -3.0, 3.0, 3.0, -0.75, -0.75, -1.0],
    [-0.5, 1.5, 3.0, -1.5, 4.0, 1.5, -0.25, 6.0],
    [9.0, -0.375, 0.75, -1.5, -0.375, -1.5, 0.75, -0.75],
    [-0.5, 0.25, -1.0, 0.75, 2.0, 0.125, -0.5, 0.125],
    [0.25, 1.0, -1.0, 3.0, 1.5, -2.0, 1.5, -3.0],
    [-4.5, 2.25, 3.0, 3.0, -3.0, 3.0, -0.375, 0.75],
    [-1.5, 1.5, -2.0, 2.0, 0.5, -0.5, -0.125, -2.0],
    [-0.25, -0.25, 1.0, -6.0, -0.25, -6.0, 1.0, 0.25],
    [1.5, -2.25, -0.75, -0.375, -0.375, 2.25, -0.75, -1.5],
    [-3.0, -1.0, -1.5, -1.5, -2.0, 3.0, -0.25, 0.125],
    [1.5, -0.5, 1.5, -1.5, -1.5, 1.0, -4.0, 1.0],
    [-3.0, -4.5, -1.5, 0.75, -0.375, 3.0, 0.375, 3.0],
    [1.0, 0.75, 0.5, 0.125, 0.5, -3.0, -1.0, 0.5],
    [-4.0, -3.0, -0.25, -1.0, 0.25, -2.0, -6.0, 4.0],
    [3.0, 6.0, -6.0, -6.0, 0.375, -9.0, 4.5, -1.5],
    [-0.5, -1.5, 0.25, -1.5, -3.0, 3.0, -0.125, 0.5],
    [0.5, -6.0, -3.0, -1.0, 1.0, -1.0, 1.0, 0.5],
    [9.0, 2.25, -3.0, -2.25, 0.75, -3.0, 4.5, -4.5],
    [0.75, 2.0, -1.5, -0.25, -1.0, 1.0, 0.5, 0.125],
    [3.0, -2.0, 2.0, -6.0, 0.5, -0.5, -3.0, 1.5],
    [-1.5, 4.5, -4.5, -0.375, -2.25, 0.375, -4.5, 6.0],
    [1.0, -1.5, -2.0, -0.25, 3.0, -0.125, 1.0, -0.25],
    [-3.0, -1.5, 0.5, 0.5, 3.0, -1.0, -6.0, 0.25],
    [-4.5, -0.75, 2.25, -3.0, -0.75, -2.25, 1.5, 0.375],
    [-0.25, -0.125, 0.25, 0.5, -0.5, 1.5, -1.5, -1.0],
    [-0.25, 6.0, -0.25, 0.5, -1.0, -4.0, 3.0, -0.5]]> : tensor<32x8xbf16>
  %z = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<64x8xbf16>
  %f = linalg.fill ins(%z : bf16) outs(%e : tensor<64x8xbf16>) -> tensor<64x8xbf16>
  %y = linalg.matmul ins(%x, %w : tensor<64x32xbf16>, tensor<32x8xbf16>) outs(%f : tensor<64x8xbf16>) -> tensor<64x8xbf16>
  return %y : tensor<64x8xbf16>
}
