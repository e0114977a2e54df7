// Folds of fp8 ops: only where the result is exact.
// RUN: fp8-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func @amax_of_splat
// CHECK-DAG: %[[A:.*]] = arith.constant dense<2.500000e+00> : tensor<4x2xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense<0.000000e+00> : tensor<1x1xf32>
// CHECK-DAG: %[[C:.*]] = arith.constant dense<0x7FC00000> : tensor<1x1xf32>
// CHECK-NOT: fp8.amax
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @amax_of_splat() -> (tensor<4x2xf32>, tensor<1x1xf32>, tensor<1x1xf32>) {
  %x = arith.constant dense<-2.5> : tensor<4x256xbf16>
  %0 = fp8.amax %x by <1x128> : tensor<4x256xbf16> -> tensor<4x2xf32>
  %nan = arith.constant dense<0x7FC0> : tensor<4x8xbf16>
  // With the default `ignore` policy an all-NaN tensor has amax 0 ...
  %1 = fp8.amax %nan by <tensor> : tensor<4x8xbf16> -> tensor<1x1xf32>
  // ... and with `propagate` it is NaN.
  %2 = fp8.amax %nan by <tensor> nan <propagate> : tensor<4x8xbf16> -> tensor<1x1xf32>
  return %0, %1, %2 : tensor<4x2xf32>, tensor<1x1xf32>, tensor<1x1xf32>
}

// -----

