// RUN: fp8-opt %s -fp8-fuse-dynamic-quantize -split-input-file | FileCheck %s

// A current-scaling chain with an f32 rule: the decode scale is scale_inv.
// CHECK-LABEL: func @tensor_chain
// CHECK-SAME: (%[[X:.*]]: tensor<64x128xbf16>)
// CHECK-NOT: fp8.amax
// CHECK: %[[Q:.*]], %[[S:.*]] = fp8.dynamic_quantize %[[X]] by <tensor> rule <ratio, margin = 1> : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<1x1xf32>
// CHECK-NOT: fp8.quantize
// CHECK: return %[[Q]], %[[S]]
func.func @tensor_chain(%x: tensor<64x128xbf16>) -> (tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) {
  %a = fp8.amax %x by <tensor> : tensor<64x128xbf16> -> tensor<1x1xf32>
  %s, %si = fp8.compute_scale %a rule <ratio, margin = 1> for <e4m3> : tensor<1x1xf32> -> tensor<1x1xf32>, tensor<1x1xf32>
  %q = fp8.quantize %x, %s by <tensor> : tensor<64x128xbf16>, tensor<1x1xf32> -> tensor<64x128xf8E4M3FN>
  return %q, %si : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>
}

// -----

// MX: the E8M0 scale is the decode scale; its other users move to the fused op.
// CHECK-LABEL: func @mx_chain
// CHECK: %[[Q:.*]], %[[S:.*]] = fp8.dynamic_quantize %{{.*}} by <1x32> rule <e8m0_rceil> overflow <nonfinite> nan <propagate>
// CHECK-SAME: -> tensor<64x128xf8E5M2>, tensor<64x4xf8E8M0FNU>
// CHECK: fp8.dequantize %[[Q]], %[[S]]
func.func @mx_chain(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %a = fp8.amax %x by <1x32> nan <propagate> : tensor<64x128xf32> -> tensor<64x4xf32>
  %e = fp8.compute_scale %a rule <e8m0_rceil> for <e5m2> : tensor<64x4xf32> -> tensor<64x4xf8E8M0FNU>
  %q = fp8.quantize %x, %e by <1x32> overflow <nonfinite> : tensor<64x128xf32>, tensor<64x4xf8E8M0FNU> -> tensor<64x128xf8E5M2>
  %y = fp8.dequantize %q, %e by <1x32> : tensor<64x128xf8E5M2>, tensor<64x4xf8E8M0FNU> -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// -----

// Two chains of one input with one rule become one op with a column-wise copy.
// CHECK-LABEL: func @row_and_column
// CHECK: %[[Q:.*]], %[[S:.*]], %[[QC:.*]], %[[SC:.*]] = fp8.dynamic_quantize %{{.*}} by <1x32> colwise <32x1> rule <e8m0_rceil>
// CHECK-SAME: colwise tensor<64x128xf8E4M3FN>, tensor<2x128xf8E8M0FNU>
// CHECK-NOT: fp8.dynamic_quantize
// CHECK: return %[[Q]], %[[S]], %[[QC]], %[[SC]]
func.func @row_and_column(%x: tensor<64x128xf32>) -> (tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<64x128xf8E4M3FN>, tensor<2x128xf8E8M0FNU>) {
  %a = fp8.amax %x by <1x32> : tensor<64x128xf32> -> tensor<64x4xf32>
  %e = fp8.compute_scale %a rule <e8m0_rceil> for <e4m3> : tensor<64x4xf32> -> tensor<64x4xf8E8M0FNU>
  %q = fp8.quantize %x, %e by <1x32> : tensor<64x128xf32>, tensor<64x4xf8E8M0FNU> -> tensor<64x128xf8E4M3FN>
  %ac = fp8.amax %x by <32x1> : tensor<64x128xf32> -> tensor<2x128xf32>
  %ec = fp8.compute_scale %ac rule <e8m0_rceil> for <e4m3> : tensor<2x128xf32> -> tensor<2x128xf8E8M0FNU>
  %qc = fp8.quantize %x, %ec by <32x1> : tensor<64x128xf32>, tensor<2x128xf8E8M0FNU> -> tensor<64x128xf8E4M3FN>
  return %q, %e, %qc, %ec : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<64x128xf8E4M3FN>, tensor<2x128xf8E8M0FNU>
}

// -----

// Not fused: the amax of another tensor, another granularity, another format,
// a delayed (non-computed) scale, stochastic rounding, and NVFP4.
// CHECK-LABEL: func @no_fusion
// CHECK-NOT: fp8.dynamic_quantize
// CHECK-COUNT-5: fp8.quantize
// CHECK-NOT: fp8.dynamic_quantize
func.func @no_fusion(%x: tensor<64x128xf32>, %y: tensor<64x128xf32>, %r: tensor<64x128xi32>, %s: tensor<1x1xf32>)
    -> (tensor<64x128xf8E4M3FN>, tensor<64x128xf8E4M3FN>, tensor<64x128xf8E5M2>, tensor<64x128xf8E4M3FN>, tensor<64x128xf4E2M1FN>) {
  %a = fp8.amax %y by <tensor> : tensor<64x128xf32> -> tensor<1x1xf32>
  %sa = fp8.compute_scale %a rule <ratio> for <e4m3> : tensor<1x1xf32> -> tensor<1x1xf32>
  %q0 = fp8.quantize %x, %sa by <tensor> : tensor<64x128xf32>, tensor<1x1xf32> -> tensor<64x128xf8E4M3FN>
  %ar = fp8.amax %x by <1x*> : tensor<64x128xf32> -> tensor<64x1xf32>
  %sr = fp8.compute_scale %ar rule <pow2> for <e4m3> : tensor<64x1xf32> -> tensor<64x1xf32>
  %q1 = fp8.quantize %x, %sr by <1x128> : tensor<64x128xf32>, tensor<64x1xf32> -> tensor<64x128xf8E4M3FN>
  %ax = fp8.amax %x by <tensor> : tensor<64x128xf32> -> tensor<1x1xf32>
  %sx = fp8.compute_scale %ax rule <ratio> for <e4m3> : tensor<1x1xf32> -> tensor<1x1xf32>
  %q2 = fp8.quantize %x, %sx by <tensor> : tensor<64x128xf32>, tensor<1x1xf32> -> tensor<64x128xf8E5M2>
  %q3 = fp8.quantize %x, %sx by <tensor> rounding <stochastic> rbits(%r : tensor<64x128xi32>) : tensor<64x128xf32>, tensor<1x1xf32> -> tensor<64x128xf8E4M3FN>
  %ab = fp8.amax %x by <1x16> : tensor<64x128xf32> -> tensor<64x8xf32>
  %sb = fp8.compute_scale %ab global(%s : tensor<1x1xf32>) rule <nvfp4> for <e2m1> : tensor<64x8xf32> -> tensor<64x8xf8E4M3FN>
  %q4 = fp8.quantize %x, %sb by <1x16> global(%s : tensor<1x1xf32>) : tensor<64x128xf32>, tensor<64x8xf8E4M3FN> -> tensor<64x128xf4E2M1FN>
  return %q0, %q1, %q2, %q3, %q4 : tensor<64x128xf8E4M3FN>, tensor<64x128xf8E4M3FN>, tensor<64x128xf8E5M2>, tensor<64x128xf8E4M3FN>, tensor<64x128xf4E2M1FN>
}

// -----

// scale_inv typed differently from scale (here less static): not fused,
// since the fused op's decode scale has the type of scale.
// CHECK-LABEL: func @scale_inv_other_type
// CHECK-NOT: fp8.dynamic_quantize
// CHECK: fp8.quantize
func.func @scale_inv_other_type(%x: tensor<4x8xf32>) -> (tensor<4x8xf8E4M3FN>, tensor<?x1xf32>) {
  %a = fp8.amax %x by <1x*> : tensor<4x8xf32> -> tensor<4x1xf32>
  %s, %si = fp8.compute_scale %a rule <ratio> for <e4m3> : tensor<4x1xf32> -> tensor<4x1xf32>, tensor<?x1xf32>
  %q = fp8.quantize %x, %s by <1x*> : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf8E4M3FN>
  return %q, %si : tensor<4x8xf8E4M3FN>, tensor<?x1xf32>
}

// -----

// Cast+transpose: a pair whose column-wise copy is read only through
// transposes of its codes and scales stores that copy transposed, so one
// read of x gives the row-wise copy and the K-major column-wise copy a
// Hopper wgrad GEMM needs.
// CHECK-LABEL: func @cast_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<64x128xf32>)
// CHECK: %[[Q:.*]], %[[S:.*]], %[[QC:.*]], %[[SC:.*]] = fp8.dynamic_quantize %[[X]] by <1x32> colwise <32x1> transposed rule <e8m0_rceil> : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU> colwise tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>
// CHECK-NOT: linalg.transpose
// CHECK: return %[[Q]], %[[S]], %[[QC]], %[[SC]]
func.func @cast_transpose(%x: tensor<64x128xf32>) -> (tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>) {
  %q, %s, %qc, %sc = fp8.dynamic_quantize %x by <1x32> colwise <32x1> rule <e8m0_rceil> : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU> colwise tensor<64x128xf8E4M3FN>, tensor<2x128xf8E8M0FNU>
  %e = tensor.empty() : tensor<128x64xf8E4M3FN>
  %qt = linalg.transpose ins(%qc : tensor<64x128xf8E4M3FN>) outs(%e : tensor<128x64xf8E4M3FN>) permutation = [1, 0]
  %es = tensor.empty() : tensor<128x2xf8E8M0FNU>
  %st = linalg.transpose ins(%sc : tensor<2x128xf8E8M0FNU>) outs(%es : tensor<128x2xf8E8M0FNU>) permutation = [1, 0]
  return %q, %s, %qt, %st : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>
}

// -----

// The row-wise copy is the one read transposed: the copies swap roles.
// Per-tensor scales need no transpose.
// CHECK-LABEL: func @swap_roles
// CHECK: %[[Q:.*]], %[[S:.*]], %[[QC:.*]], %[[SC:.*]] = fp8.dynamic_quantize %{{.*}} by <tensor> colwise <tensor> transposed rule <ratio> : tensor<32x16xf32> -> tensor<32x16xf8E5M2>, tensor<1x1xf32> colwise tensor<16x32xf8E4M3FN>, tensor<1x1xf32>
// CHECK-NOT: linalg.transpose
// CHECK: return %[[QC]], %[[SC]], %[[Q]], %[[S]]
func.func @swap_roles(%x: tensor<32x16xf32>) -> (tensor<16x32xf8E4M3FN>, tensor<1x1xf32>, tensor<32x16xf8E5M2>, tensor<1x1xf32>) {
  %q, %s, %qc, %sc = fp8.dynamic_quantize %x by <tensor> colwise <tensor> rule <ratio> : tensor<32x16xf32> -> tensor<32x16xf8E4M3FN>, tensor<1x1xf32> colwise tensor<32x16xf8E5M2>, tensor<1x1xf32>
  %e = tensor.empty() : tensor<16x32xf8E4M3FN>
  %qt = linalg.transpose ins(%q : tensor<32x16xf8E4M3FN>) outs(%e : tensor<16x32xf8E4M3FN>) permutation = [1, 0]
  return %qt, %s, %qc, %sc : tensor<16x32xf8E4M3FN>, tensor<1x1xf32>, tensor<32x16xf8E5M2>, tensor<1x1xf32>
}
