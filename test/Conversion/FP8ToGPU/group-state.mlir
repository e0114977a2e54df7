// COAT's optimizer state on the GPU. An AdamW step whose moments
// fp8-optimizer stored by groups of 128 (fp8.expand_dequantize into the step,
// fp8.expand_quantize of its new moments) is one kernel: the lanes that own
// a group decode, run the step's body, reduce the group's largest and
// smallest magnitudes with shuffles and encode; the expand ops get no launches of
// their own. Expand ops outside a step get a kernel of the same kind each, and
// a per-tensor fp8.dequantize an elementwise kernel.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: not grep __nv_ %t/fp8_kernels.ptx
// RUN: awk '/entry fp8_group_state_4x200/,/^}/' %t/fp8_kernels.ptx | grep -c st.global.b8 | FileCheck %s --check-prefix=BYTES
// RUN: FileCheck %s --check-prefix=WHOLE --input-file=%t/step_whole.json
// RUN: FileCheck %s --check-prefix=STEP --input-file=%t/step.json
// RUN: cat %t/encode.json %t/encode_twice.json | FileCheck %s --check-prefix=ENCODE
// RUN: FileCheck %s --check-prefix=DECODE --input-file=%t/decode.json
// RUN: FileCheck %s --check-prefix=DEQUANT --input-file=%t/dequantize.json

// The step: 16 lanes per group of 128, two groups per warp; every load of
// the lane first, two chunks of four consecutive elements per tensor (a
// 16-byte load of g, a 4-byte load of each moment's codes, each);
// decodes by the E4M3 table (group-state-decode-table.mlir: one lookup
// through the read-only cache and one multiply, no division by 448 and no
// square root), the AdamW body without contraction into fma, shuffles for the
// amax and the smallest magnitude, the exponent (the squarings in line, the
// square roots of the candidates below 0, four for limit 5, each behind a
// branch taken when the candidate above passed), the codes by
// cvt.rn.satfinite in pairs, stored four at once, and the first lane of the
// group writing its amax and exponent: the only byte stores. The last group
// of each row is ragged (200 = 128 + 72), so the stores are guarded. Its 8
// groups take one CTA, which may take 128 registers.
// CHECK-LABEL: .entry fp8_group_state_4x200_{{[0-9a-f]+}}(
// CHECK: .maxnreg 128
// CHECK-NOT: .entry
// CHECK: ld.global.s8
// CHECK-NOT: ld.global.nc
// CHECK: ld.global.v4.b32
// CHECK-NOT: ld.global.nc
// CHECK: ld.global.b32
// CHECK-NOT: ld.global.nc
// CHECK: ld.global.b32
// CHECK-NOT: ld.global.nc
// CHECK: ld.global.v4.b32
// CHECK-NOT: ld.global.nc
// CHECK: ld.global.b32
// CHECK-NOT: ld.global.nc
// CHECK: ld.global.b32
// CHECK-NOT: ld.global.nc
// CHECK: mov.b64 %rd{{[0-9]+}}, __fp8_expand_decode_e4m3;
// CHECK-NOT: ld.global.b8
// CHECK-NOT: 0f43E00000
// CHECK: ld.global.nc.b32
// CHECK-NOT: ld.global.b8
// CHECK-NOT: fma.rn.f32
// CHECK-NOT: 0f43E00000
// CHECK: st.global.v4.b32
// CHECK: shfl.sync.bfly.b32 {{.*}}, 8, 31, -1;
// CHECK-NOT: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// CHECK-NOT: fma.rn.f32
// CHECK-NOT: sqrt.rn.f32
// CHECK: @%p{{[0-9]+}} bra
// CHECK-NEXT: sqrt.rn.f32
// CHECK-NOT: sqrt.rn.f32
// CHECK: @%p{{[0-9]+}} bra
// CHECK-NEXT: sqrt.rn.f32
// CHECK-NOT: sqrt.rn.f32
// CHECK: @%p{{[0-9]+}} bra
// CHECK-NEXT: sqrt.rn.f32
// CHECK-NOT: sqrt.rn.f32
// CHECK: @%p{{[0-9]+}} bra
// CHECK-NEXT: sqrt.rn.f32
// CHECK: cvt.rn.satfinite.e4m3x2.f32
// CHECK: st.global.b32
// CHECK: ret;
// BYTES: 2

