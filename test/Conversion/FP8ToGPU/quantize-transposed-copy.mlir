// Codes by one scale per tensor read both as they are and through
// transposes (fp8-legalize-layout's K-major copies on Hopper): one paired
// kernel writes both layouts from one read of the input, with no layout
// kernel for the transposes. Measured scales (dynamic_quantize) share the
// amax pass; given scales (fp8.quantize: delayed scaling, or a scale from
// a GEMM's amax) are read by both copies. Codes read only transposed are
// stored transposed, as before; block scales keep their layout kernel.
// Batches of matrices read through transposes of each matrix take the same
// paired kernels, a grid row per matrix: their one scale spans every
// matrix, so the whole-matrix amax kernel measures the batch as one
// [256, 96] matrix first, and each tile's copies are written by that scale
// (the matrices' strides 0).
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_90a | FileCheck %s --check-prefix=PLAN
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_90a --remarks-filter=fp8-gpu \
// RUN:   --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// Both copies' codes from the registers, the transposed one through shared
// memory; the given scale read, no amax.
// CHECK-LABEL: .entry fp8_quantize_f32_e5m2_b32x128_sat_given_vs_pair_b32x128_t_vs_r32_nanprop_vl(
// CHECK-NOT: atom.global
// CHECK-DAG: cvt.rn.satfinite.e5m2x2.f32
// CHECK-DAG: ld.shared.b8
// CHECK-DAG: st.global.v4.b32
// CHECK: ret;

