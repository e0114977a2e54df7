// Round trip of every fp8 op in its custom form, and through the generic form.
// RUN: fp8-opt %s | fp8-opt | FileCheck %s
// RUN: fp8-opt %s --mlir-print-op-generic | fp8-opt | FileCheck %s
// RUN: fp8-opt %s --emit-bytecode | fp8-opt | FileCheck %s

// CHECK-LABEL: func @amax
func.func @amax(%x: tensor<256x512xbf16>, %d: tensor<?x512xf16>, %q: tensor<8x8xf8E4M3FN>)
    -> (tensor<256x4xf32>, tensor<1x1xf32>, tensor<?x1xf32>, tensor<1x8xf32>) {
  // CHECK: fp8.amax %{{.*}} by <1x128> : tensor<256x512xbf16> -> tensor<256x4xf32>
  %0 = fp8.amax %x by <1x128> : tensor<256x512xbf16> -> tensor<256x4xf32>
  // CHECK: fp8.amax %{{.*}} by <tensor> nan <propagate> : tensor<256x512xbf16> -> tensor<1x1xf32>
  %1 = fp8.amax %x by <tensor> nan <propagate> : tensor<256x512xbf16> -> tensor<1x1xf32>
  // The default NaN policy is not printed.
  // CHECK: fp8.amax %{{.*}} by <1x*> : tensor<?x512xf16> -> tensor<?x1xf32>
  %2 = fp8.amax %d by <1x*> nan <ignore> : tensor<?x512xf16> -> tensor<?x1xf32>
  // CHECK: fp8.amax %{{.*}} by <*x1> : tensor<8x8xf8E4M3FN> -> tensor<1x8xf32>
  %3 = fp8.amax %q by <*x1> : tensor<8x8xf8E4M3FN> -> tensor<1x8xf32>
  return %0, %1, %2, %3 : tensor<256x4xf32>, tensor<1x1xf32>, tensor<?x1xf32>, tensor<1x8xf32>
}

// CHECK-LABEL: func @compute_scale
func.func @compute_scale(%t: tensor<1x1xf32>, %b: tensor<128x16xf32>, %n: tensor<128x4xf32>) {
  // CHECK: fp8.compute_scale %{{.*}} rule <ratio> for <e4m3> : tensor<1x1xf32> -> tensor<1x1xf32>, tensor<1x1xf32>
  %s, %si = fp8.compute_scale %t rule <ratio> for <e4m3> : tensor<1x1xf32> -> tensor<1x1xf32>, tensor<1x1xf32>
  // CHECK: fp8.compute_scale %{{.*}} rule <pow2, margin = 2, eps = 1.0e-12> for <e5m2> : tensor<1x1xf32> -> tensor<1x1xf32>
  %p = fp8.compute_scale %t rule <pow2, margin = 2, eps = 1.0e-12> for <e5m2> : tensor<1x1xf32> -> tensor<1x1xf32>
  // CHECK: fp8.compute_scale %{{.*}} rule <pow2_bias> for <e4m3>
  %g = fp8.compute_scale %t rule <pow2_bias> for <e4m3> : tensor<1x1xf32> -> tensor<1x1xf32>
  // CHECK: fp8.compute_scale %{{.*}} rule <e8m0_rceil> for <e4m3> : tensor<128x16xf32> -> tensor<128x16xf8E8M0FNU>
  %e = fp8.compute_scale %b rule <e8m0_rceil> for <e4m3> : tensor<128x16xf32> -> tensor<128x16xf8E8M0FNU>
  // CHECK: fp8.compute_scale %{{.*}} rule <e8m0_floor> for <e2m1>
  %f = fp8.compute_scale %b rule <e8m0_floor> for <e2m1> : tensor<128x16xf32> -> tensor<128x16xf8E8M0FNU>
  // CHECK: %[[S:.*]], %{{.*}} = fp8.compute_scale %{{.*}} rule <nvfp4> for <e2m1> : tensor<1x1xf32> -> tensor<1x1xf32>, tensor<1x1xf32>
  %gs, %gsi = fp8.compute_scale %t rule <nvfp4> for <e2m1> : tensor<1x1xf32> -> tensor<1x1xf32>, tensor<1x1xf32>
  // CHECK: fp8.compute_scale %{{.*}} global(%[[S]] : tensor<1x1xf32>) rule <nvfp4> for <e2m1> : tensor<128x4xf32> -> tensor<128x4xf8E4M3FN>
  %sb = fp8.compute_scale %n global(%gs : tensor<1x1xf32>) rule <nvfp4> for <e2m1> : tensor<128x4xf32> -> tensor<128x4xf8E4M3FN>
  return
}

