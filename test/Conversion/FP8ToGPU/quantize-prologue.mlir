// An elementwise op whose result only quantizations read has no kernel of
// its own: the quantize kernels compute it where they load their input
// (each thread's 16 elements from the op's inputs, by 16-byte loads where
// rows allow), so that its result is never stored. Matrices, per-row and
// per-column vectors, scalars and FP8 codes are read; every decision is a
// remark. fuse-prologues=false keeps the elementwise kernels.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: not grep __nv_ %t/fp8_kernels.ptx
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_90a | FileCheck %s --check-prefix=PLAN
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_90a --remarks-filter=fp8-gpu \
// RUN:   --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: fp8-opt %s --convert-fp8-to-gpu="chip=sm_90a fuse-prologues=false" \
// RUN:   --remarks-filter=fp8-gpu --remark-format=emitRemark 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OFF

// The per-tensor amax and quantize kernels both compute tanh(h + b): two
// 16-byte loads of h (rows of 272 bytes) and two of b per run of a thread
// (the amax kernel has two runs in flight).
// CHECK-LABEL: .entry fp8_amax_bf16_b32x128_nanignore_vl_gs_pro_mvc_
// CHECK-COUNT-8: ld.global.v4.b32
// CHECK-NOT: ld.global.v4
// CHECK: atom.global.max.u32
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b32x128_ratio_sat_nanignore_vl_pro_mvc_
// CHECK-COUNT-4: ld.global.v4.b32
// CHECK-NOT: ld.global.v4
// CHECK: cvt.rn.satfinite.e4m3x2.f32
// The paired 1x128 / 128x1 kernel: four 32-row runs of h per thread, each
// scaled by its row's factor.
// CHECK-LABEL: .entry fp8_quantize_f32_e4m3_b1x128_pow2_sat_fused_vs_pair_b128x1_fused_t_vs_r128_nanignore_vl_pro_mvr_
// CHECK-COUNT-16: ld.global.v4.b32
// CHECK-NOT: ld.global.v4
// CHECK-NOT: atom.global
// CHECK: cvt.rn.satfinite.e4m3x2.f32

// Plans: no elementwise launch, the prologue's inputs last.
// PLAN-LABEL: codes = {buffers
// PLAN-NOT: fp8_elementwise
// PLAN-SAME: kernel = "fp8_quantize_f32_e4m3_b1x32_e8m0_rceil_sat_e8m0_fused_vs_nanignore_vl_pro_mvs_{{[0-9a-f]+}}", kind = "kernel", params = [{buffer = 0 : i64, kind = "buffer"}, {buffer = 2 : i64, kind = "buffer"}, {buffer = 3 : i64, kind = "buffer"}, {{[^]]*}}, {buffer = 0 : i64, kind = "buffer"}, {buffer = 1 : i64, kind = "buffer"}]
// Delayed scaling: the amax by itself, then the codes by the given scale.
// PLAN-LABEL: delayed = {buffers
// PLAN-NOT: fp8_elementwise
// PLAN-SAME: kernel = "fp8_quantize_f32_e4m3_b32x128_sat_given_vs_nanprop_vl_pro_mv_{{[0-9a-f]+}}"
// PLAN-SAME: kernel = "fp8_amax_f32_b32x128_nanignore_vl_gs_pro_mv_{{[0-9a-f]+}}"
// PLAN-LABEL: pair = {buffers
// PLAN-NOT: fp8_elementwise
// PLAN-SAME: grid = [8, 1, 1], kernel = "fp8_quantize_f32_e4m3_b1x128_pow2_sat_fused_vs_pair_b128x1_fused_t_vs_r128_nanignore_vl_pro_mvr_{{[0-9a-f]+}}", kind = "kernel", params = [{{[^]]*}}, {buffer = 0 : i64, kind = "buffer"}, {buffer = 1 : i64, kind = "buffer"}]
// Rows of 200 bytes: guarded element loads of h ("m", no "v"), and rows of
// codes stored byte by byte (returned: not padded).
// PLAN-LABEL: ragged = {buffers
// PLAN-SAME: kernel = "fp8_quantize_bf16_e4m3_b1x128_pow2_sat_fused_nanignore_pro_m_{{[0-9a-f]+}}"
// PLAN-LABEL: returned = {buffers
// PLAN-SAME: kernel = "fp8_elementwise_64x128_
// PLAN-LABEL: tanh = {buffers
// PLAN-NOT: fp8_elementwise
// PLAN-SAME: kind = "fill"
// PLAN-SAME: grid = [14, 1, 1], kernel = "fp8_amax_bf16_b32x128_nanignore_vl_gs_pro_mvc_[[TAG:[0-9a-f]+]]", kind = "kernel", params = [{buffer = [[AMAX:[0-9]+]] : i64, kind = "buffer"}, {kind = "i32", value = 200 : i64}, {kind = "i32", value = 136 : i64}, {{[^]]*}}, {buffer = 0 : i64, kind = "buffer"}, {buffer = 1 : i64, kind = "buffer"}]
// PLAN-SAME: kernel = "fp8_quantize_bf16_e4m3_b32x128_ratio_sat_nanignore_vl_pro_mvc_[[TAG]]", kind = "kernel", params = [{buffer = [[AMAX]] : i64, kind = "buffer"}, {{[^]]*}}, {buffer = 0 : i64, kind = "buffer"}, {buffer = 1 : i64, kind = "buffer"}]
// PLAN-LABEL: wide = {buffers
// PLAN-SAME: kernel = "fp8_elementwise_64x128_