// The given scale for both copies of both matrices; no layout kernel.
// PLAN-LABEL: batch_given = {buffers
// PLAN-NOT: fp8_layout
// PLAN-SAME: launches = [{block = [256, 1, 1], cluster = [1, 1, 1], grid = [2, 2, 1], kernel = "fp8_quantize_f32_e5m2_b32x128_sat_given_vs_pair_b32x128_t_vs_r32_nanprop_vl_batched", kind = "kernel", params = [{buffer = 0 : i64, kind = "buffer"}, {buffer = 1 : i64, kind = "buffer"}, {buffer = 2 : i64, kind = "buffer"}, {buffer = 2 : i64, kind = "buffer"}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 96 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 96 : i64}, {kind = "i32", value = 96 : i64}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 0 : i64}, {buffer = 1 : i64, kind = "buffer"}, {buffer = 3 : i64, kind = "buffer"}, {buffer = 3 : i64, kind = "buffer"}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 96 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 0 : i64}], persistent = false, shared_bytes = 21536 : i64}]
// One amax for the four matrices, then one paired kernel.
// PLAN-LABEL: batch_tensor = {buffers
// PLAN-NOT: fp8_layout
// PLAN-SAME: launches = [{buffer = 4 : i64, byte = 0 : i64, kind = "fill"}, {block = [256, 1, 1], cluster = [1, 1, 1], grid = [8, 1, 1], kernel = "fp8_amax_bf16_b32x128_nanignore_vl_gs", kind = "kernel", params = [{buffer = 0 : i64, kind = "buffer"}, {buffer = 4 : i64, kind = "buffer"}, {kind = "i32", value = 256 : i64}, {kind = "i32", value = 96 : i64}, {kind = "i32", value = 256 : i64}, {kind = "i32", value = 96 : i64}], persistent = false, shared_bytes = 0 : i64}, {block = [256, 1, 1], cluster = [1, 1, 1], grid = [2, 4, 1], kernel = "fp8_quantize_bf16_e4m3_b32x128_ratio_sat_vs_pair_b32x128_t_vs_r32_nanignore_vl_batched", kind = "kernel", params = [{buffer = 0 : i64, kind = "buffer"}, {buffer = 4 : i64, kind = "buffer"}, {buffer = 1 : i64, kind = "buffer"}, {buffer = 2 : i64, kind = "buffer"}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 96 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 96 : i64}, {kind = "i32", value = 96 : i64}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 0 : i64}, {buffer = 4 : i64, kind = "buffer"}, {buffer = 3 : i64, kind = "buffer"}, {buffer = 2 : i64, kind = "buffer"}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 96 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 0 : i64}], persistent = false, shared_bytes = 21536 : i64}]
// PLAN-LABEL: blocks = {buffers
// PLAN-SAME: kernel = "fp8_quantize_bf16_e4m3_b1x128_pow2_sat_fused_vs_nanignore_vl"
// PLAN-SAME: kernel = "fp8_layout_transpose
// 256 x 512 in 8 x 4 tiles: the given scale (buffer 1) is both copies' "amax" parameter;
// codes in buffer 2, the transposed copy in buffer 3 with rows of 256.
// PLAN-LABEL: given = {buffers
// PLAN-NOT: fp8_layout
// PLAN-SAME: launches = [{block = [256, 1, 1], cluster = [1, 1, 1], grid = [32, 1, 1], kernel = "fp8_quantize_f32_e5m2_b32x128_sat_given_vs_pair_b32x128_t_vs_r32_nanprop_vl", kind = "kernel", params = [{buffer = 0 : i64, kind = "buffer"}, {buffer = 1 : i64, kind = "buffer"}, {buffer = 2 : i64, kind = "buffer"}, {buffer = 2 : i64, kind = "buffer"}, {kind = "i32", value = 256 : i64}, {kind = "i32", value = 512 : i64}, {kind = "i32", value = 256 : i64}, {kind = "i32", value = 512 : i64}, {kind = "i32", value = 512 : i64}, {buffer = 1 : i64, kind = "buffer"}, {buffer = 3 : i64, kind = "buffer"}, {buffer = 3 : i64, kind = "buffer"}, {kind = "i32", value = 256 : i64}, {kind = "i32", value = 512 : i64}, {kind = "i32", value = 256 : i64}], persistent = false, shared_bytes = 21536 : i64}]
// PLAN-LABEL: only_transposed = {buffers
// PLAN-SAME: kernel = "fp8_quantize_bf16_e4m3_b32x128_ratio_sat_t_vs_nanignore_vl"
// PLAN-NOT: pair
// PLAN-LABEL: tensor = {buffers
// PLAN-NOT: fp8_layout
// PLAN-SAME: kind = "fill"
// PLAN-SAME: kernel = "fp8_amax_bf16_b32x128_nanignore_vl_gs"
// PLAN-SAME: kernel = "fp8_quantize_bf16_e4m3_b32x128_ratio_sat_vs_pair_b32x128_t_vs_r32_nanignore_vl"
// PLAN-SAME: shared_bytes = 21536 : i64}], workspace_bytes

// REMARK-DAG: remark: [Passed] quantize-transpose-fused | Category:fp8-gpu | Function=tensor | Remark="codes and their transposed copy written from one read of the input: no transpose kernel"
// REMARK-DAG: remark: [Passed] quantize-transpose-fused | Category:fp8-gpu | Function=given | Remark="codes and their transposed copy written from one read of the input: no transpose kernel"
// REMARK-DAG: remark: [Passed] quantize-transpose-fused | Category:fp8-gpu | Function=batch_tensor | Remark="codes and their transposed copy written from one read of the input: no transpose kernel"
// REMARK-DAG: remark: [Passed] quantize-transpose-fused | Category:fp8-gpu | Function=batch_given | Remark="codes and their transposed copy written from one read of the input: no transpose kernel"
// REMARK-NOT: Function=only_transposed
// REMARK-NOT: Function=blocks

func.func @tensor(%x: tensor<256x512xbf16>) -> (tensor<256x512xf8E4M3FN>, tensor<512x256xf8E4M3FN>, tensor<1x1xf32>) {
  %q, %s = fp8.dynamic_quantize %x by <tensor> rule <ratio> : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<1x1xf32>
  %e = tensor.empty() : tensor<512x256xf8E4M3FN>
  %t = linalg.transpose ins(%q : tensor<256x512xf8E4M3FN>) outs(%e : tensor<512x256xf8E4M3FN>) permutation = [1, 0]
  return %q, %t, %s : tensor<256x512xf8E4M3FN>, tensor<512x256xf8E4M3FN>, tensor<1x1xf32>
}

