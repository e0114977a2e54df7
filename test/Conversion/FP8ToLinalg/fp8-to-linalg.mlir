// RUN: fp8-opt %s -convert-fp8-to-linalg -split-input-file | FileCheck %s

// Blocks of 32 along the last dim: a reduction whose output map divides.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[BLK:.*]] = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
// CHECK-LABEL: func @amax
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x3xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[BLK]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%{{.*}} : tensor<4x70xbf16>) outs(%[[INIT]] : tensor<4x3xf32>)
// CHECK: arith.extf
// CHECK: math.absf
// CHECK: arith.maxnumf
func.func @amax(%x: tensor<4x70xbf16>) -> tensor<4x3xf32> {
  %a = fp8.amax %x by <1x32> : tensor<4x70xbf16> -> tensor<4x3xf32>
  return %a : tensor<4x3xf32>
}

// -----

// The whole tensor, NaN-propagating.
// CHECK-DAG: #[[ZERO:.*]] = affine_map<(d0, d1) -> (0, 0)>
// CHECK-LABEL: func @amax_tensor
// CHECK: linalg.generic {{.*}}#[[ZERO]]], iterator_types = ["reduction", "reduction"]
// CHECK: arith.maximumf
func.func @amax_tensor(%x: tensor<4x8xf32>) -> tensor<1x1xf32> {
  %a = fp8.amax %x by <tensor> nan <propagate> : tensor<4x8xf32> -> tensor<1x1xf32>
  return %a : tensor<1x1xf32>
}

// -----

// Dynamic extents: the scale extent is ceil(dim / block).
// CHECK-LABEL: func @amax_dynamic
// CHECK: %[[D:.*]] = tensor.dim %{{.*}}, %c0
// CHECK: %[[DD:.*]] = tensor.dim %{{.*}}, %c1
// CHECK: %[[N:.*]] = arith.ceildivui %[[DD]], %c128
// CHECK: tensor.empty(%[[D]], %[[N]]) : tensor<?x?xf32>
func.func @amax_dynamic(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %a = fp8.amax %x by <1x128> : tensor<?x?xf32> -> tensor<?x?xf32>
  return %a : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func @compute_scale_e8m0
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK: fp8.convert %{{.*}} rounding <rceil> : f32 to f8E8M0FNU
func.func @compute_scale_e8m0(%a: tensor<4x3xf32>) -> tensor<4x3xf8E8M0FNU> {
  %e = fp8.compute_scale %a rule <e8m0_rceil> for <e4m3> : tensor<4x3xf32> -> tensor<4x3xf8E8M0FNU>
  return %e : tensor<4x3xf8E8M0FNU>
}

// -----

// ratio with its inverse: one generic with two results.
// CHECK-LABEL: func @compute_scale_ratio
// CHECK: %[[G:.*]]:2 = linalg.generic
// CHECK: arith.divf
// CHECK: arith.select
// CHECK: linalg.yield %{{.*}}, %{{.*}} : f32, f32
func.func @compute_scale_ratio(%a: tensor<1x1xf32>) -> (tensor<1x1xf32>, tensor<1x1xf32>) {
  %s, %si = fp8.compute_scale %a rule <ratio> for <e4m3> : tensor<1x1xf32> -> tensor<1x1xf32>, tensor<1x1xf32>
  return %s, %si : tensor<1x1xf32>, tensor<1x1xf32>
}

// -----

// CHECK-LABEL: func @quantize
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<4x70xbf16>, tensor<4x3xf8E8M0FNU>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.mulf
// CHECK: fp8.convert %{{.*}} overflow <nonfinite> : f32 to f8E5M2
func.func @quantize(%x: tensor<4x70xbf16>, %e: tensor<4x3xf8E8M0FNU>) -> tensor<4x70xf8E5M2> {
  %q = fp8.quantize %x, %e by <1x32> overflow <nonfinite> : tensor<4x70xbf16>, tensor<4x3xf8E8M0FNU> -> tensor<4x70xf8E5M2>
  return %q : tensor<4x70xf8E5M2>
}

// -----

// CHECK-LABEL: func @quantize_stochastic
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x32xf32>, tensor<4x2xf8E4M3FN>, tensor<1x1xf32>, tensor<4x32xi32>)
// CHECK: fp8.convert %{{.*}} rounding <stochastic> rbits(%{{.*}} : i32) : f32 to f4E2M1FN
func.func @quantize_stochastic(%x: tensor<4x32xf32>, %sb: tensor<4x2xf8E4M3FN>, %g: tensor<1x1xf32>, %r: tensor<4x32xi32>) -> tensor<4x32xf4E2M1FN> {
  %q = fp8.quantize %x, %sb by <1x16> global(%g : tensor<1x1xf32>) rounding <stochastic> rbits(%r : tensor<4x32xi32>) : tensor<4x32xf32>, tensor<4x2xf8E4M3FN> -> tensor<4x32xf4E2M1FN>
  return %q : tensor<4x32xf4E2M1FN>
}

// -----

