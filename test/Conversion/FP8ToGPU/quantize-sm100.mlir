// fp8.dynamic_quantize for sm_100a: NVFP4 (two-level scales) reduces the
// tensor's amax first; the quantize kernel derives the global scale from
// it, stores the global decode scale, E4M3 block scales and E2M1 codes
// packed two per byte by cvt.rn.satfinite.e2m1x2 (a NaN product made the
// zero of its element's sign first, quantize-nan-products.mlir). Scales
// that only sm_100a block-scaled GEMMs read are written in the tcgen05 scale
// layout (see gemm-sm100-ptx.mlir for GEMMs reading given scales).
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_100a artifacts=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: not grep __nv_ %t/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=PLAN --input-file=%t/nvfp4_rows.json
// RUN: FileCheck %s --check-prefix=GEMM --input-file=%t/mxfp8_gemm.json
// RUN: not fp8-opt %s --convert-fp8-to-gpu=chip=sm_90a 2>&1 | FileCheck %s --check-prefix=SM90

// CHECK-LABEL: .entry fp8_amax_bf16_b32x128_nanignore_vl_gs(
// CHECK-DAG: atom.global.max.u32
// CHECK-LABEL: .entry fp8_quantize_bf16_e2m1_b1x16_nvfp4_sat_fused_vs_nanignore_vl(
// CHECK-DAG: setp.nan.f32
// CHECK-DAG: and.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, -2147483648;
// CHECK-DAG: cvt.rn.satfinite.e2m1x2.f32
// CHECK-DAG: min.f32
// CHECK-DAG: st.global.v2.b32
// CHECK-DAG: st.global.b8
// CHECK-DAG: st.global.b32
// 16x16 blocks of a [K, N] weight, stored transposed (its K-major copy)
// through shared memory.
// CHECK-LABEL: .entry fp8_quantize_f32_e2m1_b16x16_nvfp4_sat_fused_t_vs_nanignore_vl(
// CHECK-DAG: cvt.rn.satfinite.e2m1x2.f32
// CHECK-DAG: ld.shared.b8
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b1x32_e8m0_rceil_sat_e8m0_fused_vs_tmemsf_nanignore_vl(
// CHECK-DAG: cvt.rn.satfinite.e4m3x2.f32
// CHECK-DAG: st.global.b8

// The plan: zero-filled global amax, the amax kernel over the whole tensor,
// then the quantize kernel, whose last parameter (after the pitch) is the
// global decode scale.
// PLAN: "kernel": "fp8_amax_bf16_b32x128_nanignore_vl_gs"
// PLAN: "kernel": "fp8_quantize_bf16_e2m1_b1x16_nvfp4_sat_fused_vs_nanignore_vl"
// PLAN: "value": 16
// PLAN-NEXT: },
// PLAN-NEXT: {
// PLAN-NEXT: "kind": "i32",
// PLAN-NEXT: "value": 128
// PLAN-NEXT: },
// PLAN-NEXT: {
// PLAN-NEXT: "buffer": 2,
// PLAN-NEXT: "kind": "buffer"

// MXFP8 scales that only a GEMM reads go straight into the tcgen05 layout
// (200 rows: two 128-row bands; 10 k-blocks: three chunks).
// GEMM: "bytes": 3072,
// GEMM-NEXT: "dtype": "f8e8m0",
// GEMM: "layout": "tcgen05_scale_factors",
// GEMM: "kernel": "fp8_quantize_bf16_e4m3_b1x32_e8m0_rceil_sat_e8m0_fused_vs_tmemsf_nanignore_vl"
// Only B's scales, given as a [136, 10] argument, are staged.
// GEMM: "kernel": "fp8_scale_layout_sm100a"
// GEMM-NOT: fp8_scale_layout_sm100a
// GEMM: "kernel": "fp8_gemm_sm100a_e4m3e4m3_bf16_block32e8m0_128x128_s6"

// SM90: error: fp8 GPU lowering: two-level (NVFP4) quantization produces E2M1 codes, which only sm_100a multiplies

func.func @nvfp4_rows(%x: tensor<64x128xbf16>) -> (tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>, tensor<1x1xf32>) {
  %d, %s, %g = fp8.dynamic_quantize %x by <1x16> rule <nvfp4> : tensor<64x128xbf16> -> tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN> global tensor<1x1xf32>
  return %d, %s, %g : tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>, tensor<1x1xf32>
}

func.func @nvfp4_weight_t(%w: tensor<256x64xf32>) -> (tensor<64x256xf4E2M1FN>, tensor<4x16xf8E4M3FN>, tensor<1x1xf32>) {
  %d, %s, %g = fp8.dynamic_quantize %w by <16x16> rule <nvfp4> : tensor<256x64xf32> -> tensor<256x64xf4E2M1FN>, tensor<16x4xf8E4M3FN> global tensor<1x1xf32>
  %e = tensor.empty() : tensor<64x256xf4E2M1FN>
  %t = linalg.transpose ins(%d : tensor<256x64xf4E2M1FN>) outs(%e : tensor<64x256xf4E2M1FN>) permutation = [1, 0]
  %es = tensor.empty() : tensor<4x16xf8E4M3FN>
  %ts = linalg.transpose ins(%s : tensor<16x4xf8E4M3FN>) outs(%es : tensor<4x16xf8E4M3FN>) permutation = [1, 0]
  return %t, %ts, %g : tensor<64x256xf4E2M1FN>, tensor<4x16xf8E4M3FN>, tensor<1x1xf32>
}

func.func @mxfp8_gemm(%x: tensor<200x320xbf16>, %qb: tensor<136x320xf8E4M3FN>, %sb: tensor<136x10xf8E8M0FNU>) -> tensor<200x136xbf16> {
  %qa, %sa = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil> : tensor<200x320xbf16> -> tensor<200x320xf8E4M3FN>, tensor<200x10xf8E8M0FNU>
  %c = fp8.scaled_matmul %qa, %qb scales(%sa, %sb) by(<1x32>, <1x32>) transpose_rhs : tensor<200x320xf8E4M3FN>, tensor<136x320xf8E4M3FN>, tensor<200x10xf8E8M0FNU>, tensor<136x10xf8E8M0FNU> -> tensor<200x136xbf16>
  return %c : tensor<200x136xbf16>
}
