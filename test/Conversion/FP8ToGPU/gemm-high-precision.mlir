// Contractions left in high precision run on the tensor cores: wgmma
// .bf16/.f16 (k16) or f32 read as .tf32 (k8) on sm_90a, tcgen05.mma kind::f16
// or kind::tf32 on sm_100a, f32 accumulation, no scales. Operands that are
// not K-major get a transposed copy (a layout kernel) first: the sm_90a RUN
// lines turn sm90-mn-major-operands (on by default) off to test that path;
// the MNMAJOR lines check that by default the bf16 GEMMs read such operands
// where they are (gemm-high-precision-mn-major.mlir). The sm_90a GEMMs
// store their results by TMA (sm90-tma-store, on by default).
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a sm90-mn-major-operands=0 artifacts=%t/sm90 ptxas=none" -o /dev/null
// RUN: FileCheck %s --check-prefix=SM90 --input-file=%t/sm90/fp8_kernels.ptx
// RUN: fp8-opt %s --fp8-gpu-pipeline="chip=sm_100a artifacts=%t/sm100 ptxas=none" -o /dev/null
// RUN: FileCheck %s --check-prefix=SM100 --input-file=%t/sm100/fp8_kernels.ptx
// RUN: fp8-opt %s --convert-fp8-to-gpu="chip=sm_90a sm90-mn-major-operands=0" | FileCheck %s --check-prefix=PLAN
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_90a | FileCheck %s --check-prefix=MNMAJOR

// Kernels in the order of first use; the 16-bit and tf32 MMAs read 32 bytes
// of K each, four per 128-byte stage row.
// SM90-LABEL: .entry gemm_sm90a_bf16_f32_tma_128x128_s5(
// SM90-DAG: cp.async.bulk.tensor.2d
// SM90-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// SM90-LABEL: .entry gemm_sm90a_f16_f16_tma_128x64_s8(
// SM90-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// SM90-DAG: cvt.rn.f16x2.f32
// SM90-LABEL: .entry gemm_sm90a_batched_tf32_f32_tma_128x64_s8(
// SM90-DAG: cp.async.bulk.tensor.3d
// SM90-DAG: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
// SM90-LABEL: .entry gemm_sm90a_bf16_bf16_tma_128x128_s6(
// SM90-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// SM90-DAG: cvt.rn.bf16x2.f32

// SM100-LABEL: .entry gemm_sm100a_bf16_f32_128x128_s{{[0-9]+}}(
// SM100-DAG: cp.async.bulk.tensor.2d
// SM100-DAG: tcgen05.mma.cta_group::1.kind::f16
// SM100-LABEL: .entry gemm_sm100a_f16_f16_128x64_s{{[0-9]+}}(
// SM100-DAG: tcgen05.mma.cta_group::1.kind::f16
// SM100-LABEL: .entry gemm_sm100a_batched_tf32_f32_128x64_s{{[0-9]+}}(
// SM100-DAG: cp.async.bulk.tensor.3d
// SM100-DAG: tcgen05.mma.cta_group::1.kind::tf32
// SM100-LABEL: .entry gemm_sm100a_bf16_bf16_128x128_s{{[0-9]+}}(
// SM100-DAG: tcgen05.mma.cta_group::1.kind::f16
// SM100-NOT: .entry gemm_

// A plain matmul: B is [K, N], copied to [N, K] by a transpose kernel; the
// GEMM reads the copy (buffer 2). The zero init has no kernel and no buffer:
// the GEMM writes A x B. Tensor maps count bytes: 128 bytes (64 bf16) of K
// per box.
// PLAN-LABEL: matmul_bf16 = {buffers
// PLAN-SAME: launches = [{block = [256, 1, 1], cluster = [1, 1, 1], grid = [8, 1, 1], kernel = "fp8_layout_transpose_b2
// PLAN-SAME: kernel = "gemm_sm90a_bf16_f32_tma_128x128_s5"
// PLAN-SAME: {box = [128, 128], buffer = 2 : i64, dims = [256, 256]
// MNMAJOR-LABEL: matmul_bf16 = {buffers
// MNMAJOR-NOT: fp8_layout
// MNMAJOR-SAME: kernel = "gemm_sm90a_bf16_f32_mnb_tma_128x128_s5"
func.func @matmul_bf16(%a: tensor<256x128xbf16>, %b: tensor<128x256xbf16>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %c = linalg.matmul ins(%a, %b : tensor<256x128xbf16>, tensor<128x256xbf16>) outs(%init : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %c : tensor<256x256xf32>
}

// B already [N, K]: no copy; f16 results.
// PLAN-LABEL: matmul_f16_transpose_b = {buffers
// PLAN-NOT: fp8_layout
// PLAN-SAME: kernel = "gemm_sm90a_f16_f16_tma_128x64_s8"
func.func @matmul_f16_transpose_b(%a: tensor<128x64xf16>, %b: tensor<64x64xf16>) -> tensor<128x64xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<128x64xf16>
  %init = linalg.fill ins(%zero : f16) outs(%e : tensor<128x64xf16>) -> tensor<128x64xf16>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : tensor<128x64xf16>, tensor<64x64xf16>) outs(%init : tensor<128x64xf16>) -> tensor<128x64xf16>
  return %c : tensor<128x64xf16>
}

// Attention's QK^T in f32, ragged in every extent (100 x 48 x 40 per head):
// 3-D tensor maps of 160-byte rows, boxes of 32 f32 of K and one matrix; the
// launch takes M, N, K and the batch, and no scales.
// PLAN-LABEL: scores_f32 = {buffers
// PLAN-NOT: fp8_layout
// PLAN-SAME: kernel = "gemm_sm90a_batched_tf32_f32_tma_128x64_s8"
// PLAN-SAME: {box = [128, 128, 1], buffer = 0 : i64, dims = [160, 100, 4]
// PLAN-SAME: {kind = "i32", value = 100 : i64}, {kind = "i32", value = 48 : i64}, {kind = "i32", value = 40 : i64}, {kind = "i32", value = 4 : i64}]
func.func @scores_f32(%q: tensor<4x100x40xf32>, %k: tensor<4x48x40xf32>) -> tensor<4x100x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x100x48xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x100x48xf32>) -> tensor<4x100x48xf32>
  %c = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] ins(%q, %k : tensor<4x100x40xf32>, tensor<4x48x40xf32>) outs(%init : tensor<4x100x48xf32>) -> tensor<4x100x48xf32>
  return %c : tensor<4x100x48xf32>
}

// A wgrad (A^T B): both operands are [K, rows] and get copies.
// PLAN-LABEL: wgrad_bf16 = {buffers
// PLAN-SAME: kernel = "fp8_layout_transpose_b2
// PLAN-SAME: kernel = "fp8_layout_transpose_b2
// PLAN-SAME: kernel = "gemm_sm90a_bf16_bf16_tma_128x128_s6"
// MNMAJOR-LABEL: wgrad_bf16 = {buffers
// MNMAJOR-NOT: fp8_layout
// MNMAJOR-SAME: kernel = "gemm_sm90a_bf16_bf16_mnab_tma_128x128_s6"
func.func @wgrad_bf16(%x: tensor<64x128xbf16>, %d: tensor<64x256xbf16>) -> tensor<128x256xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<128x256xbf16>
  %init = linalg.fill ins(%zero : bf16) outs(%e : tensor<128x256xbf16>) -> tensor<128x256xbf16>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %d : tensor<64x128xbf16>, tensor<64x256xbf16>) outs(%init : tensor<128x256xbf16>) -> tensor<128x256xbf16>
  return %c : tensor<128x256xbf16>
}
