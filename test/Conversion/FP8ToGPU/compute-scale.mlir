// fp8.compute_scale: a kernel per rule, format and form, one thread per amax
// in a grid-stride loop, computing the scale with the builders the CPU
// reference lowers the op with: NVFP4's global scale S = min(448 * 6 / amax,
// FLT_MAX) and 1/S, its E4M3 block scales RNE_sat(amax * fl32(S / 6)) stored
// a byte each, pow2's truncated ratio and its reciprocal, and E8M0 codes.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_100a artifacts=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: not grep __nv_ %t/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=PLAN --input-file=%t/nvfp4.json
// RUN: fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a ptxas=none" -o /dev/null

// CHECK-LABEL: .entry fp8_compute_scale_nvfp4_e2m1_inv(
// CHECK: div.rn.f32
// CHECK: min.f32
// CHECK: st.global.b32
// CHECK: rcp.rn.f32
// CHECK: st.global.b32
// CHECK-LABEL: .entry fp8_compute_scale_nvfp4_e2m1_global(
// CHECK: ld.global.b32
// CHECK: mul.rn.f32
// CHECK: st.global.b8
// CHECK-LABEL: .entry fp8_compute_scale_pow2_margin_1_e4m3_inv(
// CHECK: div.rn.f32
// CHECK: and.b32 {{.*}}, -8388608;
// CHECK-LABEL: .entry fp8_compute_scale_e8m0_rceil_e4m3(
// CHECK: st.global.b8

// NVFP4: the global scale (one element, one CTA), then the block scales of
// 64 x 8 blocks reading it.
// PLAN: "kernel": "fp8_compute_scale_nvfp4_e2m1_inv"
// PLAN: "value": 1
// PLAN: "kernel": "fp8_compute_scale_nvfp4_e2m1_global"
// PLAN: "value": 512
func.func @nvfp4(%amax: tensor<1x1xf32>, %blocks: tensor<64x8xf32>) -> (tensor<1x1xf32>, tensor<64x8xf8E4M3FN>) {
  %s, %s_inv = fp8.compute_scale %amax rule <nvfp4> for <e2m1> : tensor<1x1xf32> -> tensor<1x1xf32>, tensor<1x1xf32>
  %sb = fp8.compute_scale %blocks global(%s : tensor<1x1xf32>) rule <nvfp4> for <e2m1> : tensor<64x8xf32> -> tensor<64x8xf8E4M3FN>
  return %s_inv, %sb : tensor<1x1xf32>, tensor<64x8xf8E4M3FN>
}

func.func @rules(%amax: tensor<4x300xf32>) -> (tensor<4x300xf32>, tensor<4x300xf32>, tensor<4x300xf8E8M0FNU>) {
  %s, %s_inv = fp8.compute_scale %amax rule <pow2, margin = 1> for <e4m3> : tensor<4x300xf32> -> tensor<4x300xf32>, tensor<4x300xf32>
  %e = fp8.compute_scale %amax rule <e8m0_rceil> for <e4m3> : tensor<4x300xf32> -> tensor<4x300xf8E8M0FNU>
  return %s, %s_inv, %e : tensor<4x300xf32>, tensor<4x300xf32>, tensor<4x300xf8E8M0FNU>
}
