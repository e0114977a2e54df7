// Batched scaled GEMMs on sm_90a (attention's [heads, S, D] products): one
// persistent launch walks the tiles of every matrix; 3-D tensor maps
// [K, rows, batches] with boxes of one matrix keep ragged tiles from reading
// the next matrix; scales move by their batch stride (0 when the batch
// shares them), results by M x N: by default through a 3-D tensor map of
// the results for TMA stores, or from registers with sm90-tma-store=0
// (PLANREG).
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_90a | FileCheck %s --check-prefix=PLAN
// RUN: fp8-opt %s --convert-fp8-to-gpu="chip=sm_90a sm90-tma-store=0" | FileCheck %s --check-prefix=PLANREG

// Kernels in the order of first use, plans by function name.
// CHECK-LABEL: .entry fp8_gemm_sm90a_batched_e4m3e4m3_bf16_block128f32sq_tma_128x128_s6(
// CHECK-DAG: cp.async.bulk.tensor.3d
// CHECK-DAG: fma.rn.f32
// CHECK-LABEL: .entry fp8_gemm_sm90a_batched_e4m3e4m3_e4m3_tensor_p4_biasbf16_amax_tma_128x128_s6(
// CHECK-DAG: cp.async.bulk.tensor.3d
// CHECK-DAG: cvt.rn.satfinite.e4m3x2.f32
// CHECK-DAG: atom.global.max.u32
// CHECK-LABEL: .entry fp8_gemm_sm90a_batched_e4m3e4m3_f32_block32e8m0_tma_128x64_s7(
// CHECK-DAG: cp.async.bulk.tensor.3d
// CHECK-DAG: fma.rn.f32
// CHECK-LABEL: .entry fp8_gemm_sm90a_batched_e4m3e5m2_bf16_rowcol_p4_tma_128x64_s8(
// CHECK-DAG: cp.async.bulk.tensor.3d
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e5m2
// CHECK-DAG: cvt.rn.bf16x2.f32
// CHECK-LABEL: .entry fp8_gemm_sm90a_batched_e4m3e4m3_f32_tensor_p4_tma_128x64_s8(
// CHECK-DAG: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// CHECK-NOT: cp.async.bulk.tensor.2d

// DeepSeek with ragged M (200: two tile rows per matrix): A's scales are
// 200 x 2 f32 per matrix, B's 128x128 squares 2 x 2.
// PLAN-LABEL: deepseek = {buffers
// PLAN-SAME: grid = [8, 1, 1], kernel = "fp8_gemm_sm90a_batched_e4m3e4m3_bf16_block128f32sq_tma_128x128_s6"
// PLAN-SAME: {kind = "i32", value = 200 : i64}, {kind = "i32", value = 256 : i64}, {kind = "i32", value = 256 : i64}, {kind = "i32", value = 2 : i64}, {kind = "i32", value = 1600 : i64}, {kind = "i32", value = 16 : i64}]
func.func @deepseek(%a: tensor<2x200x256xf8E4M3FN>, %b: tensor<2x256x256xf8E4M3FN>, %sa: tensor<2x200x2xf32>, %sb: tensor<2x2x2xf32>) -> tensor<2x200x256xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs : tensor<2x200x256xf8E4M3FN>, tensor<2x256x256xf8E4M3FN>, tensor<2x200x2xf32>, tensor<2x2x2xf32> -> tensor<2x200x256xbf16>
  return %c : tensor<2x200x256xbf16>
}

// FP8 results and their amax over the whole batch; one bias for every
// matrix.
// PLAN-LABEL: fp8_out = {buffers
// PLAN-SAME: grid = [4, 1, 1], kernel = "fp8_gemm_sm90a_batched_e4m3e4m3_e4m3_tensor_p4_biasbf16_amax_tma_128x128_s6"
func.func @fp8_out(%a: tensor<2x128x128xf8E4M3FN>, %b: tensor<2x256x128xf8E4M3FN>, %sa: tensor<1x1x1xf32>, %sb: tensor<1x1x1xf32>, %bias: tensor<256xbf16>, %so: tensor<1x1xf32>) -> (tensor<2x128x256xf8E4M3FN>, tensor<1x1xf32>) {
  %c, %amax = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) bias(%bias : tensor<256xbf16>) out_scale(%so : tensor<1x1xf32>) transpose_rhs : tensor<2x128x128xf8E4M3FN>, tensor<2x256x128xf8E4M3FN>, tensor<1x1x1xf32>, tensor<1x1x1xf32> -> tensor<2x128x256xf8E4M3FN>, amax tensor<1x1xf32>
  return %c, %amax : tensor<2x128x256xf8E4M3FN>, tensor<1x1xf32>
}