// CHECK-LABEL: func @dequantize
// CHECK: linalg.generic
// CHECK: arith.extf %{{.*}} : f8E4M3FN to f32
// CHECK: arith.mulf
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @dequantize(%q: tensor<4x8xf8E4M3FN>, %s: tensor<4x1xf32>) -> tensor<4x8xbf16> {
  %y = fp8.dequantize %q, %s by <1x*> : tensor<4x8xf8E4M3FN>, tensor<4x1xf32> -> tensor<4x8xbf16>
  return %y : tensor<4x8xbf16>
}

// -----

// The fused op is exactly amax, compute_scale and quantize; the transposed
// column-wise copy ends in linalg.transpose.
// CHECK-LABEL: func @dynamic_quantize
// CHECK-NOT: fp8.dynamic_quantize
// CHECK-COUNT-2: arith.maxnumf
// CHECK: linalg.transpose
// CHECK-SAME: permutation = [1, 0]
// CHECK: linalg.transpose
func.func @dynamic_quantize(%x: tensor<256x64xbf16>) -> (tensor<256x64xf8E4M3FN>, tensor<256x2xf32>, tensor<64x256xf8E4M3FN>, tensor<64x2xf32>) {
  %q, %s, %qc, %sc = fp8.dynamic_quantize %x by <1x32> colwise <128x1> transposed rule <pow2>
      : tensor<256x64xbf16> -> tensor<256x64xf8E4M3FN>, tensor<256x2xf32> colwise tensor<64x256xf8E4M3FN>, tensor<64x2xf32>
  return %q, %s, %qc, %sc : tensor<256x64xf8E4M3FN>, tensor<256x2xf32>, tensor<64x256xf8E4M3FN>, tensor<64x2xf32>
}

// -----

// Decode both operands, contract over K in f32 (B stored [N, K]).
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @scaled_matmul
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @scaled_matmul(%a: tensor<16x256xf8E4M3FN>, %sa: tensor<16x2xf32>, %b: tensor<8x256xf8E4M3FN>, %sb: tensor<1x2xf32>) -> tensor<16x8xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs
      : tensor<16x256xf8E4M3FN>, tensor<8x256xf8E4M3FN>, tensor<16x2xf32>, tensor<1x2xf32> -> tensor<16x8xbf16>
  return %c : tensor<16x8xbf16>
}

// -----

// A narrow result is quantized with the output scale; the amax is taken of
// the f32 result (with bias), not of the quantized one.
// CHECK-LABEL: func @scaled_matmul_fp8_out
// CHECK: %[[ACC:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: %[[BIASED:.*]] = linalg.generic {{.*}}ins(%[[ACC]], %{{.*}} : tensor<16x8xf32>, tensor<8xf32>)
// CHECK: linalg.generic {{.*}}ins(%[[BIASED]], %{{.*}} : tensor<16x8xf32>, tensor<1x1xf32>)
// CHECK: fp8.convert %{{.*}} : f32 to f8E4M3FN
// CHECK: linalg.generic {{.*}}ins(%[[BIASED]] : tensor<16x8xf32>)
// CHECK: arith.maxnumf
func.func @scaled_matmul_fp8_out(%a: tensor<16x32xf8E4M3FN>, %b: tensor<32x8xf8E4M3FN>, %s: tensor<1x1xf32>, %bias: tensor<8xf32>) -> (tensor<16x8xf8E4M3FN>, tensor<1xf32>) {
  %c, %amax = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) bias(%bias : tensor<8xf32>) out_scale(%s : tensor<1x1xf32>)
      : tensor<16x32xf8E4M3FN>, tensor<32x8xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x8xf8E4M3FN>, amax tensor<1xf32>
  return %c, %amax : tensor<16x8xf8E4M3FN>, tensor<1xf32>
}

// -----

// Record, reduce, update, roll; `skip` keeps the state for a zero amax.
// CHECK-LABEL: func @update
// CHECK: tensor.insert
// CHECK: arith.maximumf
// CHECK: tensor.extract_slice %{{.*}}[1] [15] [1]
// CHECK: tensor.extract_slice %{{.*}}[0] [1] [1]
// CHECK: tensor.insert_slice
// CHECK: tensor.insert_slice
// CHECK: scf.if
// CHECK: tensor.from_elements
func.func @update(%h: tensor<16xf32>, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) {
  %h2, %s2, %i2 = fp8.update_delayed_scale %a into(%h, %s) for <e4m3> zero_amax <skip> : tensor<16xf32>, tensor<1xf32>
  return %h2, %s2, %i2 : tensor<16xf32>, tensor<1xf32>, tensor<1xf32>
}

// -----

// Declared result types less static than the computed ones get a cast.
// CHECK-LABEL: func @less_static_result
// CHECK: %[[G:.*]] = linalg.generic
// CHECK: tensor.cast %[[G]] : tensor<64x128xf32> to tensor<?x128xf32>
func.func @less_static_result(%x: tensor<64x128xf32>) -> tensor<?x128xf32> {
  %a = fp8.amax %x by <1x1> : tensor<64x128xf32> -> tensor<?x128xf32>
  return %a : tensor<?x128xf32>
}