// CHECK-LABEL: func @amax_of_empty
// CHECK: arith.constant dense<0.000000e+00> : tensor<1x1xf32>
func.func @amax_of_empty() -> tensor<1x1xf32> {
  %x = arith.constant dense<7.0> : tensor<0x8xf32>
  %0 = fp8.amax %x by <tensor> : tensor<0x8xf32> -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

// Power-of-two scales that are exact reciprocals: the round trip is the identity.
// CHECK-LABEL: func @requantize_f32_pow2
// CHECK-SAME: (%[[Q:.*]]: tensor<4x8xf8E4M3FN>)
// CHECK-NEXT: return %[[Q]]
func.func @requantize_f32_pow2(%q: tensor<4x8xf8E4M3FN>) -> tensor<4x8xf8E4M3FN> {
  %d = arith.constant dense<[[0.125], [8.0], [1.0], [9.5367431640625e-07]]> : tensor<4x1xf32>
  %e = arith.constant dense<[[8.0], [0.125], [1.0], [1048576.0]]> : tensor<4x1xf32>
  %x = fp8.dequantize %q, %d by <1x*> : tensor<4x8xf8E4M3FN>, tensor<4x1xf32> -> tensor<4x8xf32>
  %r = fp8.quantize %x, %e by <1x*> : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf8E4M3FN>
  return %r : tensor<4x8xf8E4M3FN>
}

// -----

// 1e-30 and 1e+30 are not exact reciprocals.
// CHECK-LABEL: func @requantize_f32_not_reciprocal
// CHECK: fp8.dequantize
// CHECK: fp8.quantize
func.func @requantize_f32_not_reciprocal(%q: tensor<4x8xf8E4M3FN>) -> tensor<4x8xf8E4M3FN> {
  %d = arith.constant dense<1.0e-30> : tensor<1x1xf32>
  %e = arith.constant dense<1.0e+30> : tensor<1x1xf32>
  %x = fp8.dequantize %q, %d by <tensor> : tensor<4x8xf8E4M3FN>, tensor<1x1xf32> -> tensor<4x8xf32>
  %r = fp8.quantize %x, %e by <tensor> : tensor<4x8xf32>, tensor<1x1xf32> -> tensor<4x8xf8E4M3FN>
  return %r : tensor<4x8xf8E4M3FN>
}

// -----

// Exact reciprocals, but 3 * (1/3) is not exactly 1 in f32.
// CHECK-LABEL: func @requantize_f32_inexact
// CHECK: fp8.quantize
func.func @requantize_f32_inexact(%q: tensor<4x8xf8E4M3FN>) -> tensor<4x8xf8E4M3FN> {
  %d = arith.constant dense<3.0> : tensor<1x1xf32>
  %e = arith.constant dense<0.333333343> : tensor<1x1xf32>
  %x = fp8.dequantize %q, %d by <tensor> : tensor<4x8xf8E4M3FN>, tensor<1x1xf32> -> tensor<4x8xf32>
  %r = fp8.quantize %x, %e by <tensor> : tensor<4x8xf32>, tensor<1x1xf32> -> tensor<4x8xf8E4M3FN>
  return %r : tensor<4x8xf8E4M3FN>
}

// -----

// 448 * 2^120 overflows f16: the decoded tensor is not exact.
// CHECK-LABEL: func @requantize_f16_overflow
// CHECK: fp8.quantize
func.func @requantize_f16_overflow(%q: tensor<4x8xf8E4M3FN>) -> tensor<4x8xf8E4M3FN> {
  %d = arith.constant dense<256.0> : tensor<1x1xf32>
  %e = arith.constant dense<0.00390625> : tensor<1x1xf32>
  %x = fp8.dequantize %q, %d by <tensor> : tensor<4x8xf8E4M3FN>, tensor<1x1xf32> -> tensor<4x8xf16>
  %r = fp8.quantize %x, %e by <tensor> : tensor<4x8xf16>, tensor<1x1xf32> -> tensor<4x8xf8E4M3FN>
  return %r : tensor<4x8xf8E4M3FN>
}

// -----

// 2^-9 * 2^-16 is below the smallest f16 subnormal: not exact.
// CHECK-LABEL: func @requantize_f16_underflow
// CHECK: fp8.quantize
func.func @requantize_f16_underflow(%q: tensor<4x8xf8E4M3FN>) -> tensor<4x8xf8E4M3FN> {
  %d = arith.constant dense<1.52587890625e-05> : tensor<1x1xf32>
  %e = arith.constant dense<65536.0> : tensor<1x1xf32>
  %x = fp8.dequantize %q, %d by <tensor> : tensor<4x8xf8E4M3FN>, tensor<1x1xf32> -> tensor<4x8xf16>
  %r = fp8.quantize %x, %e by <tensor> : tensor<4x8xf16>, tensor<1x1xf32> -> tensor<4x8xf8E4M3FN>
  return %r : tensor<4x8xf8E4M3FN>
}

// -----

// One step less and f16 holds every decoded value exactly.
// CHECK-LABEL: func @requantize_f16_exact
// CHECK-NOT: fp8.quantize
func.func @requantize_f16_exact(%q: tensor<4x8xf8E4M3FN>) -> tensor<4x8xf8E4M3FN> {
  %d = arith.constant dense<3.0517578125e-05> : tensor<1x1xf32>
  %e = arith.constant dense<32768.0> : tensor<1x1xf32>
  %x = fp8.dequantize %q, %d by <tensor> : tensor<4x8xf8E4M3FN>, tensor<1x1xf32> -> tensor<4x8xf16>
  %r = fp8.quantize %x, %e by <tensor> : tensor<4x8xf16>, tensor<1x1xf32> -> tensor<4x8xf8E4M3FN>
  return %r : tensor<4x8xf8E4M3FN>
}

// -----

// The same scales with bf16 in between: exact.
// CHECK-LABEL: func @requantize_bf16
// CHECK-NOT: fp8.quantize
func.func @requantize_bf16(%q: tensor<4x8xf8E4M3FN>) -> tensor<4x8xf8E4M3FN> {
  %d = arith.constant dense<256.0> : tensor<1x1xf32>
  %e = arith.constant dense<0.00390625> : tensor<1x1xf32>
  %x = fp8.dequantize %q, %d by <tensor> : tensor<4x8xf8E4M3FN>, tensor<1x1xf32> -> tensor<4x8xbf16>
  %r = fp8.quantize %x, %e by <tensor> : tensor<4x8xbf16>, tensor<1x1xf32> -> tensor<4x8xf8E4M3FN>
  return %r : tensor<4x8xf8E4M3FN>
}

// -----

// E8M0 scales: the same codes decode and encode exactly.
// CHECK-LABEL: func @requantize_e8m0
// CHECK-SAME: (%[[Q:.*]]: tensor<2x64xf8E4M3FN>)
// CHECK-NEXT: return %[[Q]]
func.func @requantize_e8m0(%q: tensor<2x64xf8E4M3FN>) -> tensor<2x64xf8E4M3FN> {
  %s = arith.constant dense<[[1.0, 0.5], [1024.0, 1.0e-30]]> : tensor<2x2xf8E8M0FNU>
  %x = fp8.dequantize %q, %s by <1x32> : tensor<2x64xf8E4M3FN>, tensor<2x2xf8E8M0FNU> -> tensor<2x64xf32>
  %r = fp8.quantize %x, %s by <1x32> : tensor<2x64xf32>, tensor<2x2xf8E8M0FNU> -> tensor<2x64xf8E4M3FN>
  return %r : tensor<2x64xf8E4M3FN>
}

// -----

// The E8M0 NaN code makes every element NaN: no fold.
// CHECK-LABEL: func @requantize_e8m0_nan
// CHECK: fp8.quantize
func.func @requantize_e8m0_nan(%q: tensor<2x32xf8E4M3FN>) -> tensor<2x32xf8E4M3FN> {
  %s = arith.constant dense<0xFF> : tensor<2x1xf8E8M0FNU>
  %x = fp8.dequantize %q, %s by <1x32> : tensor<2x32xf8E4M3FN>, tensor<2x1xf8E8M0FNU> -> tensor<2x32xf32>
  %r = fp8.quantize %x, %s by <1x32> : tensor<2x32xf32>, tensor<2x1xf8E8M0FNU> -> tensor<2x32xf8E4M3FN>
  return %r : tensor<2x32xf8E4M3FN>
}

// -----

// 2^127 decodes 448 to infinity in f32: no fold.
// CHECK-LABEL: func @requantize_e8m0_overflow
// CHECK: fp8.quantize
func.func @requantize_e8m0_overflow(%q: tensor<2x32xf8E4M3FN>) -> tensor<2x32xf8E4M3FN> {
  %s = arith.constant dense<1.70141183e+38> : tensor<2x1xf8E8M0FNU>
  %x = fp8.dequantize %q, %s by <1x32> : tensor<2x32xf8E4M3FN>, tensor<2x1xf8E8M0FNU> -> tensor<2x32xf32>
  %r = fp8.quantize %x, %s by <1x32> : tensor<2x32xf32>, tensor<2x1xf8E8M0FNU> -> tensor<2x32xf8E4M3FN>
  return %r : tensor<2x32xf8E4M3FN>
}

// -----

// E5M2 infinities come back as the largest finite value when saturating ...
// CHECK-LABEL: func @requantize_e5m2_saturate
// CHECK: fp8.quantize
func.func @requantize_e5m2_saturate(%q: tensor<4x8xf8E5M2>) -> tensor<4x8xf8E5M2> {
  %one = arith.constant dense<1.0> : tensor<1x1xf32>
  %x = fp8.dequantize %q, %one by <tensor> : tensor<4x8xf8E5M2>, tensor<1x1xf32> -> tensor<4x8xf32>
  %r = fp8.quantize %x, %one by <tensor> : tensor<4x8xf32>, tensor<1x1xf32> -> tensor<4x8xf8E5M2>
  return %r : tensor<4x8xf8E5M2>
}

// -----

// ... and stay infinite with `nonfinite`, where the codes come from a
// conversion, which writes the NaNs 0x7E and 0x7F (with the sign) alone,
// each re-encoded as itself ...
// CHECK-LABEL: func @requantize_e5m2_nonfinite
// CHECK: %[[Q:.*]] = fp8.convert
// CHECK-NOT: fp8.quantize
// CHECK: return %[[Q]]
func.func @requantize_e5m2_nonfinite(%w: tensor<4x8xf32>) -> tensor<4x8xf8E5M2> {
  %one = arith.constant dense<1.0> : tensor<1x1xf32>
  %q = fp8.convert %w overflow <nonfinite> : tensor<4x8xf32> to tensor<4x8xf8E5M2>
  %x = fp8.dequantize %q, %one by <tensor> : tensor<4x8xf8E5M2>, tensor<1x1xf32> -> tensor<4x8xf32>
  %r = fp8.quantize %x, %one by <tensor> overflow <nonfinite> : tensor<4x8xf32>, tensor<1x1xf32> -> tensor<4x8xf8E5M2>
  return %r : tensor<4x8xf8E5M2>
}

// -----

// ... but not codes from elsewhere: 0x7D (a NaN) comes back as 0x7F.
// CHECK-LABEL: func @requantize_e5m2_argument
// CHECK: fp8.quantize
func.func @requantize_e5m2_argument(%q: tensor<4x8xf8E5M2>) -> tensor<4x8xf8E5M2> {
  %one = arith.constant dense<1.0> : tensor<1x1xf32>
  %x = fp8.dequantize %q, %one by <tensor> : tensor<4x8xf8E5M2>, tensor<1x1xf32> -> tensor<4x8xf32>
  %r = fp8.quantize %x, %one by <tensor> overflow <nonfinite> : tensor<4x8xf32>, tensor<1x1xf32> -> tensor<4x8xf8E5M2>
  return %r : tensor<4x8xf8E5M2>
}

// -----

// Different granularities, a runtime scale, or another format: no fold.
// CHECK-LABEL: func @requantize_mismatch
// CHECK-COUNT-3: fp8.quantize
func.func @requantize_mismatch(%q: tensor<4x8xf8E4M3FN>, %s: tensor<1x1xf32>) -> (tensor<4x8xf8E4M3FN>, tensor<4x8xf8E4M3FN>, tensor<4x8xf8E5M2>) {
  %one = arith.constant dense<1.0> : tensor<1x1xf32>
  %ones = arith.constant dense<1.0> : tensor<4x1xf32>
  %x = fp8.dequantize %q, %one by <tensor> : tensor<4x8xf8E4M3FN>, tensor<1x1xf32> -> tensor<4x8xf32>
  %a = fp8.quantize %x, %ones by <1x*> : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf8E4M3FN>
  %b = fp8.quantize %x, %s by <tensor> : tensor<4x8xf32>, tensor<1x1xf32> -> tensor<4x8xf8E4M3FN>
  %c = fp8.quantize %x, %one by <tensor> : tensor<4x8xf32>, tensor<1x1xf32> -> tensor<4x8xf8E5M2>
  return %a, %b, %c : tensor<4x8xf8E4M3FN>, tensor<4x8xf8E4M3FN>, tensor<4x8xf8E5M2>
}

// -----

// A huge splat scale folds through its one value (no per-element work).
// CHECK-LABEL: func @requantize_huge_splat
// CHECK-SAME: (%[[Q:.*]]: tensor<100000000x1xf8E4M3FN>)
// CHECK-NEXT: return %[[Q]]
func.func @requantize_huge_splat(%q: tensor<100000000x1xf8E4M3FN>) -> tensor<100000000x1xf8E4M3FN> {
  %s = arith.constant dense<1.0> : tensor<100000000x1xf32>
  %x = fp8.dequantize %q, %s by <1x1> : tensor<100000000x1xf8E4M3FN>, tensor<100000000x1xf32> -> tensor<100000000x1xf32>
  %r = fp8.quantize %x, %s by <1x1> : tensor<100000000x1xf32>, tensor<100000000x1xf32> -> tensor<100000000x1xf8E4M3FN>
  return %r : tensor<100000000x1xf8E4M3FN>
}

// -----

// A zero-initialized optimizer state encodes as zeros with amax 0 and
// exponent 0, and zero codes decode to zeros.
// CHECK-LABEL: func @expand_zeros
// CHECK-DAG: %[[Q:.*]] = arith.constant dense<0.000000e+00> : tensor<4x256xf8E4M3FN>
// CHECK-DAG: %[[A:.*]] = arith.constant dense<0.000000e+00> : tensor<4x2xf32>
// CHECK-DAG: %[[J:.*]] = arith.constant dense<0> : tensor<4x2xi8>
// CHECK-DAG: %[[Y:.*]] = arith.constant dense<-0.000000e+00> : tensor<4x256xbf16>
// CHECK-NOT: fp8.expand
// CHECK: return %[[Q]], %[[A]], %[[J]], %[[Y]]
func.func @expand_zeros() -> (tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<4x2xi8>, tensor<4x256xbf16>) {
  %x = arith.constant dense<0.0> : tensor<4x256xf32>
  %q, %a, %j = fp8.expand_quantize %x by <1x128>
      : tensor<4x256xf32> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<4x2xi8>
  %nz = arith.constant dense<-0.0> : tensor<4x256xf8E4M3FN>
  %m = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [0.0, 5.0], [6.0, 7.0]]> : tensor<4x2xf32>
  %y = fp8.expand_dequantize %nz, %m, %j by <1x128>
      : tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<4x2xi8> -> tensor<4x256xbf16>
  return %q, %a, %j, %y : tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<4x2xi8>, tensor<4x256xbf16>
}

// -----

// Nonzero data, or an infinite amax (0 * inf is NaN), does not fold.
// CHECK-LABEL: func @expand_no_fold
// CHECK: fp8.expand_quantize
// CHECK: fp8.expand_dequantize
func.func @expand_no_fold(%j: tensor<1x2xi8>) -> (tensor<1x256xf8E4M3FN>, tensor<1x256xf32>) {
  %x = arith.constant dense<1.0> : tensor<1x256xf32>
  %q, %a, %j2 = fp8.expand_quantize %x by <1x128>
      : tensor<1x256xf32> -> tensor<1x256xf8E4M3FN>, tensor<1x2xf32>, tensor<1x2xi8>
  %z = arith.constant dense<0.0> : tensor<1x256xf8E4M3FN>
  %inf = arith.constant dense<[[1.0, 0x7F800000]]> : tensor<1x2xf32>
  %y = fp8.expand_dequantize %z, %inf, %j by <1x128>
      : tensor<1x256xf8E4M3FN>, tensor<1x2xf32>, tensor<1x2xi8> -> tensor<1x256xf32>
  return %q, %y : tensor<1x256xf8E4M3FN>, tensor<1x256xf32>
}