// MXFP8: E8M0 scales, one byte each: 64 x 2 (A) and 32 x 2 (B) per matrix.
// PLAN-LABEL: mxfp8 = {buffers
// PLAN-SAME: grid = [2, 1, 1], kernel = "fp8_gemm_sm90a_batched_e4m3e4m3_f32_block32e8m0_tma_128x64_s7"
// PLAN-SAME: {kind = "i32", value = 2 : i64}, {kind = "i32", value = 128 : i64}, {kind = "i32", value = 64 : i64}]
func.func @mxfp8(%a: tensor<2x64x64xf8E4M3FN>, %b: tensor<2x32x64xf8E4M3FN>, %sa: tensor<2x64x2xf8E8M0FNU>, %sb: tensor<2x32x2xf8E8M0FNU>) -> tensor<2x64x32xf32> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) transpose_rhs : tensor<2x64x64xf8E4M3FN>, tensor<2x32x64xf8E4M3FN>, tensor<2x64x2xf8E8M0FNU>, tensor<2x32x2xf8E8M0FNU> -> tensor<2x64x32xf32>
  return %c : tensor<2x64x32xf32>
}

// Ragged in every extent (M = 100, N = 48, K = 80): each box stops at its
// matrix. The row scales of a matrix are 100 (A) and 48 (B) f32 apart.
// PLAN-LABEL: rowwise_ragged = {buffers
// PLAN-SAME: grid = [3, 1, 1], kernel = "fp8_gemm_sm90a_batched_e4m3e5m2_bf16_rowcol_p4_tma_128x64_s8"
// PLAN-SAME: params = [{box = [128, 128, 1], buffer = 0 : i64, dims = [80, 100, 3], dtype = "uint8", kind = "tensor_map", strides = [80, 8000], swizzle = "128B"}, {box = [128, 64, 1], buffer = 1 : i64, dims = [80, 48, 3], dtype = "uint8", kind = "tensor_map", strides = [80, 3840], swizzle = "128B"}
// PLAN-SAME: {kind = "i32", value = 100 : i64}, {kind = "i32", value = 48 : i64}, {kind = "i32", value = 80 : i64}, {kind = "i32", value = 3 : i64}, {kind = "i32", value = 400 : i64}, {kind = "i32", value = 192 : i64}]
func.func @rowwise_ragged(%a: tensor<3x100x80xf8E4M3FN>, %b: tensor<3x48x80xf8E5M2>, %sa: tensor<3x100x1xf32>, %sb: tensor<3x48x1xf32>) -> tensor<3x100x48xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x*>, <1x*>) transpose_rhs : tensor<3x100x80xf8E4M3FN>, tensor<3x48x80xf8E5M2>, tensor<3x100x1xf32>, tensor<3x48x1xf32> -> tensor<3x100x48xbf16>
  return %c : tensor<3x100x48xbf16>
}

// Four tiles (one per head); per-tensor scales shared by the batch. The
// results' map: rows of 64 f32 (256 bytes), 64 x 64 per matrix.
// PLAN-LABEL: tensor = {buffers
// PLAN-SAME: grid = [4, 1, 1], kernel = "fp8_gemm_sm90a_batched_e4m3e4m3_f32_tensor_p4_tma_128x64_s8"
// PLAN-SAME: params = [{box = [128, 128, 1], buffer = 0 : i64, dims = [32, 64, 4], dtype = "uint8", kind = "tensor_map", strides = [32, 2048], swizzle = "128B"}, {box = [128, 64, 1], buffer = 1 : i64, dims = [32, 64, 4], dtype = "uint8", kind = "tensor_map", strides = [32, 2048], swizzle = "128B"}, {box = [128, 64, 1], buffer = 4 : i64, dims = [256, 64, 4], dtype = "uint8", kind = "tensor_map", strides = [256, 16384], swizzle = "128B"}, {buffer = 2 : i64, kind = "buffer"}, {buffer = 3 : i64, kind = "buffer"}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 32 : i64}, {kind = "i32", value = 4 : i64}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 0 : i64}]
// PLANREG-LABEL: tensor = {buffers
// PLANREG-SAME: grid = [4, 1, 1], kernel = "fp8_gemm_sm90a_batched_e4m3e4m3_f32_tensor_p4_128x64_s8"
// PLANREG-SAME: params = [{box = [128, 128, 1], buffer = 0 : i64, dims = [32, 64, 4], dtype = "uint8", kind = "tensor_map", strides = [32, 2048], swizzle = "128B"}, {box = [128, 64, 1], buffer = 1 : i64, dims = [32, 64, 4], dtype = "uint8", kind = "tensor_map", strides = [32, 2048], swizzle = "128B"}, {buffer = 4 : i64, kind = "buffer"}, {buffer = 2 : i64, kind = "buffer"}, {buffer = 3 : i64, kind = "buffer"}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 32 : i64}, {kind = "i32", value = 4 : i64}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 0 : i64}]
func.func @tensor(%a: tensor<4x64x32xf8E4M3FN>, %b: tensor<4x64x32xf8E4M3FN>, %sa: tensor<1x1x1xf32>, %sb: tensor<1x1x1xf32>) -> tensor<4x64x64xf32> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<4x64x32xf8E4M3FN>, tensor<4x64x32xf8E4M3FN>, tensor<1x1x1xf32>, tensor<1x1x1xf32> -> tensor<4x64x64xf32>
  return %c : tensor<4x64x64xf32>
}
