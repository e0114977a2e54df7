// An sm_90a GEMM epilogue that reads a tensor of the result's shape loads a
// thread's elements in a few large batches, each before the first of its
// results is stored: a store may alias the loads after it, so each batch waits for
// memory once, and the SM's two consumer warpgroups have nothing else to
// hide that latency with. A thread holds 64 results of a 128 x 128 tile
// (32 pairs, stored as bf16 pairs): 32 loads, 16 stores, twice; 96 of a
// 128 x 192 tile, whose accumulator leaves fewer registers: 24 loads, 12
// stores, four times (two batches spilled with f32 inputs). (Batches of 8 pairs ran the
// MLP block's GELU-derivative GEMM at 1555 us on an H100, against 917 us
// without an epilogue.) Neither kernel spills. This is the path of inputs
// that are not staged in shared memory (stage-epilogue-inputs=false here;
// gemm-epilogue-staged.mlir has the staged one).
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a sm90-tile-n=128 stage-epilogue-inputs=false artifacts=%t/n128" -o /dev/null
// RUN: fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a sm90-tile-n=192 stage-epilogue-inputs=false artifacts=%t/n192" -o /dev/null
// RUN: %python %S/Inputs/epilogue_runs.py %t/n128/fp8_kernels.ptx %t/n192/fp8_kernels.ptx | FileCheck %s
// RUN: cat %t/n128/fp8_kernels.ptxas.log %t/n192/fp8_kernels.ptxas.log | FileCheck %s --check-prefix=PTXAS
// RUN: not grep -E "[1-9][0-9]* bytes (spill|stack)" %t/n128/fp8_kernels.ptxas.log %t/n192/fp8_kernels.ptxas.log

// CHECK: 128x128: L32 S16 L32 S16
// CHECK: 128x192: L24 S12 L24 S12 L24 S12 L24 S12
// PTXAS: Compiling entry function 'fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_epibf16_{{[0-9a-f]+}}_128x128_s7'
// PTXAS: Compiling entry function 'fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_epibf16_{{[0-9a-f]+}}_128x192_s5'

func.func @gated(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>, %g: tensor<256x384xbf16>) -> tensor<256x384xbf16> {
  %p = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  %e = tensor.empty() : tensor<256x384xbf16>
  %y = linalg.mul ins(%p, %g : tensor<256x384xbf16>, tensor<256x384xbf16>) outs(%e : tensor<256x384xbf16>) -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}