// CHECK-LABEL: func @quantize
func.func @quantize(%x: tensor<64x128xbf16>, %xf: tensor<64x128xf32>, %s: tensor<1x1xf32>,
                    %e: tensor<64x4xf8E8M0FNU>, %sb: tensor<64x8xf8E4M3FN>, %r: tensor<64x128xi32>) {
  // CHECK: fp8.quantize %{{.*}}, %{{.*}} by <tensor> : tensor<64x128xbf16>, tensor<1x1xf32> -> tensor<64x128xf8E4M3FN>
  %0 = fp8.quantize %x, %s by <tensor> : tensor<64x128xbf16>, tensor<1x1xf32> -> tensor<64x128xf8E4M3FN>
  // CHECK: fp8.quantize %{{.*}}, %{{.*}} by <1x32> overflow <nonfinite> : tensor<64x128xbf16>, tensor<64x4xf8E8M0FNU> -> tensor<64x128xf8E5M2>
  %1 = fp8.quantize %x, %e by <1x32> overflow <nonfinite> : tensor<64x128xbf16>, tensor<64x4xf8E8M0FNU> -> tensor<64x128xf8E5M2>
  // CHECK: fp8.quantize %{{.*}}, %{{.*}} by <1x16> global(%{{.*}} : tensor<1x1xf32>) rounding <stochastic> rbits(%{{.*}} : tensor<64x128xi32>) : tensor<64x128xf32>, tensor<64x8xf8E4M3FN> -> tensor<64x128xf4E2M1FN>
  %2 = fp8.quantize %xf, %sb by <1x16> global(%s : tensor<1x1xf32>) rounding <stochastic> rbits(%r : tensor<64x128xi32>) : tensor<64x128xf32>, tensor<64x8xf8E4M3FN> -> tensor<64x128xf4E2M1FN>
  // CHECK: fp8.quantize %{{.*}}, %{{.*}} by <1x32> : tensor<64x128xbf16>, tensor<64x4xf8E8M0FNU> -> tensor<64x128xf6E2M3FN>
  %3 = fp8.quantize %x, %e by <1x32> : tensor<64x128xbf16>, tensor<64x4xf8E8M0FNU> -> tensor<64x128xf6E2M3FN>
  // CHECK: fp8.quantize %{{.*}}, %{{.*}} by <1x32> : tensor<64x128xbf16>, tensor<64x4xf8E8M0FNU> -> tensor<64x128xf6E3M2FN>
  %4 = fp8.quantize %x, %e by <1x32> : tensor<64x128xbf16>, tensor<64x4xf8E8M0FNU> -> tensor<64x128xf6E3M2FN>
  return
}

