// DeepSeek's f32 block scales on sm_100a: quantized in the graph by the pow2
// rule, they are powers of two that E8M0 holds exactly, so the MX kind
// applies them. A staging kernel writes each f32 scale's E8M0 code (its
// exponent field) into the tensor-memory layout, repeated over the four
// 32-long blocks of K that a 128-long block spans.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_100a artifacts=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_100a | FileCheck %s --check-prefix=PLAN

// CHECK-LABEL: .entry fp8_gemm_sm100a_e4m3e4m3_bf16_block32e8m0_128x128_s6(
// CHECK: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32
// CHECK-LABEL: .entry fp8_scale_layout_f32_sm100a(
// CHECK: div.u32
// CHECK: ld.global.b32
// CHECK: shr.u32 {{.*}}, 23;
// CHECK: st.global.b8

// Both scales are staged (rows 256 and 384, 16 k-blocks of 32 from 4 f32
// scales per row, B's shared by 128 rows), then the MX GEMM reads them.
// PLAN-LABEL: deepseek = {buffers
// PLAN-SAME: kernel = "fp8_scale_layout_f32_sm100a"
// PLAN-SAME: {kind = "i32", value = 256 : i64}, {kind = "i32", value = 16 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 4 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 4 : i64}, {kind = "i32", value = 4096 : i64}, {kind = "i32", value = 4 : i64}]
// PLAN-SAME: kernel = "fp8_scale_layout_f32_sm100a"
// PLAN-SAME: {kind = "i32", value = 384 : i64}, {kind = "i32", value = 16 : i64}, {kind = "i32", value = 128 : i64}, {kind = "i32", value = 4 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 4 : i64}, {kind = "i32", value = 6144 : i64}, {kind = "i32", value = 4 : i64}]
// PLAN-SAME: kernel = "fp8_gemm_sm100a_e4m3e4m3_bf16_block32e8m0_128x128_s6"
func.func @deepseek(%x: tensor<256x512xbf16>, %w: tensor<384x512xbf16>) -> tensor<256x384xbf16> {
  %a, %sa = fp8.dynamic_quantize %x by <1x128> rule <pow2> : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<256x4xf32>
  %b, %sb = fp8.dynamic_quantize %w by <128x128> rule <pow2> : tensor<384x512xbf16> -> tensor<384x512xf8E4M3FN>, tensor<3x4xf32>
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x4xf32>, tensor<3x4xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

// e5m2 codes keep their pow2 scales in E8M0's range up to a margin of 13
// (gemm-sm100-invalid.mlir rejects 14). K = 64 is shorter than a block: each
// f32 scale covers both 32-long k-blocks.
// PLAN-LABEL: e5m2_short_k = {buffers
// PLAN-SAME: kernel = "fp8_scale_layout_f32_sm100a"
// PLAN-SAME: {kind = "i32", value = 128 : i64}, {kind = "i32", value = 2 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 512 : i64}, {kind = "i32", value = 2 : i64}]
// PLAN-SAME: kernel = "fp8_scale_layout_f32_sm100a"
// PLAN-SAME: {kind = "i32", value = 256 : i64}, {kind = "i32", value = 2 : i64}, {kind = "i32", value = 128 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 1024 : i64}, {kind = "i32", value = 2 : i64}]
// PLAN-SAME: kernel = "fp8_gemm_sm100a_e4m3e5m2_f32_block32e8m0_128x128_s6"
func.func @e5m2_short_k(%x: tensor<128x64xbf16>, %w: tensor<256x64xbf16>) -> tensor<128x256xf32> {
  %a, %sa = fp8.dynamic_quantize %x by <1x128> rule <pow2> : tensor<128x64xbf16> -> tensor<128x64xf8E4M3FN>, tensor<128x1xf32>
  %b, %sb = fp8.dynamic_quantize %w by <128x128> rule <pow2, margin = 13> : tensor<256x64xbf16> -> tensor<256x64xf8E5M2>, tensor<2x1xf32>
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs : tensor<128x64xf8E4M3FN>, tensor<256x64xf8E5M2>, tensor<128x1xf32>, tensor<2x1xf32> -> tensor<128x256xf32>
  return %c : tensor<128x256xf32>
}

// A weight quantized at compile time (fp8-quantize-constants): its constant
// scales are powers of two in E8M0's range (2^-127, the f32 subnormal, among
// them), staged like the others.
// PLAN-LABEL: weight_constant = {buffers
// PLAN-SAME: kernel = "fp8_scale_layout_f32_sm100a"
// PLAN-SAME: kernel = "fp8_scale_layout_f32_sm100a"
// PLAN-SAME: kernel = "fp8_gemm_sm100a_e4m3e4m3_f32_block32e8m0_128x128_s6"
func.func @weight_constant(%x: tensor<128x256xbf16>, %b: tensor<128x256xf8E4M3FN>) -> tensor<128x128xf32> {
  %a, %sa = fp8.dynamic_quantize %x by <1x128> rule <pow2> : tensor<128x256xbf16> -> tensor<128x256xf8E4M3FN>, tensor<128x2xf32>
  %sb = arith.constant dense<[[0.5, 5.87747175E-39]]> : tensor<1x2xf32>
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs : tensor<128x256xf8E4M3FN>, tensor<128x256xf8E4M3FN>, tensor<128x2xf32>, tensor<1x2xf32> -> tensor<128x128xf32>
  return %c : tensor<128x128xf32>
}
