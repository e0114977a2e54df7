// DeepSeek's 128 x 128 weight blocks lie inside quantize tiles of 128 rows
// (four 32-row sub-tiles, one run of each per thread, all loaded before the
// first reduction): one fused kernel measures each block and quantizes it
// from that one read, with no amax pass before it. Ragged extents take the
// same kernel, with scalar loads and stores at the edges.
// REQUIRES: ptxas
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=PLAN --input-file=%t/weights.json
// RUN: FileCheck %s --check-prefix=RAGGED --input-file=%t/ragged.json
// RUN: not grep -E "[1-9][0-9]* bytes (spill|stack)" %t/fp8_kernels.ptxas.log
// RUN: fp8-opt %s --fp8-gpu-pipeline="chip=sm_100a artifacts=%t/sm100" -o /dev/null
// RUN: not grep -E "[1-9][0-9]* bytes (spill|stack)" %t/sm100/fp8_kernels.ptxas.log

// The four sub-tiles' 16-byte loads, then each sub-tile's part of the block
// (a butterfly and shared memory), the block's one scale, and each
// sub-tile's codes.
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b128x128_pow2_sat_fused_vs_r128_nanignore_vl(
// CHECK-NOT: .entry
// CHECK-COUNT-8: ld.global.v4.b32
// CHECK-NOT: st.global
// CHECK-COUNT-4: shfl.sync.bfly.b32
// CHECK-NOT: ld.global.v4.b32
// CHECK: st.global.b32
// CHECK-COUNT-4: st.global.v4.b32
// CHECK: ret;
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b128x128_ratio_sat_fused_r128_nanignore(

// 4 x 3 tiles, one per block; no amax kernel, no fill.
// PLAN-NOT:  "kernel":
// PLAN:      "grid": [
// PLAN-NEXT:   12,
// PLAN:      "kernel": "fp8_quantize_bf16_e4m3_b128x128_pow2_sat_fused_vs_r128_nanignore_vl",
// PLAN-NOT:  "kernel":
func.func @weights(%w: tensor<512x384xbf16>) -> (tensor<512x384xf8E4M3FN>, tensor<4x3xf32>) {
  %q, %s = fp8.dynamic_quantize %w by <128x128> rule <pow2> : tensor<512x384xbf16> -> tensor<512x384xf8E4M3FN>, tensor<4x3xf32>
  return %q, %s : tensor<512x384xf8E4M3FN>, tensor<4x3xf32>
}

// 200 x 300: 2 x 3 tiles, the last ones partly outside.
// RAGGED-NOT:  "kernel":
// RAGGED:      "grid": [
// RAGGED-NEXT:   6,
// RAGGED:      "kernel": "fp8_quantize_bf16_e4m3_b128x128_ratio_sat_fused_r128_nanignore",
// RAGGED-NOT:  "kernel":
func.func @ragged(%w: tensor<200x300xbf16>) -> (tensor<200x300xf8E4M3FN>, tensor<2x3xf32>) {
  %q, %s = fp8.dynamic_quantize %w by <128x128> rule <ratio> : tensor<200x300xbf16> -> tensor<200x300xf8E4M3FN>, tensor<2x3xf32>
  return %q, %s : tensor<200x300xf8E4M3FN>, tensor<2x3xf32>
}
