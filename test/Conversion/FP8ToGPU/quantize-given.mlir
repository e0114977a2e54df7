// fp8.quantize by given scales: the kernel reads each block's scale instead
// of an amax and derives the encode multiplier as the CPU reference does.
// NVFP4's gradients take E4M3 block scales under a given global encode
// scale, rounded stochastically: one i32 random word per element, read 16
// per thread like the input, and the soft conversion of fp8.convert (E2M1
// packed two per byte, stored transposed for a copy read only through
// transposes). E8M0 scales give 2^(127 - e).
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_100a artifacts=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: not grep -E "__nv_|cvt.rn.satfinite.(e2m1|e4m3)x2" %t/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=PLAN --input-file=%t/nvfp4_stochastic.json

// Input rows of 16 f32 (four 16-byte loads), the block's E4M3 scale and
// the global scale S giving min(1 / (sb * (1/S)), FLT_MAX), then 16 random
// words.
// CHECK-LABEL: .entry fp8_quantize_f32_e2m1_b1x16_sat_given2l_sr_vs_nanprop_vl(
// CHECK-COUNT-4: ld.global.v2.b64
// CHECK: ld.global.s8
// CHECK: rcp.rn.f32
// CHECK: min.f32 {{.*}}, 0f7F7FFFFF;
// CHECK-COUNT-4: ld.global.v2.b64
// CHECK: st.global.v2.b32
// CHECK-LABEL: .entry fp8_quantize_f32_e2m1_b16x1_sat_given2l_sr_t_vs_nanprop_vl(
// CHECK: ld.global.s8
// CHECK: ld.shared.b8
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b1x32_sat_e8m0_given_sr_vs_nanprop_vl(
// CHECK: ld.global.b8
// CHECK-COUNT-4: ld.global.v2.b64
// CHECK-LABEL: .entry fp8_quantize_bf16_e5m2_b1x128_sat_e8m0_given_vs_nanprop_vl(
// CHECK: cvt.rn.satfinite.e5m2x2.f32

// The plan: input, scales, codes, then after the pitch the global scale and
// the random words, both arguments of the function.
// PLAN: "kernel": "fp8_quantize_f32_e2m1_b1x16_sat_given2l_sr_vs_nanprop_vl"
// PLAN: "buffer": 0,
// PLAN: "buffer": 1,
// PLAN: "value": 128
// PLAN: "buffer": 2,
// PLAN-NEXT: "kind": "buffer"
// PLAN: "buffer": 3,
// PLAN-NEXT: "kind": "buffer"
func.func @nvfp4_stochastic(%x: tensor<64x128xf32>, %sb: tensor<64x8xf8E4M3FN>, %s: tensor<1x1xf32>, %r: tensor<64x128xi32>) -> tensor<64x128xf4E2M1FN> {
  %q = fp8.quantize %x, %sb by <1x16> global(%s : tensor<1x1xf32>) rounding <stochastic> rbits(%r : tensor<64x128xi32>) : tensor<64x128xf32>, tensor<64x8xf8E4M3FN> -> tensor<64x128xf4E2M1FN>
  return %q : tensor<64x128xf4E2M1FN>
}

// Blocks of 16 rows, the copy stored transposed.
func.func @nvfp4_stochastic_t(%x: tensor<64x128xf32>, %sb: tensor<4x128xf8E4M3FN>, %s: tensor<1x1xf32>, %r: tensor<64x128xi32>) -> tensor<128x64xf4E2M1FN> {
  %q = fp8.quantize %x, %sb by <16x1> global(%s : tensor<1x1xf32>) rounding <stochastic> rbits(%r : tensor<64x128xi32>) : tensor<64x128xf32>, tensor<4x128xf8E4M3FN> -> tensor<64x128xf4E2M1FN>
  %e = tensor.empty() : tensor<128x64xf4E2M1FN>
  %t = linalg.transpose ins(%q : tensor<64x128xf4E2M1FN>) outs(%e : tensor<128x64xf4E2M1FN>) permutation = [1, 0]
  return %t : tensor<128x64xf4E2M1FN>
}

// E8M0 scales, rounded stochastically or to nearest even.
func.func @mx(%x: tensor<32x256xbf16>, %e: tensor<32x8xf8E8M0FNU>, %r: tensor<32x256xi32>, %e128: tensor<32x2xf8E8M0FNU>) -> (tensor<32x256xf8E4M3FN>, tensor<32x256xf8E5M2>) {
  %q = fp8.quantize %x, %e by <1x32> rounding <stochastic> rbits(%r : tensor<32x256xi32>) : tensor<32x256xbf16>, tensor<32x8xf8E8M0FNU> -> tensor<32x256xf8E4M3FN>
  %p = fp8.quantize %x, %e128 by <1x128> : tensor<32x256xbf16>, tensor<32x2xf8E8M0FNU> -> tensor<32x256xf8E5M2>
  return %q, %p : tensor<32x256xf8E4M3FN>, tensor<32x256xf8E5M2>
}
