// Quantizations of batches of matrices ([heads, S, D]), and of vectors.
// Leading dimensions fold into the rows, with the kernels of one matrix,
// when no scale block straddles two matrices; otherwise, and for transposed
// copies (one transpose per matrix), each matrix is a grid row of a batched
// kernel (blockIdx.y) that moves its buffers to its matrix. A vector is one
// row.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_90a | FileCheck %s --check-prefix=PLAN

// Kernels in the order of first use, plans by function name. Folded
// matrices take the kernels of one matrix.
// CHECK-LABEL: .entry fp8_amax_f32_b32x128_nanignore_vl_gs(
// CHECK-NOT: %ctaid.y
// CHECK-LABEL: .entry fp8_quantize_f32_e4m3_b32x128_ratio_sat_vs_nanignore_vl(
// CHECK-NOT: %ctaid.y
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b1x128_pow2_sat_fused_vs_nanignore_vl(
// CHECK-LABEL: .entry fp8_quantize_bf16_e5m2_b32x128_sat_given_vs_nanprop_vl(
// CHECK-NOT: %ctaid.y
// CHECK-LABEL: .entry fp8_amax_bf16_b32x128_nanignore_vl_batched(
// CHECK-DAG: mov.u32 %r{{[0-9]+}}, %ctaid.y;
// CHECK-DAG: atom.global.max.u32
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b32x128_pow2_sat_vs_nanignore_vl_batched(
// CHECK-DAG: mov.u32 %r{{[0-9]+}}, %ctaid.y;
// CHECK-DAG: cvt.rn.satfinite.e4m3x2.f32
// CHECK-LABEL: .entry fp8_amax_bf16_b16x128_nanignore_vl(
// CHECK-NOT: %ctaid.y
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b16x128_pow2_sat_vs_nanignore_vl(
// CHECK-NOT: %ctaid.y
// CHECK-LABEL: .entry fp8_amax_bf16_b32x1_nanignore_vl_batched(
// CHECK-DAG: mov.u32 %r{{[0-9]+}}, %ctaid.y;
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b32x1_pow2_sat_t_vs_nanignore_vl_batched(
// CHECK-DAG: mov.u32 %r{{[0-9]+}}, %ctaid.y;
// CHECK-DAG: ld.shared.b8
// CHECK-LABEL: .entry fp8_quantize_f32_e5m2_b32x128_sat_given_nanprop_vl(

// Per-tensor scales of 4 heads: one [256, 64] matrix, one amax.
// PLAN-LABEL: per_tensor = {buffers
// PLAN-SAME: grid = [8, 1, 1], kernel = "fp8_amax_f32_b32x128_nanignore_vl_gs"
// PLAN-SAME: {kind = "i32", value = 256 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 256 : i64}, {kind = "i32", value = 64 : i64}]
func.func @per_tensor(%x: tensor<4x64x64xf32>) -> (tensor<4x64x64xf8E4M3FN>, tensor<1x1x1xf32>) {
  %q, %s = fp8.dynamic_quantize %x by <tensor> rule <ratio> : tensor<4x64x64xf32> -> tensor<4x64x64xf8E4M3FN>, tensor<1x1x1xf32>
  return %q, %s : tensor<4x64x64xf8E4M3FN>, tensor<1x1x1xf32>
}

// Per-row scales and given per-tensor scales fold into rows.
// PLAN-LABEL: rows_and_given = {buffers
// PLAN-SAME: kernel = "fp8_quantize_bf16_e4m3_b1x128_pow2_sat_fused_vs_nanignore_vl"
// PLAN-SAME: {kind = "i32", value = 256 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 64 : i64}
// PLAN-SAME: kernel = "fp8_quantize_bf16_e5m2_b32x128_sat_given_vs_nanprop_vl"
// PLAN-SAME: {kind = "i32", value = 256 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 256 : i64}, {kind = "i32", value = 64 : i64}
func.func @rows_and_given(%x: tensor<4x64x64xbf16>, %s: tensor<1x1x1xf32>) -> (tensor<4x64x64xf8E4M3FN>, tensor<4x64x1xf32>, tensor<4x64x64xf8E5M2>) {
  %q, %sq = fp8.dynamic_quantize %x by <1x*> rule <pow2> : tensor<4x64x64xbf16> -> tensor<4x64x64xf8E4M3FN>, tensor<4x64x1xf32>
  %g = fp8.quantize %x, %s by <tensor> : tensor<4x64x64xbf16>, tensor<1x1x1xf32> -> tensor<4x64x64xf8E5M2>
  return %q, %sq, %g : tensor<4x64x64xf8E4M3FN>, tensor<4x64x1xf32>, tensor<4x64x64xf8E5M2>
}

// Squares of 128 rows on 200-row matrices: a 128-row block and a 72-row
// block in each matrix, which folding the rows would mix up. The amaxes of
// a matrix's 2 x 1 blocks are 8 bytes apart, and so are its scales.
// PLAN-LABEL: squares_of_ragged_matrices = {buffers
// PLAN-SAME: {bytes = 16 : i64, id = 3 : i64, kind = "temp", offset = 0 : i64, type = tensor<4x1xf32>}
// PLAN-SAME: grid = [7, 2, 1], kernel = "fp8_amax_bf16_b32x128_nanignore_vl_batched"
// PLAN-SAME: {kind = "i32", value = 200 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 128 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 8 : i64}]
// PLAN-SAME: grid = [7, 2, 1], kernel = "fp8_quantize_bf16_e4m3_b32x128_pow2_sat_vs_nanignore_vl_batched"
// PLAN-SAME: {kind = "i32", value = 64 : i64}, {kind = "i32", value = 8 : i64}, {kind = "i32", value = 8 : i64}]
func.func @squares_of_ragged_matrices(%x: tensor<2x200x64xbf16>) -> (tensor<2x200x64xf8E4M3FN>, tensor<2x2x1xf32>) {
  %q, %s = fp8.dynamic_quantize %x by <128x128> rule <pow2> : tensor<2x200x64xbf16> -> tensor<2x200x64xf8E4M3FN>, tensor<2x2x1xf32>
  return %q, %s : tensor<2x200x64xf8E4M3FN>, tensor<2x2x1xf32>
}

// Squares of 128 rows on 48-row matrices (DeepSeek's blocks of a K-major
// weight of 48 rows per head): one 48-row block per matrix, and folding the
// rows keeps them apart, but the 32-row tiles of the folded [96, 128] straddle
// blocks (rows 32 to 63 hold the first block's last 16 and the second's first
// 16). The tiles measure parts of 16 rows, the largest dividing both, and the
// amax kernel folds each part into its block; then every part of a block
// takes the block's scale.
// PLAN-LABEL: straddling_blocks = {buffers
// PLAN-SAME: {bytes = 8 : i64, id = 3 : i64, kind = "temp", offset = 0 : i64, type = tensor<2x1xf32>}
// PLAN-SAME: grid = [3, 1, 1], kernel = "fp8_amax_bf16_b16x128_nanignore_vl"
// PLAN-SAME: {kind = "i32", value = 96 : i64}, {kind = "i32", value = 128 : i64}, {kind = "i32", value = 48 : i64}, {kind = "i32", value = 128 : i64}
// PLAN-SAME: grid = [3, 1, 1], kernel = "fp8_quantize_bf16_e4m3_b16x128_pow2_sat_vs_nanignore_vl"
func.func @straddling_blocks(%w: tensor<2x48x128xbf16>) -> (tensor<2x48x128xf8E4M3FN>, tensor<2x1x1xf32>) {
  %q, %s = fp8.dynamic_quantize %w by <128x128> rule <pow2> : tensor<2x48x128xbf16> -> tensor<2x48x128xf8E4M3FN>, tensor<2x1x1xf32>
  return %q, %s : tensor<2x48x128xf8E4M3FN>, tensor<2x1x1xf32>
}

// A copy read only transposed (V^T of each head, the K-major operand of
// PV): each matrix written transposed, codes [32, 64] and 32 column scales
// (128 bytes) per head; a column of 64 rows takes an amax kernel first.
// PLAN-LABEL: transposed_heads = {buffers
// PLAN-SAME: grid = [2, 4, 1], kernel = "fp8_amax_bf16_b32x1_nanignore_vl_batched"
// PLAN-SAME: grid = [2, 4, 1], kernel = "fp8_quantize_bf16_e4m3_b32x1_pow2_sat_t_vs_nanignore_vl_batched"
// PLAN-SAME: {kind = "i32", value = 64 : i64}, {kind = "i32", value = 32 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 128 : i64}, {kind = "i32", value = 128 : i64}]
func.func @transposed_heads(%v: tensor<4x64x32xbf16>) -> (tensor<4x32x64xf8E4M3FN>, tensor<4x32x1xf32>) {
  %q, %s = fp8.dynamic_quantize %v by <*x1> rule <pow2> : tensor<4x64x32xbf16> -> tensor<4x64x32xf8E4M3FN>, tensor<4x1x32xf32>
  %e = tensor.empty() : tensor<4x32x64xf8E4M3FN>
  %t = linalg.transpose ins(%q : tensor<4x64x32xf8E4M3FN>) outs(%e : tensor<4x32x64xf8E4M3FN>) permutation = [0, 2, 1]
  %es = tensor.empty() : tensor<4x32x1xf32>
  %ts = linalg.transpose ins(%s : tensor<4x1x32xf32>) outs(%es : tensor<4x32x1xf32>) permutation = [0, 2, 1]
  return %t, %ts : tensor<4x32x64xf8E4M3FN>, tensor<4x32x1xf32>
}

// A vector (a bias quantized before its broadcast) is a [1, 200] matrix.
// PLAN-LABEL: vector = {buffers
// PLAN-SAME: grid = [2, 1, 1], kernel = "fp8_quantize_f32_e5m2_b32x128_sat_given_nanprop_vl"
// PLAN-SAME: {kind = "i32", value = 1 : i64}, {kind = "i32", value = 200 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 200 : i64}, {kind = "i32", value = 200 : i64}]
func.func @vector(%b: tensor<200xf32>, %s: tensor<1xf32>) -> tensor<200xf8E5M2> {
  %q = fp8.quantize %b, %s by <tensor> : tensor<200xf32>, tensor<1xf32> -> tensor<200xf8E5M2>
  return %q : tensor<200xf8E5M2>
}