// REMARK-DAG: remark: [Passed] prologue-fused | Category:fp8-gpu | Function=tanh | Remark="linalg.generic computed by the kernels of fp8.dynamic_quantize where they load their input: its result is never stored"
// REMARK-DAG: remark: [Passed] prologue-fused | Category:fp8-gpu | Function=pair | Remark="linalg.generic computed by the kernels of fp8.dynamic_quantize where they load their input: its result is never stored"
// REMARK-DAG: remark: [Passed] prologue-fused | Category:fp8-gpu | Function=delayed | Remark="linalg.generic computed by the kernels of fp8.quantize, fp8.amax where they load their input: its result is never stored"
// REMARK-DAG: remark: [Passed] prologue-fused | Category:fp8-gpu | Function=codes | Remark="linalg.generic computed by the kernels of fp8.dynamic_quantize where they load their input: its result is never stored"
// REMARK-DAG: remark: [Missed] prologue-not-fused | Category:fp8-gpu | Function=returned | Remark="linalg.generic not computed by the kernels of fp8.dynamic_quantize: its result is also read by 'func.return'"
// REMARK-DAG: remark: [Missed] prologue-not-fused | Category:fp8-gpu | Function=wide | Remark="linalg.generic not computed by the kernels of fp8.dynamic_quantize: it reads 16 bytes of matrices per element, more than three times the 2 of its result"

// OFF-NOT: prologue-{{(not-)?}}fused
// OFF-NOT: _pro_
// OFF-LABEL: tanh = {buffers
// OFF-SAME: kernel = "fp8_elementwise_200x136_
// OFF-SAME: kernel = "fp8_amax_bf16_b32x128_nanignore_vl_gs"
// OFF-NOT: _pro_

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>
#scalar = affine_map<(d0, d1) -> ()>

// Per tensor, ragged: 200 x 136 in 7 x 2 tiles of 32 x 128.
func.func @tanh(%h: tensor<200x136xbf16>, %b: tensor<136xbf16>) -> (tensor<200x136xf8E4M3FN>, tensor<1x1xf32>) {
  %e = tensor.empty() : tensor<200x136xbf16>
  %a = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%h, %b : tensor<200x136xbf16>, tensor<136xbf16>) outs(%e : tensor<200x136xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %out: bf16):
    %s = arith.addf %x, %y : bf16
    %w = arith.extf %s : bf16 to f32
    %t = math.tanh %w : f32
    %n = arith.truncf %t : f32 to bf16
    linalg.yield %n : bf16
  } -> tensor<200x136xbf16>
  %q, %sc = fp8.dynamic_quantize %a by <tensor> rule <ratio> : tensor<200x136xbf16> -> tensor<200x136xf8E4M3FN>, tensor<1x1xf32>
  return %q, %sc : tensor<200x136xf8E4M3FN>, tensor<1x1xf32>
}

