// E2M1 codes read both as stored and through transposes of each matrix of a
// batch (the backward pass's K and V under nvfp4 with fp8-attention): no
// layout kernel moves packed 4-bit codes, so the quantization runs a second
// time, batched, each matrix's codes (and scales) stored transposed. The
// first launch folds the batch into rows; the second takes a CTA row per
// matrix (grid y = 4) and steps the scales, and the given scales it reads,
// by one matrix's bytes.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_100a artifacts=%t" -remarks-filter=fp8-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=BOTH --input-file=%t/batched_both.json
// RUN: FileCheck %s --check-prefix=STORED --input-file=%t/batched_scales_as_stored.json
// RUN: FileCheck %s --check-prefix=GIVEN --input-file=%t/batched_given.json
// RUN: not grep -E "[1-9][0-9]* bytes (stack|spill)" %t/fp8_kernels.ptxas.log

// REMARK-DAG: remark: [Missed] quantize-transpose-not-fused | Category:fp8-gpu | Function=batched_both | Remark="the transposed copy of the codes is written by a kernel of its own: no layout kernel moves 4-bit codes, so the quantization runs again, stored transposed"
// REMARK-DAG: remark: [Missed] quantize-transpose-not-fused | Category:fp8-gpu | Function=batched_scales_as_stored
// REMARK-DAG: remark: [Missed] quantize-transpose-not-fused | Category:fp8-gpu | Function=batched_given

// CHECK-LABEL: .entry fp8_quantize_f32_e2m1_b16x16_nvfp4_sat_fused_t_vs_nanignore_vl_batched(
// CHECK: mov.u32 {{.*}}, %ctaid.y;
// CHECK: cvt.rn.satfinite.e2m1x2.f32
// CHECK: ret;

// [4, 64, 32] in 16x16 blocks: codes (buffer 3) and scales (4) as stored,
// from 256 rows of 32; the transposed codes (5, [4, 32, 64]) and scales (6),
// a matrix of 64 x 32 at a time, 8 scale bytes per matrix, the global amax
// shared.
// BOTH:      "kernel": "fp8_amax_f32_b32x128_nanignore_vl_gs",
// BOTH:      "kernel": "fp8_quantize_f32_e2m1_b16x16_nvfp4_sat_fused_vs_nanignore_vl",
// BOTH:        "buffer": 3,
// BOTH:        "buffer": 4,
// BOTH-NEXT:   "kind": "buffer"
// BOTH-NEXT: },
// BOTH-NEXT: {
// BOTH-NEXT:   "kind": "i32",
// BOTH-NEXT:   "value": 256
// BOTH:      "grid": [
// BOTH-NEXT:   2,
// BOTH-NEXT:   4,
// BOTH-NEXT:   1
// BOTH-NEXT: ],
// BOTH-NEXT: "kernel": "fp8_quantize_f32_e2m1_b16x16_nvfp4_sat_fused_t_vs_nanignore_vl_batched",
// BOTH:        "buffer": 5,
// BOTH-NEXT:   "kind": "buffer"
// BOTH-NEXT: },
// BOTH-NEXT: {
// BOTH-NEXT:   "buffer": 6,
// BOTH-NEXT:   "kind": "buffer"
// BOTH-NEXT: },
// BOTH-NEXT: {
// BOTH-NEXT:   "kind": "i32",
// BOTH-NEXT:   "value": 64
// BOTH-NEXT: },
// BOTH-NEXT: {
// BOTH-NEXT:   "kind": "i32",
// BOTH-NEXT:   "value": 32
// BOTH:        "value": 8
// BOTH-NEXT: },
// BOTH-NEXT: {
// BOTH-NEXT:   "kind": "i32",
// BOTH-NEXT:   "value": 0
// BOTH-NEXT: }
// BOTH-NEXT: ],
func.func @batched_both(%x: tensor<4x64x32xf32>) -> (tensor<4x64x32xf4E2M1FN>, tensor<4x32x64xf4E2M1FN>, tensor<4x4x2xf8E4M3FN>, tensor<4x2x4xf8E4M3FN>, tensor<1x1x1xf32>) {
  %d, %s, %g = fp8.dynamic_quantize %x by <16x16> rule <nvfp4> : tensor<4x64x32xf32> -> tensor<4x64x32xf4E2M1FN>, tensor<4x4x2xf8E4M3FN> global tensor<1x1x1xf32>
  %e = tensor.empty() : tensor<4x32x64xf4E2M1FN>
  %t = linalg.transpose ins(%d : tensor<4x64x32xf4E2M1FN>) outs(%e : tensor<4x32x64xf4E2M1FN>) permutation = [0, 2, 1]
  %es = tensor.empty() : tensor<4x2x4xf8E4M3FN>
  %ts = linalg.transpose ins(%s : tensor<4x4x2xf8E4M3FN>) outs(%es : tensor<4x2x4xf8E4M3FN>) permutation = [0, 2, 1]
  return %d, %t, %s, %ts, %g : tensor<4x64x32xf4E2M1FN>, tensor<4x32x64xf4E2M1FN>, tensor<4x4x2xf8E4M3FN>, tensor<4x2x4xf8E4M3FN>, tensor<1x1x1xf32>
}