// One launch for the whole step: 8 groups (4 rows, 200 = 128 + 72 columns)
// by 8 warps of one CTA; the parameters are w, g, m's codes, amax and
// exponent, v's, the three hyperparameters, then the new w and the new
// moments' codes, amax and exponent.
// STEP:      "launches": [
// STEP-NEXT:   {
// STEP-NEXT:     "block": [
// STEP-NEXT:       256,
// STEP:          "grid": [
// STEP-NEXT:       1,
// STEP:          "kernel": "fp8_group_state_4x200_{{[0-9a-f]+}}",
// STEP-COUNT-17: "buffer":
// STEP-NOT:      "kernel":

// ENCODE: "kernel": "fp8_group_state_3x300_[[ENC:[0-9a-f]+]]",
// ENCODE-NOT: "kernel":
// ENCODE: "function": "encode_twice"
// ENCODE: "kernel": "fp8_group_state_3x300_[[ENC]]",
// ENCODE: "kernel": "fp8_group_state_3x300_[[ENC]]",
// ENCODE-NOT: "kernel":
// DECODE: "kernel": "fp8_group_state_3x300_{{[0-9a-f]+}}",
// DECODE-NOT: "kernel":
// DEQUANT: "kernel": "fp8_elementwise_64x96_{{[0-9a-f]+}}",
// DEQUANT-NOT: "kernel":

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> ()>
func.func @step(%arg0: tensor<4x200xf32>, %arg1: tensor<4x200xf32>, %arg2: tensor<4x200xf8E4M3FN> {fp8.optimizer_state = "m.codes"}, %arg3: tensor<4x2xf32> {fp8.optimizer_state = "m.amax"}, %arg4: tensor<4x2xi8> {fp8.optimizer_state = "m.exponent"}, %arg5: tensor<4x200xf8E4M3FN> {fp8.optimizer_state = "v.codes"}, %arg6: tensor<4x2xf32> {fp8.optimizer_state = "v.amax"}, %arg7: tensor<4x2xi8> {fp8.optimizer_state = "v.exponent"}, %arg8: tensor<f32>, %arg9: tensor<f32>, %arg10: tensor<f32>) -> (tensor<4x200xf32>, tensor<4x200xf8E4M3FN> {fp8.optimizer_state = "m.codes"}, tensor<4x2xf32> {fp8.optimizer_state = "m.amax"}, tensor<4x2xi8> {fp8.optimizer_state = "m.exponent"}, tensor<4x200xf8E4M3FN> {fp8.optimizer_state = "v.codes"}, tensor<4x2xf32> {fp8.optimizer_state = "v.amax"}, tensor<4x2xi8> {fp8.optimizer_state = "v.exponent"}) {
  %0 = fp8.expand_dequantize %arg2, %arg3, %arg4 by <128> : tensor<4x200xf8E4M3FN>, tensor<4x2xf32>, tensor<4x2xi8> -> tensor<4x200xf32>
  %1 = fp8.expand_dequantize %arg5, %arg6, %arg7 by <128> : tensor<4x200xf8E4M3FN>, tensor<4x2xf32>, tensor<4x2xi8> -> tensor<4x200xf32>
  %2 = tensor.empty() : tensor<4x200xf32>
  %3:3 = linalg.generic {indexing_maps = [#map, #map, #map, #map, #map1, #map1, #map1, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1, %0, %1, %arg8, %arg9, %arg10 : tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>, tensor<f32>, tensor<f32>, tensor<f32>) outs(%2, %2, %2 : tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>) {
  ^bb0(%in: f32, %in_3: f32, %in_4: f32, %in_5: f32, %in_6: f32, %in_7: f32, %in_8: f32, %out: f32, %out_9: f32, %out_10: f32):
    %cst = arith.constant 1.000000e+00 : f32
    %cst_11 = arith.constant 0.00999999977 : f32
    %cst_12 = arith.constant 0.899999976 : f32
    %cst_13 = arith.constant 1.000000e-01 : f32
    %cst_14 = arith.constant 9.990000e-01 : f32
    %cst_15 = arith.constant 1.000000e-03 : f32
    %cst_16 = arith.constant 9.99999993E-9 : f32
    %4 = arith.mulf %in_6, %cst_11 : f32
    %5 = arith.subf %cst, %4 : f32
    %6 = arith.mulf %in, %5 : f32
    %7 = arith.mulf %cst_12, %in_4 : f32
    %8 = arith.mulf %cst_13, %in_3 : f32
    %9 = arith.addf %7, %8 : f32
    %10 = arith.mulf %cst_14, %in_5 : f32
    %11 = arith.mulf %cst_15, %in_3 : f32
    %12 = arith.mulf %11, %in_3 : f32
    %13 = arith.addf %10, %12 : f32
    %14 = math.sqrt %13 : f32
    %15 = math.sqrt %in_8 : f32
    %16 = arith.divf %14, %15 : f32
    %17 = arith.addf %16, %cst_16 : f32
    %18 = arith.divf %9, %17 : f32
    %19 = arith.divf %in_6, %in_7 : f32
    %20 = arith.mulf %19, %18 : f32
    %21 = arith.subf %6, %20 : f32
    linalg.yield %21, %9, %13 : f32, f32, f32
  } -> (tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>)
  %data, %amax, %exponent = fp8.expand_quantize %3#1 by <128> : tensor<4x200xf32> -> tensor<4x200xf8E4M3FN>, tensor<4x2xf32>, tensor<4x2xi8>
  %data_0, %amax_1, %exponent_2 = fp8.expand_quantize %3#2 by <128> : tensor<4x200xf32> -> tensor<4x200xf8E4M3FN>, tensor<4x2xf32>, tensor<4x2xi8>
  return %3#0, %data, %amax, %exponent, %data_0, %amax_1, %exponent_2 : tensor<4x200xf32>, tensor<4x200xf8E4M3FN>, tensor<4x2xf32>, tensor<4x2xi8>, tensor<4x200xf8E4M3FN>, tensor<4x2xf32>, tensor<4x2xi8>
}

// Groups that fill their rows, lanes that fill their groups: every access is
// unconditional, so that the new weights' loads are not sunk into a branch
// of their store behind the decodes and the step. Its 16384 groups would take
// 1024 CTAs: the launch is one wave of four 256-thread CTAs per SM (132 * 4),
// their registers capped at 64 so that four fit.
// CHECK-LABEL: .entry fp8_group_state_2048x1024_{{[0-9a-f]+}}(
// CHECK:      .maxnreg 64
// The three hyperparameters are loaded before the loop over groups, and the
// body's square root and division of them alone leave it.
// CHECK:      ld.global.b32
// CHECK:      ld.global.b32
// CHECK:      ld.global.b32
// CHECK-NOT:  ld.global
// CHECK:      sqrt.rn.f32
// CHECK-NOT:  ld.global
// CHECK:      div.rn.f32
// CHECK-NOT:  ld.global
// CHECK:      $L__BB
// CHECK:      ld.global.v4.b32
// CHECK-NOT:  bra
// CHECK:      ld.global.v4.b32
// CHECK-NOT:  bra
// CHECK:      ld.global.b32
// CHECK-NOT:  bra
// CHECK:      ld.global.b32
// CHECK-NOT:  bra
// CHECK:      ld.global.nc.b32
// CHECK-NOT:  bra
// CHECK:      st.global.v4.b32
// CHECK:      shfl.sync.bfly.b32
// CHECK:      cvt.rn.satfinite.e4m3x2.f32
// CHECK:      cvt.rn.satfinite.e4m3x2.f32
// CHECK-NOT:  bra
// CHECK:      st.global.b32
// CHECK:      ret;
// WHOLE:      "grid": [
// WHOLE-NEXT:   528,
// WHOLE:      "kernel": "fp8_group_state_2048x1024_{{[0-9a-f]+}}",
func.func @step_whole(%arg0: tensor<2048x1024xf32>, %arg1: tensor<2048x1024xf32>, %arg2: tensor<2048x1024xf8E4M3FN> {fp8.optimizer_state = "m.codes"}, %arg3: tensor<2048x8xf32> {fp8.optimizer_state = "m.amax"}, %arg4: tensor<2048x8xi8> {fp8.optimizer_state = "m.exponent"}, %arg5: tensor<2048x1024xf8E4M3FN> {fp8.optimizer_state = "v.codes"}, %arg6: tensor<2048x8xf32> {fp8.optimizer_state = "v.amax"}, %arg7: tensor<2048x8xi8> {fp8.optimizer_state = "v.exponent"}, %arg8: tensor<f32>, %arg9: tensor<f32>, %arg10: tensor<f32>) -> (tensor<2048x1024xf32>, tensor<2048x1024xf8E4M3FN> {fp8.optimizer_state = "m.codes"}, tensor<2048x8xf32> {fp8.optimizer_state = "m.amax"}, tensor<2048x8xi8> {fp8.optimizer_state = "m.exponent"}, tensor<2048x1024xf8E4M3FN> {fp8.optimizer_state = "v.codes"}, tensor<2048x8xf32> {fp8.optimizer_state = "v.amax"}, tensor<2048x8xi8> {fp8.optimizer_state = "v.exponent"}) {
  %0 = fp8.expand_dequantize %arg2, %arg3, %arg4 by <128> : tensor<2048x1024xf8E4M3FN>, tensor<2048x8xf32>, tensor<2048x8xi8> -> tensor<2048x1024xf32>
  %1 = fp8.expand_dequantize %arg5, %arg6, %arg7 by <128> : tensor<2048x1024xf8E4M3FN>, tensor<2048x8xf32>, tensor<2048x8xi8> -> tensor<2048x1024xf32>
  %2 = tensor.empty() : tensor<2048x1024xf32>
  %3:3 = linalg.generic {indexing_maps = [#map, #map, #map, #map, #map1, #map1, #map1, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1, %0, %1, %arg8, %arg9, %arg10 : tensor<2048x1024xf32>, tensor<2048x1024xf32>, tensor<2048x1024xf32>, tensor<2048x1024xf32>, tensor<f32>, tensor<f32>, tensor<f32>) outs(%2, %2, %2 : tensor<2048x1024xf32>, tensor<2048x1024xf32>, tensor<2048x1024xf32>) {
  ^bb0(%in: f32, %in_3: f32, %in_4: f32, %in_5: f32, %in_6: f32, %in_7: f32, %in_8: f32, %out: f32, %out_9: f32, %out_10: f32):
    %cst = arith.constant 1.000000e+00 : f32
    %cst_11 = arith.constant 0.00999999977 : f32
    %cst_12 = arith.constant 0.899999976 : f32
    %cst_13 = arith.constant 1.000000e-01 : f32
    %cst_14 = arith.constant 9.990000e-01 : f32
    %cst_15 = arith.constant 1.000000e-03 : f32
    %cst_16 = arith.constant 9.99999993E-9 : f32
    %4 = arith.mulf %in_6, %cst_11 : f32
    %5 = arith.subf %cst, %4 : f32
    %6 = arith.mulf %in, %5 : f32
    %7 = arith.mulf %cst_12, %in_4 : f32
    %8 = arith.mulf %cst_13, %in_3 : f32
    %9 = arith.addf %7, %8 : f32
    %10 = arith.mulf %cst_14, %in_5 : f32
    %11 = arith.mulf %cst_15, %in_3 : f32
    %12 = arith.mulf %11, %in_3 : f32
    %13 = arith.addf %10, %12 : f32
    %14 = math.sqrt %13 : f32
    %15 = math.sqrt %in_8 : f32
    %16 = arith.divf %14, %15 : f32
    %17 = arith.addf %16, %cst_16 : f32
    %18 = arith.divf %9, %17 : f32
    %19 = arith.divf %in_6, %in_7 : f32
    %20 = arith.mulf %19, %18 : f32
    %21 = arith.subf %6, %20 : f32
    linalg.yield %21, %9, %13 : f32, f32, f32
  } -> (tensor<2048x1024xf32>, tensor<2048x1024xf32>, tensor<2048x1024xf32>)
  %data, %amax, %exponent = fp8.expand_quantize %3#1 by <128> : tensor<2048x1024xf32> -> tensor<2048x1024xf8E4M3FN>, tensor<2048x8xf32>, tensor<2048x8xi8>
  %data_0, %amax_1, %exponent_2 = fp8.expand_quantize %3#2 by <128> : tensor<2048x1024xf32> -> tensor<2048x1024xf8E4M3FN>, tensor<2048x8xf32>, tensor<2048x8xi8>
  return %3#0, %data, %amax, %exponent, %data_0, %amax_1, %exponent_2 : tensor<2048x1024xf32>, tensor<2048x1024xf8E4M3FN>, tensor<2048x8xf32>, tensor<2048x8xi8>, tensor<2048x1024xf8E4M3FN>, tensor<2048x8xf32>, tensor<2048x8xi8>
}


// An E5M2 encode with a smaller limit, and a decode to bf16: kernels of their
// own (ragged groups of 300 = 2 * 128 + 44), named by shape and a digest of
// their code, so that the second encode of @encode_twice, equal to
// @encode's, launches the same kernel; the decode looks its codes up in
// the E4M3 table.
// CHECK-LABEL: .entry fp8_group_state_3x300_{{[0-9a-f]+}}(
// CHECK: shfl.sync.bfly.b32
// CHECK-LABEL: .entry fp8_group_state_3x300_{{[0-9a-f]+}}(
// CHECK-NOT: shfl.sync
// CHECK: ld.global.nc.b32
// CHECK-NOT: sqrt.rn.f32
// CHECK: ret;
func.func @encode(%x: tensor<3x300xf32>) -> (tensor<3x300xf8E5M2>, tensor<3x3xf32>, tensor<3x3xi8>) {
  %q, %a, %j = fp8.expand_quantize %x by <128> limit(3) : tensor<3x300xf32> -> tensor<3x300xf8E5M2>, tensor<3x3xf32>, tensor<3x3xi8>
  return %q, %a, %j : tensor<3x300xf8E5M2>, tensor<3x3xf32>, tensor<3x3xi8>
}
func.func @encode_twice(%x: tensor<3x300xf32>, %y: tensor<3x300xf32>) -> (tensor<3x300xf8E5M2>, tensor<3x3xf32>, tensor<3x3xi8>, tensor<3x300xf8E5M2>, tensor<3x3xf32>, tensor<3x3xi8>) {
  %q, %a, %j = fp8.expand_quantize %x by <128> limit(3) : tensor<3x300xf32> -> tensor<3x300xf8E5M2>, tensor<3x3xf32>, tensor<3x3xi8>
  %q2, %a2, %j2 = fp8.expand_quantize %y by <128> limit(3) : tensor<3x300xf32> -> tensor<3x300xf8E5M2>, tensor<3x3xf32>, tensor<3x3xi8>
  return %q, %a, %j, %q2, %a2, %j2 : tensor<3x300xf8E5M2>, tensor<3x3xf32>, tensor<3x3xi8>, tensor<3x300xf8E5M2>, tensor<3x3xf32>, tensor<3x3xi8>
}
func.func @decode(%q: tensor<3x300xf8E4M3FN>, %a: tensor<3x3xf32>, %j: tensor<3x3xi8>) -> tensor<3x300xbf16> {
  %x = fp8.expand_dequantize %q, %a, %j by <128> : tensor<3x300xf8E4M3FN>, tensor<3x3xf32>, tensor<3x3xi8> -> tensor<3x300xbf16>
  return %x : tensor<3x300xbf16>
}

// fl32(float(q) * d) of E4M3 codes: the code's integer decoding (clz for
// subnormals), one multiply.
// CHECK-LABEL: .entry fp8_elementwise_64x96_{{[0-9a-f]+}}(
// CHECK: clz.b32
// CHECK: mul.rn.f32
func.func @dequantize(%q: tensor<64x96xf8E4M3FN>, %s: tensor<1x1xf32>) -> tensor<64x96xf32> {
  %x = fp8.dequantize %q, %s by <tensor> : tensor<64x96xf8E4M3FN>, tensor<1x1xf32> -> tensor<64x96xf32>
  return %x : tensor<64x96xf32>
}