// DeepSeek's activation pair: both copies from one read of h and g.
func.func @pair(%h: tensor<256x512xf32>, %g: tensor<256xf32>) -> (tensor<256x512xf8E4M3FN>, tensor<256x4xf32>, tensor<512x256xf8E4M3FN>, tensor<512x2xf32>) {
  %e = tensor.empty() : tensor<256x512xf32>
  %a = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%h, %g : tensor<256x512xf32>, tensor<256xf32>) outs(%e : tensor<256x512xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<256x512xf32>
  %q, %s, %qt, %st = fp8.dynamic_quantize %a by <1x128> colwise <128x1> transposed rule <pow2> : tensor<256x512xf32> -> tensor<256x512xf8E4M3FN>, tensor<256x4xf32> colwise tensor<512x256xf8E4M3FN>, tensor<512x2xf32>
  return %q, %s, %qt, %st : tensor<256x512xf8E4M3FN>, tensor<256x4xf32>, tensor<512x256xf8E4M3FN>, tensor<512x2xf32>
}

// Delayed scaling: codes by the stored scale, and the amax for the history.
func.func @delayed(%h: tensor<64x128xf32>, %s: tensor<1x1xf32>) -> (tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x128xf32>
  %q = fp8.quantize %a, %s by <tensor> : tensor<64x128xf32>, tensor<1x1xf32> -> tensor<64x128xf8E4M3FN>
  %m = fp8.amax %a by <tensor> : tensor<64x128xf32> -> tensor<1x1xf32>
  return %q, %m : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>
}

// FP8 codes decoded by a scalar scale, then quantized by MX blocks.
func.func @codes(%c: tensor<64x128xf8E4M3FN>, %s: tensor<f32>) -> (tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>) {
  %e = tensor.empty() : tensor<64x128xf32>
  %a = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %s : tensor<64x128xf8E4M3FN>, tensor<f32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%x: f8E4M3FN, %y: f32, %out: f32):
    %w = arith.extf %x : f8E4M3FN to f32
    %m = arith.mulf %w, %y : f32
    linalg.yield %m : f32
  } -> tensor<64x128xf32>
  %q, %sc = fp8.dynamic_quantize %a by <1x32> rule <e8m0_rceil> : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  return %q, %sc : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
}

// Rows of 100 bf16 elements are not 16-byte multiples.
func.func @ragged(%h: tensor<32x100xbf16>) -> (tensor<32x100xf8E4M3FN>, tensor<32x1xf32>) {
  %e = tensor.empty() : tensor<32x100xbf16>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<32x100xbf16>) outs(%e : tensor<32x100xbf16>) {
  ^bb0(%x: bf16, %out: bf16):
    %n = arith.negf %x : bf16
    linalg.yield %n : bf16
  } -> tensor<32x100xbf16>
  %q, %sc = fp8.dynamic_quantize %a by <1x128> rule <pow2> : tensor<32x100xbf16> -> tensor<32x100xf8E4M3FN>, tensor<32x1xf32>
  return %q, %sc : tensor<32x100xf8E4M3FN>, tensor<32x1xf32>
}

// Also returned: the result is stored by an elementwise kernel.
func.func @returned(%h: tensor<64x128xbf16>) -> (tensor<64x128xbf16>, tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) {
  %e = tensor.empty() : tensor<64x128xbf16>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<64x128xbf16>) outs(%e : tensor<64x128xbf16>) {
  ^bb0(%x: bf16, %out: bf16):
    %n = arith.negf %x : bf16
    linalg.yield %n : bf16
  } -> tensor<64x128xbf16>
  %q, %sc = fp8.dynamic_quantize %a by <tensor> rule <ratio> : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<1x1xf32>
  return %a, %q, %sc : tensor<64x128xbf16>, tensor<64x128xf8E4M3FN>, tensor<1x1xf32>
}

// Four f32 matrices per bf16 element: read again by each kernel, they would
// cost more than the stored result.
func.func @wide(%a0: tensor<64x128xf32>, %a1: tensor<64x128xf32>, %a2: tensor<64x128xf32>, %a3: tensor<64x128xf32>) -> (tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) {
  %e = tensor.empty() : tensor<64x128xbf16>
  %a = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%a0, %a1, %a2, %a3 : tensor<64x128xf32>, tensor<64x128xf32>, tensor<64x128xf32>, tensor<64x128xf32>) outs(%e : tensor<64x128xbf16>) {
  ^bb0(%x0: f32, %x1: f32, %x2: f32, %x3: f32, %out: bf16):
    %s0 = arith.addf %x0, %x1 : f32
    %s1 = arith.addf %x2, %x3 : f32
    %s = arith.addf %s0, %s1 : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<64x128xbf16>
  %q, %sc = fp8.dynamic_quantize %a by <tensor> rule <ratio> : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<1x1xf32>
  return %q, %sc : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>
}