// Scales read only as stored: the transposed launch's go to a scratch
// buffer of the transposed scales' shape.
// STORED:      "id": 6,
// STORED-NEXT: "kind": "temp",
// STORED-NEXT: "offset": 0,
// STORED-NEXT: "shape": [
// STORED-NEXT:   4,
// STORED-NEXT:   2,
// STORED-NEXT:   4
// STORED-NEXT: ]
// STORED:      "kernel": "fp8_quantize_f32_e2m1_b16x16_nvfp4_sat_fused_t_vs_nanignore_vl_batched",
// STORED:        "buffer": 5,
// STORED-NEXT:   "kind": "buffer"
// STORED-NEXT: },
// STORED-NEXT: {
// STORED-NEXT:   "buffer": 6,
func.func @batched_scales_as_stored(%x: tensor<4x64x32xf32>) -> (tensor<4x64x32xf4E2M1FN>, tensor<4x32x64xf4E2M1FN>, tensor<4x4x2xf8E4M3FN>) {
  %d, %s, %g = fp8.dynamic_quantize %x by <16x16> rule <nvfp4> : tensor<4x64x32xf32> -> tensor<4x64x32xf4E2M1FN>, tensor<4x4x2xf8E4M3FN> global tensor<1x1x1xf32>
  %e = tensor.empty() : tensor<4x32x64xf4E2M1FN>
  %t = linalg.transpose ins(%d : tensor<4x64x32xf4E2M1FN>) outs(%e : tensor<4x32x64xf4E2M1FN>) permutation = [0, 2, 1]
  return %d, %t, %s : tensor<4x64x32xf4E2M1FN>, tensor<4x32x64xf4E2M1FN>, tensor<4x4x2xf8E4M3FN>
}

// Given E4M3 block scales [4, 64, 4] under a given global scale, rounded
// stochastically (NVFP4's gradients): the transposed launch reads matrix
// b's 256 scale bytes 256 bytes after matrix b - 1's (not 256 f32 amaxes
// apart), and its random words in the input's order.
// GIVEN:      "kernel": "fp8_quantize_f32_e2m1_b1x16_sat_given2l_sr_vs_nanprop_vl",
// GIVEN:      "kernel": "fp8_quantize_f32_e2m1_b1x16_sat_given2l_sr_t_vs_nanprop_vl_batched",
// GIVEN:        "buffer": 1,
// GIVEN-NEXT:   "kind": "buffer"
// GIVEN-NEXT: },
// GIVEN-NEXT: {
// GIVEN-NEXT:   "buffer": 5,
// GIVEN:        "buffer": 3,
// GIVEN-NEXT:   "kind": "buffer"
// GIVEN-NEXT: },
// GIVEN-NEXT: {
// GIVEN-NEXT:   "kind": "i32",
// GIVEN-NEXT:   "value": 256
// GIVEN-NEXT: },
// GIVEN-NEXT: {
// GIVEN-NEXT:   "kind": "i32",
// GIVEN-NEXT:   "value": 256
// GIVEN-NEXT: }
// GIVEN-NEXT: ],
func.func @batched_given(%x: tensor<4x64x64xf32>, %s: tensor<4x64x4xf8E4M3FN>, %g: tensor<1x1x1xf32>, %r: tensor<4x64x64xi32>) -> (tensor<4x64x64xf4E2M1FN>, tensor<4x64x64xf4E2M1FN>) {
  %q = fp8.quantize %x, %s by <1x16> global(%g : tensor<1x1x1xf32>) rounding <stochastic> rbits(%r : tensor<4x64x64xi32>) : tensor<4x64x64xf32>, tensor<4x64x4xf8E4M3FN> -> tensor<4x64x64xf4E2M1FN>
  %e = tensor.empty() : tensor<4x64x64xf4E2M1FN>
  %t = linalg.transpose ins(%q : tensor<4x64x64xf4E2M1FN>) outs(%e : tensor<4x64x64xf4E2M1FN>) permutation = [0, 2, 1]
  return %q, %t : tensor<4x64x64xf4E2M1FN>, tensor<4x64x64xf4E2M1FN>
}
