// A NaN product takes the element's NaN (docs/numerics.md section 2), which
// the GPU's multiply, returning the canonical NaN, does not give: each code
// is chosen from the unscaled element x. The CPU reference gives the same
// codes (Execution/Numerics/nan-products.mlir).
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_100a artifacts=%t" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx

// E2M1 has no NaN: a NaN product becomes the zero of x's sign, x's sign bit
// masked, before cvt.rn.satfinite.e2m1x2.
// CHECK-LABEL: .entry fp8_quantize_f32_e2m1_b1x16_sat_given2l_vs_nanprop_vl(
// CHECK: setp.nan.f32 [[N:%p[0-9]+]], [[LO:%r[0-9]+]], [[LO]];
// CHECK-NEXT: and.b32 [[Z:%r[0-9]+]], {{%r[0-9]+}}, -2147483648;
// CHECK-NEXT: selp.f32 [[V:%r[0-9]+]], [[Z]], [[LO]], [[N]];
// CHECK: cvt.rn.satfinite.e2m1x2.f32 {{.*}}, [[V]];

// E5M2 under cvt.rn.satfinite: the NaN code's sign and payload bits come
// from the element's NaN, x when x is NaN, else the quiet NaN with x's sign
// (0x7E | 0x80 * sign; PTX copysign takes its first operand's sign).
// CHECK-LABEL: .entry fp8_quantize_bf16_e5m2_b1x32_sat_e8m0_given_vs_nanprop_vl(
// CHECK: cvt.rn.satfinite.e5m2x2.f32
// CHECK: mov.b32 [[QNAN:%r[0-9]+]], 0f7FC00000;
// CHECK-NEXT: copysign.f32 [[S:%r[0-9]+]], [[X:%r[0-9]+]], [[QNAN]];
// CHECK-NEXT: setp.nan.f32 [[XNAN:%p[0-9]+]], [[X]], [[X]];
// CHECK-NEXT: selp.f32 [[E:%r[0-9]+]], [[X]], [[S]], [[XNAN]];
// CHECK-NEXT: shr.u32 [[SH:%r[0-9]+]], [[E]], 24;
// CHECK-NEXT: and.b32 [[SIGN:%r[0-9]+]], [[SH]], 128;
// CHECK-NEXT: bfe.u32 [[P:%r[0-9]+]], [[E]], 21, 1;

// E5M2 nonfinite (the soft conversion): the NaN rounded is x when x is NaN,
// else the quiet NaN with x's sign (PTX copysign takes its first operand's
// sign).
// CHECK-LABEL: .entry fp8_quantize_bf16_e5m2_b1x32_nonfinite_e8m0_given_vs_nanprop_vl(
// CHECK: setp.nan.f32 [[N:%p[0-9]+]], [[Y:%r[0-9]+]], [[Y]];
// CHECK-NEXT: mov.b32 [[QNAN:%r[0-9]+]], 0f7FC00000;
// CHECK-NEXT: copysign.f32 [[S:%r[0-9]+]], [[X:%r[0-9]+]], [[QNAN]];
// CHECK-NEXT: setp.nan.f32 [[XNAN:%p[0-9]+]], [[X]], [[X]];
// CHECK-NEXT: selp.f32 [[E:%r[0-9]+]], [[X]], [[S]], [[XNAN]];
// CHECK-NEXT: selp.f32 {{%r[0-9]+}}, [[E]], [[Y]], [[N]];

func.func @e2m1(%x: tensor<64x128xf32>, %sb: tensor<64x8xf8E4M3FN>, %s: tensor<1x1xf32>) -> tensor<64x128xf4E2M1FN> {
  %q = fp8.quantize %x, %sb by <1x16> global(%s : tensor<1x1xf32>) : tensor<64x128xf32>, tensor<64x8xf8E4M3FN> -> tensor<64x128xf4E2M1FN>
  return %q : tensor<64x128xf4E2M1FN>
}

func.func @e5m2(%x: tensor<32x256xbf16>, %e: tensor<32x8xf8E8M0FNU>) -> (tensor<32x256xf8E5M2>, tensor<32x256xf8E5M2>) {
  %p = fp8.quantize %x, %e by <1x32> : tensor<32x256xbf16>, tensor<32x8xf8E8M0FNU> -> tensor<32x256xf8E5M2>
  %q = fp8.quantize %x, %e by <1x32> overflow <nonfinite> : tensor<32x256xbf16>, tensor<32x8xf8E8M0FNU> -> tensor<32x256xf8E5M2>
  return %p, %q : tensor<32x256xf8E5M2>, tensor<32x256xf8E5M2>
}
