// Batched scaled GEMMs on sm_100a: every role of the warp-specialized
// kernel walks the tiles of every matrix; 3-D tensor maps keep ragged tiles
// inside their matrix. MXFP8 scales are written by their quantizations in
// one tcgen05 layout per matrix, which the GEMM steps through by the
// layout's bytes.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_100a artifacts=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: fp8-opt %s --fp8-assign-scale-layouts=chip=sm_100a --convert-fp8-to-gpu=chip=sm_100a | FileCheck %s --check-prefix=PLAN

// Kernels in the order of first use, plans by function name.
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b1x32_e8m0_rceil_sat_e8m0_fused_vs_tmemsf_nanignore_vl_batched(
// CHECK-DAG: %ctaid.y
// CHECK-LABEL: .entry fp8_gemm_sm100a_batched_e4m3e4m3_f32_block32e8m0_128x128_s{{[0-9]+}}(
// CHECK-DAG: cp.async.bulk.tensor.3d
// CHECK-DAG: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK-DAG: tcgen05.cp.cta_group::1.32x128b.warpx4
// CHECK-DAG: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32
// CHECK-LABEL: .entry fp8_gemm_sm100a_batched_e4m3e5m2_bf16_rowcol_128x64_s{{[0-9]+}}(
// CHECK-DAG: cp.async.bulk.tensor.3d
// CHECK-LABEL: .entry fp8_gemm_sm100a_batched_e4m3e4m3_f32_tensor_128x64_s{{[0-9]+}}(
// CHECK-DAG: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: tcgen05.mma.cta_group::1.kind::f8f6f4
// CHECK-DAG: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK-NOT: cp.async.bulk.tensor.2d

// MXFP8 with ragged M (100) and K (96: three k-blocks in a 128-deep
// stage): each quantization writes one matrix's layout (a 128-row band of
// one 4-k-block stage, 512 bytes) per blockIdx.y; the GEMM moves 512 bytes
// per matrix.
// PLAN-LABEL: mxfp8 = {buffers
// PLAN-SAME: grid = [4, 2, 1], kernel = "fp8_quantize_bf16_e4m3_b1x32_e8m0_rceil_sat_e8m0_fused_vs_tmemsf_nanignore_vl_batched"
// PLAN-SAME: {kind = "i32", value = 512 : i64}, {kind = "i32", value = 0 : i64}]
// PLAN-SAME: grid = [2, 1, 1], kernel = "fp8_gemm_sm100a_batched_e4m3e4m3_f32_block32e8m0_128x128_s{{[0-9]+}}"
// PLAN-SAME: {kind = "i32", value = 2 : i64}, {kind = "i32", value = 512 : i64}, {kind = "i32", value = 512 : i64}]
func.func @mxfp8(%x: tensor<2x100x96xbf16>, %w: tensor<2x64x96xbf16>) -> tensor<2x100x64xf32> {
  %qx, %sx = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil> : tensor<2x100x96xbf16> -> tensor<2x100x96xf8E4M3FN>, tensor<2x100x3xf8E8M0FNU>
  %qw, %sw = fp8.dynamic_quantize %w by <1x32> rule <e8m0_rceil> : tensor<2x64x96xbf16> -> tensor<2x64x96xf8E4M3FN>, tensor<2x64x3xf8E8M0FNU>
  %c = fp8.scaled_matmul %qx, %qw scales(%sx, %sw) by(<1x32>, <1x32>) transpose_rhs : tensor<2x100x96xf8E4M3FN>, tensor<2x64x96xf8E4M3FN>, tensor<2x100x3xf8E8M0FNU>, tensor<2x64x3xf8E8M0FNU> -> tensor<2x100x64xf32>
  return %c : tensor<2x100x64xf32>
}

// Ragged in every extent (M = 100, N = 48, K = 80).
// PLAN-LABEL: rowwise_ragged = {buffers
// PLAN-SAME: grid = [3, 1, 1], kernel = "fp8_gemm_sm100a_batched_e4m3e5m2_bf16_rowcol_128x64_s{{[0-9]+}}"
// PLAN-SAME: dims = [80, 100, 3], dtype = "uint8", kind = "tensor_map", strides = [80, 8000]
// PLAN-SAME: dims = [80, 48, 3], dtype = "uint8", kind = "tensor_map", strides = [80, 3840]
// PLAN-SAME: {kind = "i32", value = 3 : i64}, {kind = "i32", value = 400 : i64}, {kind = "i32", value = 192 : i64}]
func.func @rowwise_ragged(%a: tensor<3x100x80xf8E4M3FN>, %b: tensor<3x48x80xf8E5M2>, %sa: tensor<3x100x1xf32>, %sb: tensor<3x48x1xf32>) -> tensor<3x100x48xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x*>, <1x*>) transpose_rhs : tensor<3x100x80xf8E4M3FN>, tensor<3x48x80xf8E5M2>, tensor<3x100x1xf32>, tensor<3x48x1xf32> -> tensor<3x100x48xbf16>
  return %c : tensor<3x100x48xbf16>
}

// PLAN-LABEL: tensor = {buffers
// PLAN-SAME: grid = [4, 1, 1], kernel = "fp8_gemm_sm100a_batched_e4m3e4m3_f32_tensor_128x64_s{{[0-9]+}}"
// PLAN-SAME: dims = [32, 64, 4]
// PLAN-SAME: {kind = "i32", value = 4 : i64}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 0 : i64}]
func.func @tensor(%a: tensor<4x64x32xf8E4M3FN>, %b: tensor<4x64x32xf8E4M3FN>, %sa: tensor<1x1x1xf32>, %sb: tensor<1x1x1xf32>) -> tensor<4x64x64xf32> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<4x64x32xf8E4M3FN>, tensor<4x64x32xf8E4M3FN>, tensor<1x1x1xf32>, tensor<1x1x1xf32> -> tensor<4x64x64xf32>
  return %c : tensor<4x64x64xf32>
}
