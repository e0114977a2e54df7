// sm90-mn-major-operands: sm_90a GEMMs of 16-bit operands read an operand
// stored MN-major ([batch, K, M] or [batch, K, N]) where it is, without the
// transposed copy of gemm-high-precision.mlir. TMA copies each stage's 64
// rows of K in boxes of 64 elements of M or N (128 bytes, 128-byte swizzle),
// blockM / 64 or blockN / 64 of them; the wgmma descriptors are MN-major
// (LBO 8192: the next box; SBO 1024: the next 8 rows of K), a k16 step is 16
// rows (2048 bytes) further, and wgmma reads the tile transposed. f32
// operands (tf32) and sm_100a keep the copy; so does every GEMM with the
// option off (sm90-mn-major-operands=0; it is on by default). The results
// are stored by TMA (sm90-tma-store, on by default).
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t/on sm90-mn-major-operands=1" -o /dev/null -remarks-filter=fp8-gpu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t/on/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=PTXAS --input-file=%t/on/fp8_kernels.ptxas.log
// RUN: not grep -E "[1-9][0-9]* bytes (stack frame|spill)" %t/on/fp8_kernels.ptxas.log
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_90a | FileCheck %s --check-prefix=PLAN
// RUN: fp8-opt %s --convert-fp8-to-gpu="chip=sm_90a sm90-mn-major-operands=0" | FileCheck %s --check-prefix=OFF
// RUN: fp8-opt %s --convert-fp8-to-gpu="chip=sm_100a sm90-mn-major-operands=1" | FileCheck %s --check-prefix=OFF

// REMARK-DAG: remark: [Passed] mn-major-operands | Category:fp8-gpu | Function=matmul_bf16 | Remark="linalg.matmul reads B as it is stored MN-major, with no transposed copy"
// REMARK-DAG: remark: [Passed] mn-major-operands | Category:fp8-gpu | Function=wgrad_bf16 | Remark="linalg.batch_matmul reads A and B as they are stored MN-major, with no transposed copy"
// REMARK-NOT: Function=matmul_f32 {{.*}}mn-major
// REMARK-NOT: Function=ragged_rows {{.*}}mn-major

// The plans, in the order of the functions' names. matmul_bf16 reads B in
// place (buffer 1), its tensor map K rows of 512 bytes in boxes of 128 bytes
// by 64 rows, A's as before; wgrad_bf16 both operands, K = 96 rows of which
// the second stage's box holds 32 (TMA zero-fills the rest); matmul_f32
// and ragged_rows keep their copies.
// PLAN-LABEL: matmul_bf16 = {buffers
// PLAN-NOT: fp8_layout
// PLAN-SAME: kernel = "gemm_sm90a_bf16_f32_mnb_tma_128x128_s5"
// PLAN-SAME: {box = [128, 128], buffer = 0 : i64, dims = [256, 256]
// PLAN-SAME: {box = [128, 64], buffer = 1 : i64, dims = [512, 128]
// PLAN-LABEL: matmul_f32 = {buffers
// PLAN-SAME: kernel = "fp8_layout_transpose
// PLAN-NOT: _mn
// PLAN-SAME: kernel = "gemm_sm90a_tf32_f32_tma_128x64_s8"
// PLAN-LABEL: ragged_rows = {buffers
// PLAN-SAME: kernel = "fp8_layout_
// PLAN-NOT: _mn
// PLAN-SAME: kernel = "gemm_sm90a_bf16_f32_tma_128x64_s8"
// PLAN-LABEL: wgrad_bf16 = {buffers
// PLAN-NOT: fp8_layout
// PLAN-SAME: kernel = "gemm_sm90a_batched_f16_f32_mnab_tma_128x64_s8"
// PLAN-SAME: {box = [128, 64, 1], buffer = 0 : i64, dims = [256, 96, 2]
// PLAN-SAME: {box = [128, 64, 1], buffer = 1 : i64, dims = [128, 96, 2]

