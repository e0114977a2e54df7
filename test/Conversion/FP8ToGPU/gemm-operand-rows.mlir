// A weight of K = 4 shared by a forward GEMM and a data-gradient GEMM under
// DeepSeek's recipe: the gradient reads the weight's FP8 codes transposed,
// a copy a layout kernel makes. TMA reads rows 16-byte multiples apart, so
// the layout kernel pads that copy's rows of 4 bytes to 16, as the
// quantizations pad theirs, on both chips: the transposed copy (buffer 10
// or 12) is stored in rows of 16, the layout kernel's output stride is 16,
// and the GEMM's tensor map reads rows 16 bytes apart. With prepare-weights
// the codes are prepared once and the transposed copy made on every call,
// padded the same way.
// REQUIRES: ptxas
// RUN: rm -rf %t
// RUN: fp8-opt %s --fp8-autocast=recipe=deepseek "--fp8-gpu-pipeline=chip=sm_90a artifacts=%t/sm90" -o /dev/null
// RUN: fp8-run --check %t/sm90/f.json | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: not grep -E "[1-9][0-9]* bytes (spill|stack)" %t/sm90/fp8_kernels.ptxas.log
// RUN: fp8-opt %s --fp8-autocast=recipe=deepseek "--fp8-gpu-pipeline=chip=sm_100a artifacts=%t/sm100" -o /dev/null
// RUN: fp8-run --check %t/sm100/f.json | FileCheck %s --check-prefixes=CHECK,SM100
// RUN: fp8-opt %s --fp8-autocast=recipe=deepseek "--fp8-gpu-pipeline=chip=sm_90a prepare-weights=1 artifacts=%t/prepared" -o /dev/null
// RUN: fp8-run --check %t/prepared/f.json | FileCheck %s --check-prefix=PREPARED
// NVFP4 on sm_100a: no layout kernel copies FP4 codes, so with
// prepare-weights the weight's quantization, which writes the transposed
// copy itself, stays with the copy, padded, and nothing is prepared; the
// remarks say why.
// RUN: fp8-opt %s --fp8-autocast=recipe=nvfp4 "--fp8-gpu-pipeline=chip=sm_100a prepare-weights=1 artifacts=%t/fp4" \
// RUN:   --remarks-filter=fp8-prepare-weights --remark-format=emitRemark -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FP4-REMARK
// RUN: ls %t/fp4 | FileCheck %s --check-prefix=FP4-FILES
// RUN: fp8-run --check %t/fp4/f.json | FileCheck %s --check-prefix=FP4
// RUN: not grep -E "[1-9][0-9]* bytes (spill|stack)" %t/fp4/fp8_kernels.ptxas.log
// FP4-REMARK: remark: [Missed] padded-rows | Category:fp8-prepare-weights | Remark="@f computes tensor<64x4xf4E2M1FN> from its weights on every call: a GEMM reads its rows of 2 bytes, {{.*}} (its quantization stays too: no layout kernel copies codes narrower than a byte)"
// FP4-REMARK: remark: [Missed] weights-not-prepared | Category:fp8-prepare-weights | Remark="@f computes from its weights on every call: what is worth moving, GEMMs read in rows that are not whole 16-byte units (padded-rows)"
// FP4-FILES-NOT: prepare
// FP4: input 2: buffer [[W:[0-9]+]] f32 [4, 64]
// The first is the quantized gradient, the second the copy.
// FP4: temp: buffer {{[0-9]+}} f4e2m1 [64, 4] 1024 bytes (rows of 32)
// FP4: temp: buffer [[T:[0-9]+]] f4e2m1 [64, 4] 1024 bytes (rows of 32)
// FP4: kernel fp8_quantize_f32_e2m1_b32x16_nvfp4_sat_fused_t_
// FP4-NEXT: param 0: buffer [[W]]
// FP4-NEXT: param 1: buffer
// FP4-NEXT: param 2: buffer [[T]]
// FP4: kernel fp8_gemm_
// FP4: kernel fp8_gemm_
// FP4-NEXT: param 0: tensor_map buffer {{[0-9]+}} uint8 dims [2, 64] strides [16]
// FP4-NEXT: param 1: tensor_map buffer [[T]] uint8 dims [2, 64] strides [16]
// FP4: ok: 'f' for sm_100a
// The first is the quantized activation, the second the copy.
// CHECK: f8e4m3 [64, 4] 1024 bytes (rows of 16)
// CHECK: temp: buffer [[COPY:[0-9]+]] f8e4m3 [64, 4] 1024 bytes (rows of 16)
// CHECK: kernel fp8_layout_transpose_b1_r2_d0
// CHECK-NEXT: param 0: buffer [[CODES:[0-9]+]]
// CHECK-NEXT: param 1: buffer [[COPY]]
// CHECK: param 8: i32 16
// CHECK-NEXT: param 9: i32 1
// CHECK: kernel fp8_gemm_
// SM90-NEXT: param 0: tensor_map buffer {{[0-9]+}} uint8 dims [4, 64] strides [16]
// SM90-NEXT: param 1: tensor_map buffer [[COPY]] uint8 dims [4, 64] strides [16]
// SM100-NEXT: param 0: tensor_map buffer {{[0-9]+}} uint8 dims [4, 64] strides [16]
// SM100-NEXT: param 1: tensor_map buffer [[COPY]] uint8 dims [4, 64] strides [16]
// PREPARED: f8e4m3 [4, 64] 256 bytes, result {{[0-9]+}} of f_prepare
// PREPARED: temp: buffer {{[0-9]+}} f8e4m3 [64, 4] 1024 bytes (rows of 16)
// PREPARED: ok: 'f' for sm_90a
func.func @f(%dy: tensor<64x4xf32>, %x: tensor<64x64xf32>, %w: tensor<4x64xf32> {fp8.weight}) -> (tensor<64x4xf32>, tensor<64x64xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %e3 = tensor.empty() : tensor<64x4xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<64x4xf32>) -> tensor<64x4xf32>
  %v3 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w : tensor<64x64xf32>, tensor<4x64xf32>) outs(%z3 : tensor<64x4xf32>) -> tensor<64x4xf32>
  %e4 = tensor.empty() : tensor<64x64xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %v4 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] {fp8.role = #fp8.gemm_role<dgrad>, fp8.grad_operand = 0 : i64} ins(%dy, %w : tensor<64x4xf32>, tensor<4x64xf32>) outs(%z4 : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %v3, %v4 : tensor<64x4xf32>, tensor<64x64xf32>
}