// CHECK-LABEL: func @dequantize
func.func @dequantize(%q: tensor<64x128xf8E4M3FN>, %si: tensor<64x1xf32>, %n: tensor<64x128xf4E2M1FN>,
                      %sb: tensor<64x8xf8E4M3FN>, %g: tensor<1x1xf32>, %m: tensor<3x33xf8E5M2>,
                      %e: tensor<3x2xf8E8M0FNU>) {
  // CHECK: fp8.dequantize %{{.*}}, %{{.*}} by <1x*> : tensor<64x128xf8E4M3FN>, tensor<64x1xf32> -> tensor<64x128xbf16>
  %0 = fp8.dequantize %q, %si by <1x*> : tensor<64x128xf8E4M3FN>, tensor<64x1xf32> -> tensor<64x128xbf16>
  // CHECK: fp8.dequantize %{{.*}}, %{{.*}} by <1x16> global(%{{.*}} : tensor<1x1xf32>) : tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN> -> tensor<64x128xf32>
  %1 = fp8.dequantize %n, %sb by <1x16> global(%g : tensor<1x1xf32>) : tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN> -> tensor<64x128xf32>
  // A ragged last block: 33 columns in blocks of 32.
  // CHECK: fp8.dequantize %{{.*}}, %{{.*}} by <1x32> : tensor<3x33xf8E5M2>, tensor<3x2xf8E8M0FNU> -> tensor<3x33xf16>
  %2 = fp8.dequantize %m, %e by <1x32> : tensor<3x33xf8E5M2>, tensor<3x2xf8E8M0FNU> -> tensor<3x33xf16>
  return
}

// CHECK-LABEL: func @dynamic_quantize
func.func @dynamic_quantize(%x: tensor<256x512xbf16>) {
  // CHECK: fp8.dynamic_quantize %{{.*}} by <1x32> rule <e8m0_rceil> : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>
  %q0, %s0 = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil> : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>
  // CHECK: fp8.dynamic_quantize %{{.*}} by <1x128> colwise <128x1> transposed rule <pow2> : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<256x4xf32> colwise tensor<512x256xf8E4M3FN>, tensor<512x2xf32>
  %q1, %s1, %qc1, %sc1 = fp8.dynamic_quantize %x by <1x128> colwise <128x1> transposed rule <pow2>
      : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<256x4xf32> colwise tensor<512x256xf8E4M3FN>, tensor<512x2xf32>
  // CHECK: fp8.dynamic_quantize %{{.*}} by <1x32> colwise <32x1> rule <e8m0_floor> overflow <nonfinite> nan <propagate> : tensor<256x512xbf16> -> tensor<256x512xf8E5M2>, tensor<256x16xf8E8M0FNU> colwise tensor<256x512xf8E5M2>, tensor<8x512xf8E8M0FNU>
  %q2, %s2, %qc2, %sc2 = fp8.dynamic_quantize %x by <1x32> colwise <32x1> rule <e8m0_floor> overflow <nonfinite> nan <propagate>
      : tensor<256x512xbf16> -> tensor<256x512xf8E5M2>, tensor<256x16xf8E8M0FNU> colwise tensor<256x512xf8E5M2>, tensor<8x512xf8E8M0FNU>
  // CHECK: fp8.dynamic_quantize %{{.*}} by <1x16> rule <nvfp4> : tensor<256x512xbf16> -> tensor<256x512xf4E2M1FN>, tensor<256x32xf8E4M3FN> global tensor<1x1xf32>
  %q3, %s3, %g3 = fp8.dynamic_quantize %x by <1x16> rule <nvfp4> : tensor<256x512xbf16> -> tensor<256x512xf4E2M1FN>, tensor<256x32xf8E4M3FN> global tensor<1x1xf32>
  // CHECK: fp8.dynamic_quantize %{{.*}} by <1x16> colwise <16x16> rule <nvfp4> : tensor<256x512xbf16> -> tensor<256x512xf4E2M1FN>, tensor<256x32xf8E4M3FN> global tensor<1x1xf32> colwise tensor<256x512xf4E2M1FN>, tensor<16x32xf8E4M3FN>
  %q4, %s4, %g4, %qc4, %sc4 = fp8.dynamic_quantize %x by <1x16> colwise <16x16> rule <nvfp4>
      : tensor<256x512xbf16> -> tensor<256x512xf4E2M1FN>, tensor<256x32xf8E4M3FN> global tensor<1x1xf32> colwise tensor<256x512xf4E2M1FN>, tensor<16x32xf8E4M3FN>
  // CHECK: fp8.dynamic_quantize %{{.*}} by <tensor> rule <ratio, margin = 1> : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<1x1xf32>
  %q5, %s5 = fp8.dynamic_quantize %x by <tensor> rule <ratio, margin = 1> : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<1x1xf32>
  return
}