// A plain matmul's B [K, N]: two boxes of 64 columns per 128-column tile,
// 128 bytes apart in the tensor and 8192 bytes apart in shared memory.
// B's descriptors: LBO 8192 (enc 512 << 16), SBO 1024 (enc 64 << 32),
// 128-byte swizzle (1 << 62), at B's slot (5 stages of A's 16 KiB tiles,
// the 64 KiB f32 result tile taking two: 81920) and 2048 bytes further per
// k16 step. The consumer's TMA stores of its 64 rows follow (four boxes of
// 128 bytes a row); the producer's loads come last: A's one box, B's two.
// CHECK-LABEL: .entry gemm_sm90a_bf16_f32_mnb_tma_128x128_s5(
// CHECK: add.s64 [[B0:%rd[0-9]+]], %rd{{[0-9]+}}, 81920;
// CHECK: bfe.u64 [[F0:%rd[0-9]+]], [[B0]], 4, 14;
// CHECK: or.b64 %rd{{[0-9]+}}, [[F0]], 4611686293338849280;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 1;
// CHECK: add.s64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, 83968;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 1;
// CHECK: add.s64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, 86016;
// CHECK: add.s64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, 88064;
// CHECK-COUNT-4: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-COUNT-3: cp.async.bulk.tensor.2d.shared::cluster.global
// CHECK-NOT: cp.async.bulk.tensor

// A weight gradient's A [batch, K, M] and B [batch, K, N], both MN-major.
// CHECK-LABEL: .entry gemm_sm90a_batched_f16_f32_mnab_tma_128x64_s8(
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p, 1, 1, 1, 1;
// PTXAS-DAG: Function properties for gemm_sm90a_bf16_f32_mnb_tma_128x128_s5
// PTXAS-DAG: Function properties for gemm_sm90a_batched_f16_f32_mnab_tma_128x64_s8

// With the option off, or on sm_100a, B gets its transposed copy.
// OFF-LABEL: matmul_bf16 = {buffers
// OFF-SAME: kernel = "fp8_layout_transpose
// OFF-SAME: matmul_f32 = {buffers
func.func @matmul_bf16(%a: tensor<256x128xbf16>, %b: tensor<128x256xbf16>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %c = linalg.matmul ins(%a, %b : tensor<256x128xbf16>, tensor<128x256xbf16>) outs(%init : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %c : tensor<256x256xf32>
}

// dW[b] = X[b]^T dY[b]: both operands [batch, K, rows].
func.func @wgrad_bf16(%x: tensor<2x96x128xf16>, %dy: tensor<2x96x64xf16>) -> tensor<2x128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x128x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x128x64xf32>) -> tensor<2x128x64xf32>
  %c = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>, affine_map<(b, m, n, k) -> (b, k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>] ins(%x, %dy : tensor<2x96x128xf16>, tensor<2x96x64xf16>) outs(%init : tensor<2x128x64xf32>) -> tensor<2x128x64xf32>
  return %c : tensor<2x128x64xf32>
}

// tf32 operands cannot be transposed by wgmma: the copy stays.
func.func @matmul_f32(%a: tensor<128x64xf32>, %b: tensor<64x64xf32>) -> tensor<128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
  %c = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x64xf32>) outs(%init : tensor<128x64xf32>) -> tensor<128x64xf32>
  return %c : tensor<128x64xf32>
}

// Rows of N = 12 bf16 (24 bytes) are no 16-byte multiple, which a tensor
// map's stride must be: the copy stays.
func.func @ragged_rows(%a: tensor<128x64xbf16>, %b: tensor<64x12xbf16>) -> tensor<128x12xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x12xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<128x12xf32>) -> tensor<128x12xf32>
  %c = linalg.matmul ins(%a, %b : tensor<128x64xbf16>, tensor<64x12xbf16>) outs(%init : tensor<128x12xf32>) -> tensor<128x12xf32>
  return %c : tensor<128x12xf32>
}
