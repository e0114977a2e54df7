// fp8.dynamic_quantize on the GPU: blocks inside a 32 x 128 tile are reduced
// and quantized by one kernel; larger blocks take an amax kernel (atomic max
// into a zero-filled buffer) first. Codes come from cvt.rn.satfinite in
// pairs; a copy read only through transposes is stored transposed.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: not grep __nv_ %t/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=PLAN --input-file=%t/tensor.json
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_90a | FileCheck %s --check-prefix=MLIR

// The per-tensor amax: a grid-stride loop, two runs of four 16-byte loads
// in flight per thread, each folded into the thread's 16 column maxima as
// bf16 pairs (max.bf16x2, which a NaN never wins: no NaN test), the
// maxima folded once after the loop, a warp reduction and one atomic per
// warp; no shared memory, no barrier.
// CHECK-LABEL: .entry fp8_amax_bf16_b32x128_nanignore_vl_gs(
// CHECK-NOT: setp.nan
// CHECK-COUNT-16: max.bf16x2
// CHECK-NOT: setp.nan
// CHECK-COUNT-4: ld.global.v4.b32
// CHECK-NOT: setp.nan
// CHECK-COUNT-7: max.bf16x2
// CHECK-NOT: bar.sync
// CHECK-NOT: st.shared
// CHECK: shfl.sync.bfly.b32
// CHECK-NOT: bar.sync
// CHECK: atom.global.max.u32
// CHECK-NOT: bar.sync
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b32x128_ratio_sat_vs_nanignore_vl(
// CHECK-DAG: div.rn.f32
// CHECK-DAG: cvt.rn.satfinite.e4m3x2.f32
// CHECK-DAG: st.global.v4.b32
// DeepSeek's 1x128 blocks: a block's amax by three shuffles among the eight
// lanes of its row; the magnitudes never go through shared memory.
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b1x128_pow2_sat_fused_vs_nanignore_vl(
// CHECK-NOT: st.shared.v4
// CHECK: shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK-NOT: st.shared.v4
// CHECK: cvt.rn.satfinite.e4m3x2.f32
// Blocks of one column of the sub-tile: two shuffles per column among the
// four rows of a warp (NaN propagated), then the warps' maxima in shared
// memory.
// CHECK-LABEL: .entry fp8_amax_f32_b32x1_nanprop_vl(
// CHECK: shfl.sync.bfly.b32 {{.*}}, 8, 31, -1;
// CHECK-NEXT: max.NaN.f32
// CHECK: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// CHECK-COUNT-4: st.shared.v4.b32
// CHECK: bar.sync
// CHECK-COUNT-8: max.NaN.f32
// CHECK: atom.global.max.u32
// CHECK-LABEL: .entry fp8_quantize_f32_e5m2_b32x1_pow2_sat_t_vs_nanprop_vl(
// CHECK-DAG: cvt.rn.satfinite.e5m2x2.f32
// CHECK-DAG: ld.shared.b8
// CHECK-DAG: st.global.v4.b32
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b1x32_e8m0_rceil_sat_e8m0_fused_vs_nanignore_vl(
// CHECK-DAG: cvt.rn.satfinite.e4m3x2.f32
// CHECK-DAG: st.global.b8
// Ragged rows (33 bf16 elements): scalar loads and stores only.
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b1x32_e8m0_rceil_sat_e8m0_fused_nanignore(
// CHECK-NOT: .entry
// CHECK-NOT: ld.global.v4
// CHECK-NOT: st.global.v4
// Overflow to NaN/inf is not what cvt does: the soft conversion.
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b32x128_ratio_nonfinite_fused_vs_nanignore_vl(
// CHECK-NOT: cvt.rn.satfinite

// PLAN: "launches": [
// PLAN:      "buffer": 3,
// PLAN-NEXT: "byte": 0,
// PLAN-NEXT: "kind": "fill"
// PLAN:      "grid": [
// PLAN-NEXT:   32,
// PLAN:      "kernel": "fp8_amax_bf16_b32x128_nanignore_vl_gs"
// PLAN:      "shared_bytes": 0
// PLAN:      "kernel": "fp8_quantize_bf16_e4m3_b32x128_ratio_sat_vs_nanignore_vl"
// PLAN:      "shared_bytes": 21536

// MLIR-LABEL: tensor = {buffers
// MLIR-SAME: {bytes = 4 : i64, id = 3 : i64, kind = "temp", offset = 0 : i64, type = tensor<1x1xf32>}
// MLIR-SAME: launches = [{buffer = 3 : i64, byte = 0 : i64, kind = "fill"}
// MLIR-SAME: grid = [32, 1, 1], kernel = "fp8_amax_bf16_b32x128_nanignore_vl_gs"
func.func @tensor(%x: tensor<256x512xbf16>) -> (tensor<256x512xf8E4M3FN>, tensor<1x1xf32>) {
  %q, %s = fp8.dynamic_quantize %x by <tensor> rule <ratio> : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<1x1xf32>
  return %q, %s : tensor<256x512xf8E4M3FN>, tensor<1x1xf32>
}

// A large per-tensor amax: 8192 tiles walked by 4 CTAs per SM (132).
// MLIR-LABEL: tensor_large = {buffers
// MLIR-SAME: grid = [528, 1, 1], kernel = "fp8_amax_bf16_b32x128_nanignore_vl_gs", kind = "kernel", params = [{{[^]]*}}], persistent = false, shared_bytes = 0 : i64}
// MLIR-SAME: grid = [8192, 1, 1], kernel = "fp8_quantize_bf16_e4m3_b32x128_ratio_sat_vs_nanignore_vl"
func.func @tensor_large(%x: tensor<4096x8192xbf16>) -> (tensor<4096x8192xf8E4M3FN>, tensor<1x1xf32>) {
  %q, %s = fp8.dynamic_quantize %x by <tensor> rule <ratio> : tensor<4096x8192xbf16> -> tensor<4096x8192xf8E4M3FN>, tensor<1x1xf32>
  return %q, %s : tensor<4096x8192xf8E4M3FN>, tensor<1x1xf32>
}

func.func @deepseek_activation(%x: tensor<200x320xbf16>) -> (tensor<200x320xf8E4M3FN>, tensor<200x3xf32>) {
  %q, %s = fp8.dynamic_quantize %x by <1x128> rule <pow2> : tensor<200x320xbf16> -> tensor<200x320xf8E4M3FN>, tensor<200x3xf32>
  return %q, %s : tensor<200x320xf8E4M3FN>, tensor<200x3xf32>
}

// MLIR-LABEL: weight_k_major = {buffers
// MLIR-SAME: type = tensor<64x256xf8E5M2>
func.func @weight_k_major(%w: tensor<256x64xf32>) -> (tensor<64x256xf8E5M2>, tensor<64x1xf32>) {
  %q, %s = fp8.dynamic_quantize %w by <*x1> rule <pow2> nan <propagate> : tensor<256x64xf32> -> tensor<256x64xf8E5M2>, tensor<1x64xf32>
  %e = tensor.empty() : tensor<64x256xf8E5M2>
  %t = linalg.transpose ins(%q : tensor<256x64xf8E5M2>) outs(%e : tensor<64x256xf8E5M2>) permutation = [1, 0]
  %es = tensor.empty() : tensor<64x1xf32>
  %ts = linalg.transpose ins(%s : tensor<1x64xf32>) outs(%es : tensor<64x1xf32>) permutation = [1, 0]
  return %t, %ts : tensor<64x256xf8E5M2>, tensor<64x1xf32>
}

func.func @mx(%x: tensor<64x256xbf16>) -> (tensor<64x256xf8E4M3FN>, tensor<64x8xf8E8M0FNU>) {
  %q, %s = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil> : tensor<64x256xbf16> -> tensor<64x256xf8E4M3FN>, tensor<64x8xf8E8M0FNU>
  return %q, %s : tensor<64x256xf8E4M3FN>, tensor<64x8xf8E8M0FNU>
}

func.func @ragged(%x: tensor<7x33xbf16>) -> (tensor<7x33xf8E4M3FN>, tensor<7x2xf8E8M0FNU>) {
  %q, %s = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil> : tensor<7x33xbf16> -> tensor<7x33xf8E4M3FN>, tensor<7x2xf8E8M0FNU>
  return %q, %s : tensor<7x33xf8E4M3FN>, tensor<7x2xf8E8M0FNU>
}

func.func @nonfinite(%x: tensor<32x128xbf16>) -> (tensor<32x128xf8E4M3FN>, tensor<1x1xf32>) {
  %q, %s = fp8.dynamic_quantize %x by <tensor> rule <ratio> overflow <nonfinite> : tensor<32x128xbf16> -> tensor<32x128xf8E4M3FN>, tensor<1x1xf32>
  return %q, %s : tensor<32x128xf8E4M3FN>, tensor<1x1xf32>
}
