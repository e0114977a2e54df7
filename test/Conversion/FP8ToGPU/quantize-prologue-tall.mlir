// A prologue of 128-row quantize tiles (DeepSeek's 1x128 + 128x1 pair, a
// 128x128 block) loads at most kMaxTallPrologueBytes (8) bytes of matrices
// and column vectors per element: a thread holds four sub-tiles' loads, and
// ptxas spilled past that (three f32 matrices: 255 registers and 80 bytes
// of spills; an f32 and a bf16 matrix with three column vectors, 120).
// A heavier prologue keeps its fusion in 32-row tiles: the 128-row blocks
// are measured by an amax pass in 32-row parts, and the paired kernel reads
// their amaxes. Two f32 matrices keep the 128-row tiles.
// A prologue reading more operands than a SmallVector holds in place (six
// bf16 matrices) used to crash the planner.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --check-prefix=PAIR3 --input-file=%t/pair3.json
// RUN: FileCheck %s --check-prefix=PAIR2 --input-file=%t/pair2.json
// RUN: FileCheck %s --check-prefix=BLOCK3 --input-file=%t/block3.json
// RUN: FileCheck %s --check-prefix=SIX --input-file=%t/six_bf16.json
// RUN: FileCheck %s --check-prefix=COLS --input-file=%t/block_columns.json

// PAIR3:     "kernel": "fp8_amax_f32_b32x1_nanignore_vl_pro_mvmvmv_
// PAIR3:     "kernel": "fp8_quantize_f32_e4m3_b1x128_pow2_sat_fused_vs_pair_b32x1_t_vs_r32_nanignore_vl_pro_mvmvmv_
// PAIR3-NOT: "kernel": "
// PAIR2:     "kernel": "fp8_quantize_f32_e4m3_b1x128_pow2_sat_fused_vs_pair_b128x1_fused_t_vs_r128_nanignore_vl_pro_mvmv_
// PAIR2-NOT: "kernel": "
// BLOCK3:     "kernel": "fp8_amax_f32_b32x128_nanignore_vl_pro_mvmvmv_
// BLOCK3:     "kernel": "fp8_quantize_f32_e4m3_b32x128_pow2_sat_vs_nanignore_vl_pro_mvmvmv_
// BLOCK3-NOT: "kernel": "
// COLS:     "kernel": "fp8_amax_f32_b32x128_nanignore_vl_pro_mvcmvcsc_
// COLS:     "kernel": "fp8_quantize_f32_e4m3_b32x128_pow2_sat_vs_nanignore_vl_pro_mvcmvcsc_
// COLS-NOT: "kernel": "
// SIX:     "kernel": "fp8_amax_f32_b32x1_nanignore_vl_pro_mvmvmvmvmvmv_
// SIX:     "kernel": "fp8_quantize_f32_e4m3_b1x128_pow2_sat_fused_vs_pair_b32x1_t_vs_r32_nanignore_vl_pro_mvmvmvmvmvmv_

#map = affine_map<(d0, d1) -> (d0, d1)>

func.func @pair3(%a: tensor<256x512xf32>, %b: tensor<256x512xf32>, %c: tensor<256x512xf32>) -> (tensor<256x512xf8E4M3FN>, tensor<256x4xf32>, tensor<512x256xf8E4M3FN>, tensor<512x2xf32>) {
  %e = tensor.empty() : tensor<256x512xf32>
  %y = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%a, %b, %c : tensor<256x512xf32>, tensor<256x512xf32>, tensor<256x512xf32>) outs(%e : tensor<256x512xf32>) {
  ^bb0(%x: f32, %y0: f32, %z: f32, %o: f32):
    %m = arith.mulf %x, %y0 : f32
    %s = arith.addf %m, %z : f32
    linalg.yield %s : f32
  } -> tensor<256x512xf32>
  %q, %s, %qt, %st = fp8.dynamic_quantize %y by <1x128> colwise <128x1> transposed rule <pow2> : tensor<256x512xf32> -> tensor<256x512xf8E4M3FN>, tensor<256x4xf32> colwise tensor<512x256xf8E4M3FN>, tensor<512x2xf32>
  return %q, %s, %qt, %st : tensor<256x512xf8E4M3FN>, tensor<256x4xf32>, tensor<512x256xf8E4M3FN>, tensor<512x2xf32>
}

func.func @pair2(%a: tensor<256x512xf32>, %b: tensor<256x512xf32>) -> (tensor<256x512xf8E4M3FN>, tensor<256x4xf32>, tensor<512x256xf8E4M3FN>, tensor<512x2xf32>) {
  %e = tensor.empty() : tensor<256x512xf32>
  %y = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<256x512xf32>, tensor<256x512xf32>) outs(%e : tensor<256x512xf32>) {
  ^bb0(%x: f32, %y0: f32, %o: f32):
    %m = arith.mulf %x, %y0 : f32
    linalg.yield %m : f32
  } -> tensor<256x512xf32>
  %q, %s, %qt, %st = fp8.dynamic_quantize %y by <1x128> colwise <128x1> transposed rule <pow2> : tensor<256x512xf32> -> tensor<256x512xf8E4M3FN>, tensor<256x4xf32> colwise tensor<512x256xf8E4M3FN>, tensor<512x2xf32>
  return %q, %s, %qt, %st : tensor<256x512xf8E4M3FN>, tensor<256x4xf32>, tensor<512x256xf8E4M3FN>, tensor<512x2xf32>
}