func.func @given(%x: tensor<256x512xf32>, %s: tensor<1x1xf32>) -> (tensor<256x512xf8E5M2>, tensor<512x256xf8E5M2>) {
  %q = fp8.quantize %x, %s by <tensor> : tensor<256x512xf32>, tensor<1x1xf32> -> tensor<256x512xf8E5M2>
  %e = tensor.empty() : tensor<512x256xf8E5M2>
  %t = linalg.transpose ins(%q : tensor<256x512xf8E5M2>) outs(%e : tensor<512x256xf8E5M2>) permutation = [1, 0]
  return %q, %t : tensor<256x512xf8E5M2>, tensor<512x256xf8E5M2>
}

func.func @only_transposed(%x: tensor<256x512xbf16>) -> (tensor<512x256xf8E4M3FN>, tensor<1x1xf32>) {
  %q, %s = fp8.dynamic_quantize %x by <tensor> rule <ratio> : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<1x1xf32>
  %e = tensor.empty() : tensor<512x256xf8E4M3FN>
  %t = linalg.transpose ins(%q : tensor<256x512xf8E4M3FN>) outs(%e : tensor<512x256xf8E4M3FN>) permutation = [1, 0]
  return %t, %s : tensor<512x256xf8E4M3FN>, tensor<1x1xf32>
}

func.func @blocks(%x: tensor<256x512xbf16>) -> (tensor<256x512xf8E4M3FN>, tensor<512x256xf8E4M3FN>, tensor<256x4xf32>) {
  %q, %s = fp8.dynamic_quantize %x by <1x128> rule <pow2> : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<256x4xf32>
  %e = tensor.empty() : tensor<512x256xf8E4M3FN>
  %t = linalg.transpose ins(%q : tensor<256x512xf8E4M3FN>) outs(%e : tensor<512x256xf8E4M3FN>) permutation = [1, 0]
  return %q, %t, %s : tensor<256x512xf8E4M3FN>, tensor<512x256xf8E4M3FN>, tensor<256x4xf32>
}

func.func @batch_tensor(%x: tensor<4x64x96xbf16>) -> (tensor<4x64x96xf8E4M3FN>, tensor<4x96x64xf8E4M3FN>, tensor<1x1x1xf32>) {
  %q, %s = fp8.dynamic_quantize %x by <tensor> rule <ratio> : tensor<4x64x96xbf16> -> tensor<4x64x96xf8E4M3FN>, tensor<1x1x1xf32>
  %e = tensor.empty() : tensor<4x96x64xf8E4M3FN>
  %t = linalg.transpose ins(%q : tensor<4x64x96xf8E4M3FN>) outs(%e : tensor<4x96x64xf8E4M3FN>) permutation = [0, 2, 1]
  return %q, %t, %s : tensor<4x64x96xf8E4M3FN>, tensor<4x96x64xf8E4M3FN>, tensor<1x1x1xf32>
}

func.func @batch_given(%x: tensor<2x64x96xf32>, %s: tensor<1x1x1xf32>) -> (tensor<2x64x96xf8E5M2>, tensor<2x96x64xf8E5M2>) {
  %q = fp8.quantize %x, %s by <tensor> : tensor<2x64x96xf32>, tensor<1x1x1xf32> -> tensor<2x64x96xf8E5M2>
  %e = tensor.empty() : tensor<2x96x64xf8E5M2>
  %t = linalg.transpose ins(%q : tensor<2x64x96xf8E5M2>) outs(%e : tensor<2x96x64xf8E5M2>) permutation = [0, 2, 1]
  return %q, %t : tensor<2x64x96xf8E5M2>, tensor<2x96x64xf8E5M2>
}
