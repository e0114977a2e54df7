// The copies of a dynamic_quantize from one read on sm_100a: MXFP8 with both
// scale tensors in the tcgen05 layout (K along the input's columns for the
// row-wise copy, along its rows for the transposed column-wise one), and
// NVFP4, whose paired kernel follows the tensor's amax; and a batch of
// matrices, each copy's scales in the layout of each matrix.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_100a artifacts=%t ptxas=none" \
// RUN:   --remarks-filter=fp8-gpu --remark-format=emitRemark -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: not grep __nv_ %t/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=MX --input-file=%t/mxfp8_layouts.json
// RUN: FileCheck %s --check-prefix=NV --input-file=%t/nvfp4.json
// RUN: FileCheck %s --check-prefix=MXB --input-file=%t/mxfp8_batched_layouts.json

// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b1x32_e8m0_rceil_sat_e8m0_fused_vs_tmemsf_pair_b32x1_fused_t_vs_tmemsft_r32_nanignore_vl(
// CHECK-NOT: atom.global
// CHECK-DAG: cvt.rn.satfinite.e4m3x2.f32
// CHECK-DAG: ld.shared.b8
// CHECK-DAG: st.global.b8
// CHECK-LABEL: .entry fp8_amax_bf16_b32x128_nanignore_vl_gs(
// CHECK-LABEL: .entry fp8_quantize_bf16_e2m1_b1x16_nvfp4_sat_fused_vs_pair_b16x1_fused_t_vs_r32_nanignore_vl(
// CHECK-COUNT-2: ld.global.v4.b32
// CHECK-NOT: ld.global.v4
// CHECK-NOT: atom.global
// CHECK-DAG: cvt.rn.satfinite.e2m1x2.f32
// CHECK-DAG: ld.shared.b8
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b1x32_e8m0_rceil_sat_e8m0_fused_vs_tmemsf_pair_b32x1_fused_t_vs_tmemsft_r32_nanignore_vl_batched(
// CHECK: %ctaid.y
// CHECK-NOT: atom.global
// CHECK: ret;

// Both scale buffers in the layout, their padding zero-filled, and one
// kernel.
// MX: "layout": "tcgen05_scale_factors",
// MX: "layout": "tcgen05_scale_factors",
// MX: "launches": [
// MX: "kind": "fill"
// MX: "kind": "fill"
// MX: "kernel": "fp8_quantize_bf16_e4m3_b1x32_e8m0_rceil_sat_e8m0_fused_vs_tmemsf_pair_b32x1_fused_t_vs_tmemsft_r32_nanignore_vl",
// MX-NOT: "kernel": "fp8

// The tensor's amax, then one kernel writing both copies.
// NV: "launches": [
// NV: "kind": "fill"
// NV: "kernel": "fp8_amax_bf16_b32x128_nanignore_vl_gs",
// NV: "kernel": "fp8_quantize_bf16_e2m1_b1x16_nvfp4_sat_fused_vs_pair_b16x1_fused_t_vs_r32_nanignore_vl",
// NV-NOT: "kernel": "fp8

// REMARK: remark: [Passed] quantize-pair-fused | Category:fp8-gpu | Function=mxfp8_layouts | Remark="row-wise <1x32> and column-wise <32x1> copies written from one read of the input"
// A grid row per matrix. Each matrix's scales take 1024 bytes of the
// layout: 256 rows (two 128-row bands) of 3 k-blocks (one chunk of 4)
// row-wise, 96 rows (one band) of 8 k-blocks (two chunks) column-wise.
// MXB: "launches": [
// MXB: "kind": "fill"
// MXB: "kind": "fill"
// MXB: "grid": [
// MXB-NEXT: 8,
// MXB-NEXT: 2,
// MXB-NEXT: 1
// MXB: "kernel": "fp8_quantize_bf16_e4m3_b1x32_e8m0_rceil_sat_e8m0_fused_vs_tmemsf_pair_b32x1_fused_t_vs_tmemsft_r32_nanignore_vl_batched",
// MXB: "value": 1024
// MXB: "value": 1024
// MXB-NOT: "kernel": "fp8

// REMARK: remark: [Passed] quantize-pair-fused | Category:fp8-gpu | Function=nvfp4 | Remark="row-wise <1x16> and column-wise <16x1> copies written from one read of the input"
// REMARK: remark: [Passed] quantize-pair-fused | Category:fp8-gpu | Function=mxfp8_batched_layouts | Remark="row-wise <1x1x32> and column-wise <1x32x1> copies written from one read of the input"

func.func @mxfp8_layouts(%x: tensor<256x96xbf16>) -> (tensor<256x96xf8E4M3FN>, tensor<256x3xf8E8M0FNU>, tensor<96x256xf8E4M3FN>, tensor<96x8xf8E8M0FNU>) {
  %q, %s, %qt, %st = fp8.dynamic_quantize %x by <1x32> colwise <32x1> transposed rule <e8m0_rceil> {scale_layout = #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 4>, col_scale_layout = #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 4>} : tensor<256x96xbf16> -> tensor<256x96xf8E4M3FN>, tensor<256x3xf8E8M0FNU> colwise tensor<96x256xf8E4M3FN>, tensor<96x8xf8E8M0FNU>
  return %q, %s, %qt, %st : tensor<256x96xf8E4M3FN>, tensor<256x3xf8E8M0FNU>, tensor<96x256xf8E4M3FN>, tensor<96x8xf8E8M0FNU>
}

func.func @nvfp4(%x: tensor<64x128xbf16>) -> (tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>, tensor<1x1xf32>, tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>) {
  %d, %s, %g, %dt, %st = fp8.dynamic_quantize %x by <1x16> colwise <16x1> transposed rule <nvfp4> : tensor<64x128xbf16> -> tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN> global tensor<1x1xf32> colwise tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>
  return %d, %s, %g, %dt, %st : tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>, tensor<1x1xf32>, tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>
}

func.func @mxfp8_batched_layouts(%x: tensor<2x256x96xbf16>) -> (tensor<2x256x96xf8E4M3FN>, tensor<2x256x3xf8E8M0FNU>, tensor<2x96x256xf8E4M3FN>, tensor<2x96x8xf8E8M0FNU>) {
  %q, %s, %qt, %st = fp8.dynamic_quantize %x by <1x1x32> colwise <1x32x1> transposed rule <e8m0_rceil> {scale_layout = #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 4>, col_scale_layout = #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 4>} : tensor<2x256x96xbf16> -> tensor<2x256x96xf8E4M3FN>, tensor<2x256x3xf8E8M0FNU> colwise tensor<2x96x256xf8E4M3FN>, tensor<2x96x8xf8E8M0FNU>
  return %q, %s, %qt, %st : tensor<2x256x96xf8E4M3FN>, tensor<2x256x3xf8E8M0FNU>, tensor<2x96x256xf8E4M3FN>, tensor<2x96x8xf8E8M0FNU>
}