func.func @block3(%a: tensor<256x512xf32>, %b: tensor<256x512xf32>, %c: tensor<256x512xf32>) -> (tensor<256x512xf8E4M3FN>, tensor<2x4xf32>) {
  %e = tensor.empty() : tensor<256x512xf32>
  %y = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%a, %b, %c : tensor<256x512xf32>, tensor<256x512xf32>, tensor<256x512xf32>) outs(%e : tensor<256x512xf32>) {
  ^bb0(%x: f32, %y0: f32, %z: f32, %o: f32):
    %m = arith.mulf %x, %y0 : f32
    %s = arith.addf %m, %z : f32
    linalg.yield %s : f32
  } -> tensor<256x512xf32>
  %q, %s = fp8.dynamic_quantize %y by <128x128> rule <pow2> : tensor<256x512xf32> -> tensor<256x512xf8E4M3FN>, tensor<2x4xf32>
  return %q, %s : tensor<256x512xf8E4M3FN>, tensor<2x4xf32>
}

func.func @six_bf16(%a: tensor<256x512xbf16>, %b: tensor<256x512xbf16>, %c: tensor<256x512xbf16>, %d: tensor<256x512xbf16>, %f: tensor<256x512xbf16>, %g: tensor<256x512xbf16>) -> (tensor<256x512xf8E4M3FN>, tensor<256x4xf32>, tensor<512x256xf8E4M3FN>, tensor<512x2xf32>) {
  %e = tensor.empty() : tensor<256x512xf32>
  %y = linalg.generic {indexing_maps = [#map, #map, #map, #map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%a, %b, %c, %d, %f, %g : tensor<256x512xbf16>, tensor<256x512xbf16>, tensor<256x512xbf16>, tensor<256x512xbf16>, tensor<256x512xbf16>, tensor<256x512xbf16>) outs(%e : tensor<256x512xf32>) {
  ^bb0(%i0: bf16, %i1: bf16, %i2: bf16, %i3: bf16, %i4: bf16, %i5: bf16, %o: f32):
    %s1 = arith.mulf %i0, %i1 : bf16
    %s2 = arith.addf %s1, %i2 : bf16
    %s3 = arith.mulf %s2, %i3 : bf16
    %s4 = arith.addf %s3, %i4 : bf16
    %s5 = arith.mulf %s4, %i5 : bf16
    %w = arith.extf %s5 : bf16 to f32
    linalg.yield %w : f32
  } -> tensor<256x512xf32>
  %q, %s, %qt, %st = fp8.dynamic_quantize %y by <1x128> colwise <128x1> transposed rule <pow2> : tensor<256x512xf32> -> tensor<256x512xf8E4M3FN>, tensor<256x4xf32> colwise tensor<512x256xf8E4M3FN>, tensor<512x2xf32>
  return %q, %s, %qt, %st : tensor<256x512xf8E4M3FN>, tensor<256x4xf32>, tensor<512x256xf8E4M3FN>, tensor<512x2xf32>
}

func.func @block_columns(%a0: tensor<256x512xf32>, %a1: tensor<512xf16>, %a2: tensor<256x512xbf16>, %a3: tensor<512xf32>, %a4: tensor<f32>, %a5: tensor<512xf32>) -> (tensor<256x512xf8E4M3FN>, tensor<2x4xf32>) {
  %e = tensor.empty() : tensor<256x512xf32>
  %y = linalg.generic {indexing_maps = [#map, affine_map<(d0, d1) -> (d1)>, #map, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d1)>, #map], iterator_types = ["parallel", "parallel"]} ins(%a0, %a1, %a2, %a3, %a4, %a5 : tensor<256x512xf32>, tensor<512xf16>, tensor<256x512xbf16>, tensor<512xf32>, tensor<f32>, tensor<512xf32>) outs(%e : tensor<256x512xf32>) {
  ^bb0(%i0: f32, %i1: f16, %i2: bf16, %i3: f32, %i4: f32, %i5: f32, %out: f32):
    %e1 = arith.extf %i1 : f16 to f32
    %e2 = arith.extf %i2 : bf16 to f32
    %t0 = arith.subf %i0, %e1 : f32
    %t1 = arith.addf %t0, %e2 : f32
    %t2 = arith.addf %t1, %i3 : f32
    %t3 = arith.mulf %t2, %i4 : f32
    %t4 = arith.maximumf %t3, %i5 : f32
    linalg.yield %t4 : f32
  } -> tensor<256x512xf32>
  %q, %s = fp8.dynamic_quantize %y by <128x128> rule <pow2> : tensor<256x512xf32> -> tensor<256x512xf8E4M3FN>, tensor<2x4xf32>
  return %q, %s : tensor<256x512xf8E4M3FN>, tensor<2x4xf32>
}