// CHECK-LABEL: func @scaled_matmul
func.func @scaled_matmul(%a: tensor<256x512xf8E4M3FN>, %sa: tensor<256x4xf32>,
                         %b: tensor<384x512xf8E4M3FN>, %sb: tensor<3x4xf32>,
                         %b5: tensor<512x384xf8E5M2>, %t: tensor<1x1xf32>,
                         %bias: tensor<384xbf16>,
                         %na: tensor<256x512xf4E2M1FN>, %nsa: tensor<256x32xf8E4M3FN>,
                         %nb: tensor<384x512xf4E2M1FN>, %nsb: tensor<24x32xf8E4M3FN>,
                         %ba: tensor<4x64x96xf8E4M3FN>, %bb: tensor<4x64x32xf8E4M3FN>, %bs: tensor<1x1x1xf32>) {
  // CHECK: fp8.scaled_matmul %{{.*}}, %{{.*}} scales(%{{.*}}, %{{.*}}) by(<1x128>, <128x128>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x4xf32>, tensor<3x4xf32> -> tensor<256x384xbf16>
  %0 = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs promote_interval(4)
      : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x4xf32>, tensor<3x4xf32> -> tensor<256x384xbf16>
  // CHECK: fp8.scaled_matmul %{{.*}}, %{{.*}} scales(%{{.*}}, %{{.*}}) by(<tensor>, <tensor>) bias(%{{.*}} : tensor<384xbf16>) out_scale(%{{.*}} : tensor<1x1xf32>) promote_interval(0) {recipe = #fp8.recipe<tensor_delayed>, role = #fp8.gemm_role<fprop>} : tensor<256x512xf8E4M3FN>, tensor<512x384xf8E5M2>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xf8E4M3FN>, amax tensor<1x1xf32>
  %1, %amax = fp8.scaled_matmul %a, %b5 scales(%t, %t) by(<tensor>, <tensor>) bias(%bias : tensor<384xbf16>) out_scale(%t : tensor<1x1xf32>) promote_interval(0)
      {recipe = #fp8.recipe<tensor_delayed>, role = #fp8.gemm_role<fprop>}
      : tensor<256x512xf8E4M3FN>, tensor<512x384xf8E5M2>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xf8E4M3FN>, amax tensor<1x1xf32>
  // CHECK: fp8.scaled_matmul %{{.*}}, %{{.*}} scales(%{{.*}}, %{{.*}}) by(<1x16>, <16x16>) lhs_global(%{{.*}} : tensor<1x1xf32>) rhs_global(%{{.*}} : tensor<1x1xf32>) transpose_rhs : tensor<256x512xf4E2M1FN>, tensor<384x512xf4E2M1FN>, tensor<256x32xf8E4M3FN>, tensor<24x32xf8E4M3FN> -> tensor<256x384xf32>
  %2 = fp8.scaled_matmul %na, %nb scales(%nsa, %nsb) by(<1x16>, <16x16>) lhs_global(%t : tensor<1x1xf32>) rhs_global(%t : tensor<1x1xf32>) transpose_rhs
      : tensor<256x512xf4E2M1FN>, tensor<384x512xf4E2M1FN>, tensor<256x32xf8E4M3FN>, tensor<24x32xf8E4M3FN> -> tensor<256x384xf32>
  // A batched product with A stored [K, M].
  // CHECK: fp8.scaled_matmul %{{.*}}, %{{.*}} scales(%{{.*}}, %{{.*}}) by(<tensor>, <tensor>) transpose_lhs : tensor<4x64x96xf8E4M3FN>, tensor<4x64x32xf8E4M3FN>, tensor<1x1x1xf32>, tensor<1x1x1xf32> -> tensor<4x96x32xf16>
  %3 = fp8.scaled_matmul %ba, %bb scales(%bs, %bs) by(<tensor>, <tensor>) transpose_lhs
      : tensor<4x64x96xf8E4M3FN>, tensor<4x64x32xf8E4M3FN>, tensor<1x1x1xf32>, tensor<1x1x1xf32> -> tensor<4x96x32xf16>
  return
}

// CHECK-LABEL: func @update_delayed_scale
func.func @update_delayed_scale(%h: tensor<1024xf32>, %s: tensor<1xf32>, %a: tensor<1xf32>) {
  // CHECK: fp8.update_delayed_scale %{{.*}} into(%{{.*}}, %{{.*}}) for <e4m3> : tensor<1024xf32>, tensor<1xf32>
  %h1, %s1, %i1 = fp8.update_delayed_scale %a into(%h, %s) for <e4m3> algo <max> : tensor<1024xf32>, tensor<1xf32>
  // CHECK: fp8.update_delayed_scale %{{.*}} into(%{{.*}}, %{{.*}}) for <e5m2> algo <most_recent> margin(1) zero_amax <skip> : tensor<1024xf32>, tensor<1xf32>
  %h2, %s2, %i2 = fp8.update_delayed_scale %a into(%h, %s) for <e5m2> algo <most_recent> margin(1) zero_amax <skip> : tensor<1024xf32>, tensor<1xf32>
  return
}

// CHECK-LABEL: func @convert
func.func @convert(%x: f32, %v: vector<8xf32>, %t: tensor<4x8xbf16>, %h: f16, %r: i32) {
  // CHECK: fp8.convert %{{.*}} : f32 to f8E4M3FN
  %0 = fp8.convert %x : f32 to f8E4M3FN
  // CHECK: fp8.convert %{{.*}} rounding <rceil> : vector<8xf32> to vector<8xf8E8M0FNU>
  %1 = fp8.convert %v rounding <rceil> : vector<8xf32> to vector<8xf8E8M0FNU>
  // CHECK: fp8.convert %{{.*}} rounding <floor> overflow <nonfinite> : tensor<4x8xbf16> to tensor<4x8xf8E8M0FNU>
  %2 = fp8.convert %t rounding <floor> overflow <nonfinite> : tensor<4x8xbf16> to tensor<4x8xf8E8M0FNU>
  // CHECK: fp8.convert %{{.*}} rounding <stochastic> rbits(%{{.*}} : i32) overflow <nonfinite> : f16 to f4E2M1FN
  %3 = fp8.convert %h rounding <stochastic> rbits(%r : i32) overflow <nonfinite> : f16 to f4E2M1FN
  // CHECK: fp8.convert %{{.*}} : f32 to f6E3M2FN
  %4 = fp8.convert %x overflow <saturate> : f32 to f6E3M2FN
  return
}

// CHECK-LABEL: func @expand_quantize
func.func @expand_quantize(%x: tensor<64x300xf32>, %h: tensor<?x256xbf16>) {
  // The default limit is not printed.
  // CHECK: fp8.expand_quantize %{{.*}} by <1x128> : tensor<64x300xf32> -> tensor<64x300xf8E4M3FN>, tensor<64x3xf32>, tensor<64x3xi8>
  %q, %a, %j = fp8.expand_quantize %x by <1x128> limit(5)
      : tensor<64x300xf32> -> tensor<64x300xf8E4M3FN>, tensor<64x3xf32>, tensor<64x3xi8>
  // CHECK: fp8.expand_quantize %{{.*}} by <tensor> limit(0) : tensor<?x256xbf16> -> tensor<?x256xf8E5M2>, tensor<1x1xf32>, tensor<1x1xi8>
  %q2, %a2, %j2 = fp8.expand_quantize %h by <tensor> limit(0)
      : tensor<?x256xbf16> -> tensor<?x256xf8E5M2>, tensor<1x1xf32>, tensor<1x1xi8>
  // CHECK: fp8.expand_dequantize %{{.*}}, %{{.*}}, %{{.*}} by <1x128> : tensor<64x300xf8E4M3FN>, tensor<64x3xf32>, tensor<64x3xi8> -> tensor<64x300xbf16>
  %y = fp8.expand_dequantize %q, %a, %j by <1x128>
      : tensor<64x300xf8E4M3FN>, tensor<64x3xf32>, tensor<64x3xi8> -> tensor<64x300xbf16>
  return
}
