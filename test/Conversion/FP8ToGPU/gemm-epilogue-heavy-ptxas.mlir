// The heaviest epilogue the examples fuse, stacked: bias, erf GELU and a
// residual add on a GEMM result that a second GEMM quantizes (a per-row,
// per-tensor or block amax, or FP8 codes written by the epilogue). On
// sm_100a, with rowwise's column scales (255 registers, spills) and
// deepseek's 1x128 result blocks (spills) the epilogue ran out of registers
// while its 32-column chunks were unrolled. Every recipe's fused kernel
// assembles with no stack frame and no spills.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: fp8-opt %s --fp8-autocast=recipe=rowwise --fp8-gpu-pipeline="chip=sm_100a artifacts=%t/rowwise" -o /dev/null
// RUN: FileCheck %s --check-prefix=ROWWISE --input-file=%t/rowwise/fp8_kernels.ptxas.log
// RUN: fp8-opt %s --fp8-autocast=recipe=deepseek --fp8-gpu-pipeline="chip=sm_100a artifacts=%t/deepseek" -o /dev/null
// RUN: FileCheck %s --check-prefix=DEEPSEEK --input-file=%t/deepseek/fp8_kernels.ptxas.log
// RUN: fp8-opt %s --fp8-autocast=recipe=tensor-current --fp8-gpu-pipeline="chip=sm_100a artifacts=%t/tensor" -o /dev/null
// RUN: FileCheck %s --check-prefix=TENSOR --input-file=%t/tensor/fp8_kernels.ptxas.log
// RUN: fp8-opt %s --fp8-autocast=recipe=mxfp8 --fp8-gpu-pipeline="chip=sm_100a artifacts=%t/mxfp8" -o /dev/null
// RUN: FileCheck %s --check-prefix=MXFP8 --input-file=%t/mxfp8/fp8_kernels.ptxas.log
// RUN: fp8-opt %s --fp8-autocast=recipe=nvfp4 --fp8-gpu-pipeline="chip=sm_100a artifacts=%t/nvfp4" -o /dev/null
// RUN: FileCheck %s --check-prefix=NVFP4 --input-file=%t/nvfp4/fp8_kernels.ptxas.log
// RUN: not grep -E "[1-9][0-9]* bytes (stack frame|spill)" %t/rowwise/fp8_kernels.ptxas.log %t/deepseek/fp8_kernels.ptxas.log %t/tensor/fp8_kernels.ptxas.log %t/mxfp8/fp8_kernels.ptxas.log %t/nvfp4/fp8_kernels.ptxas.log

// ROWWISE: Function properties for fp8_gemm_sm100a_e4m3e4m3_f32_rowcol_rowamax_epif32_
// ROWWISE-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// DEEPSEEK: Function properties for fp8_gemm_sm100a_e4m3e4m3_e4m3_block32e8m0_epif32_{{[0-9a-f]+}}_q128_pow2_
// DEEPSEEK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// TENSOR: Function properties for fp8_gemm_sm100a_e4m3e4m3_f32_tensor_amax_epif32_
// TENSOR-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// MXFP8: Function properties for fp8_gemm_sm100a_e4m3e4m3_e4m3_block32e8m0_epif32_{{[0-9a-f]+}}_q32_e8m0_rceil_
// MXFP8-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// NVFP4: Function properties for fp8_gemm_sm100a_e2m1e2m1_f32_block16e4m3g_epif32_
// NVFP4-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
func.func @f(%x: tensor<256x256xf32>, %w1: tensor<256x256xf32>, %b1: tensor<256xf32>, %r: tensor<256x256xf32>, %w2: tensor<256x128xf32>) -> tensor<256x128xf32> {
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %r2 = arith.constant 0.70710678 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<256x256xf32>, tensor<256x256xf32>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  %g = linalg.generic {indexing_maps = [#id, #row, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%h, %b1, %r : tensor<256x256xf32>, tensor<256xf32>, tensor<256x256xf32>) outs(%e : tensor<256x256xf32>) {
  ^bb0(%v0: f32, %bb: f32, %rr: f32, %o: f32):
    %v = arith.addf %v0, %bb : f32
    %a = arith.mulf %v, %r2 : f32
    %er = math.erf %a : f32
    %b = arith.addf %er, %one : f32
    %c = arith.mulf %b, %half : f32
    %d = arith.mulf %c, %v : f32
    %s = arith.addf %d, %rr : f32
    linalg.yield %s : f32
  } -> tensor<256x256xf32>
  %e2 = tensor.empty() : tensor<256x128xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<256x128xf32>) -> tensor<256x128xf32>
  %y = linalg.matmul ins(%g, %w2 : tensor<256x256xf32>, tensor<256x128xf32>) outs(%f2 : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %y : tensor<256x128xf32>
}
