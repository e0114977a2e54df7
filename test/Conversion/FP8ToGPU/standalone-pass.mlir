// convert-fp8-to-gpu run on its own, with no earlier pass having loaded the
// dialects its kernel builders create: the E4M3 block scales of NVFP4 decode
// through the soft-float expansion, which counts leading zeros with
// math.ctlz, so the pass itself must load the math dialect.
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_100a | FileCheck %s

// CHECK: fp8.plans = {q = {
// CHECK: gpu.module
// CHECK: llvm.func @fp8_amax_bf16_
// CHECK: llvm.func @fp8_quantize_bf16_e2m1_b1x16_nvfp4_
// CHECK-NOT: func.func
func.func @q(%x: tensor<64x128xbf16>) -> (tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>, tensor<1x1xf32>) {
  %d, %s, %g = fp8.dynamic_quantize %x by <1x16> rule <nvfp4>
      : tensor<64x128xbf16> -> tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN> global tensor<1x1xf32>
  return %d, %s, %g : tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>, tensor<1x1xf32>
}