// -----

// scale_inv declared less static than the amax: the lowering casts it.
// CHECK-LABEL: func @compute_scale_less_static_inverse
// CHECK: %[[G:.*]]:2 = linalg.generic
// CHECK: tensor.cast %[[G]]#1 : tensor<4x1xf32> to tensor<?x1xf32>
func.func @compute_scale_less_static_inverse(%a: tensor<4x1xf32>) -> (tensor<4x1xf32>, tensor<?x1xf32>) {
  %s, %si = fp8.compute_scale %a rule <ratio> for <e4m3> : tensor<4x1xf32> -> tensor<4x1xf32>, tensor<?x1xf32>
  return %s, %si : tensor<4x1xf32>, tensor<?x1xf32>
}

// -----

// Range-expanding quantization: one reduction for the largest finite and the
// smallest finite nonzero magnitude of each group, one elementwise pass over
// the groups for the exponent, one over the data for the codes.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[GRP:.*]] = affine_map<(d0, d1) -> (d0, d1 floordiv 128)>
// CHECK-LABEL: func @expand_quantize
// CHECK: %[[MAX:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x3xf32>)
// CHECK: %[[MIN:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x3xf32>)
// CHECK: %[[STATS:.*]]:2 = linalg.generic {indexing_maps = [#[[ID]], #[[GRP]], #[[GRP]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%{{.*}} : tensor<4x300xbf16>) outs(%[[MAX]], %[[MIN]] : tensor<4x3xf32>, tensor<4x3xf32>)
// CHECK: arith.maxnumf
// CHECK: arith.minnumf
// CHECK: arith.andi
// CHECK: %[[J:.*]] = linalg.generic
// CHECK-SAME: ins(%[[STATS]]#0, %[[STATS]]#1 : tensor<4x3xf32>, tensor<4x3xf32>) outs(%{{.*}} : tensor<4x3xi8>)
// CHECK: arith.divf
// CHECK: math.sqrt
// CHECK: arith.cmpf oge
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[GRP]], #[[GRP]], #[[ID]]]
// CHECK-SAME: ins(%{{.*}}, %[[STATS]]#0, %[[J]] : tensor<4x300xbf16>, tensor<4x3xf32>, tensor<4x3xi8>)
// CHECK: arith.divf
// CHECK: arith.cmpi sge
// CHECK: math.copysign
// CHECK: fp8.convert %{{.*}} : f32 to f8E4M3FN
// CHECK: return
func.func @expand_quantize(%x: tensor<4x300xbf16>)
    -> (tensor<4x300xf8E4M3FN>, tensor<4x3xf32>, tensor<4x3xi8>) {
  %q, %a, %j = fp8.expand_quantize %x by <1x128> limit(2)
      : tensor<4x300xbf16> -> tensor<4x300xf8E4M3FN>, tensor<4x3xf32>, tensor<4x3xi8>
  return %q, %a, %j : tensor<4x300xf8E4M3FN>, tensor<4x3xf32>, tensor<4x3xi8>
}

// -----

// Without expansion the exponent is the constant 0 and the encode
// applies no squaring or root.
// CHECK-LABEL: func @expand_quantize_off
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-NOT: math.sqrt
// CHECK: linalg.generic
// CHECK-NOT: math.sqrt
// CHECK: fp8.convert
func.func @expand_quantize_off(%x: tensor<4x300xf32>)
    -> (tensor<4x300xf8E5M2>, tensor<4x3xf32>, tensor<4x3xi8>) {
  %q, %a, %j = fp8.expand_quantize %x by <1x128> limit(0)
      : tensor<4x300xf32> -> tensor<4x300xf8E5M2>, tensor<4x3xf32>, tensor<4x3xi8>
  return %q, %a, %j : tensor<4x300xf8E5M2>, tensor<4x3xf32>, tensor<4x3xi8>
}

// -----

// Decoding undoes up to 8 steps each way, then rounds to the result type.
// CHECK-LABEL: func @expand_dequantize
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<4x300xf8E4M3FN>, tensor<4x3xf32>, tensor<4x3xi8>) outs(%{{.*}} : tensor<4x300xbf16>)
// CHECK: arith.extf %{{.*}} : f8E4M3FN to f32
// CHECK: arith.divf
// CHECK-COUNT-8: math.sqrt
// CHECK-NOT: math.sqrt
// CHECK: math.copysign
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @expand_dequantize(%q: tensor<4x300xf8E4M3FN>, %a: tensor<4x3xf32>, %j: tensor<4x3xi8>)
    -> tensor<4x300xbf16> {
  %y = fp8.expand_dequantize %q, %a, %j by <1x128>
      : tensor<4x300xf8E4M3FN>, tensor<4x3xf32>, tensor<4x3xi8> -> tensor<4x300xbf16>
  return %y : tensor<4x300xbf16>
}
