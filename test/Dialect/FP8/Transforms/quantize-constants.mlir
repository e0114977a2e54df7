// RUN: fp8-opt %s -split-input-file --fp8-quantize-constants | FileCheck %s
// RUN: fp8-opt %s -split-input-file --fp8-quantize-constants=max-elements=3 | FileCheck %s --check-prefix=LIMIT

// Current scaling of [1, 2, -448, 0]: amax 448, scale 1, codes 0x38, 0x40,
// 0xFE, 0x00.
// CHECK-LABEL: func.func @tensor
// CHECK-DAG: %[[Q:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, -4.480000e+02, 0.000000e+00]> : tensor<4xf8E4M3FN>
// CHECK-DAG: %[[S:.*]] = arith.constant dense<1.000000e+00> : tensor<1xf32>
// CHECK-NOT: fp8.
// CHECK: return %[[Q]], %[[S]]
// LIMIT-LABEL: func.func @tensor
// LIMIT: fp8.dynamic_quantize
func.func @tensor() -> (tensor<4xf8E4M3FN>, tensor<1xf32>) {
  %w = arith.constant dense<[1.0, 2.0, -448.0, 0.0]> : tensor<4xf32>
  %q, %s = fp8.dynamic_quantize %w by <tensor> rule <ratio> : tensor<4xf32> -> tensor<4xf8E4M3FN>, tensor<1xf32>
  return %q, %s : tensor<4xf8E4M3FN>, tensor<1xf32>
}

// -----

// MXFP8 row and column copies of a bf16 weight, the column copy stored
// transposed: 2x2 blocks here (1x2 and 2x1), E8M0 scales.
// [[1, 3], [0.5, 8]]: row amaxes 3 and 8, rceil(amax / 448) = 2^-7 and 2^-5;
// column amaxes 1 and 8: 2^-8 and 2^-5.
// CHECK-LABEL: func.func @pair
// CHECK-DAG: arith.constant dense<{{\[\[}}1.280000e+02, 3.840000e+02], [1.600000e+01, 2.560000e+02]]> : tensor<2x2xf8E4M3FN>
// CHECK-DAG: arith.constant dense<{{\[\[}}7.812500e-03], [3.125000e-02]]> : tensor<2x1xf8E8M0FNU>
// CHECK-DAG: arith.constant dense<{{\[\[}}2.560000e+02, 1.280000e+02], [9.600000e+01, 2.560000e+02]]> : tensor<2x2xf8E4M3FN>
// CHECK-DAG: arith.constant dense<{{\[\[}}3.906250e-03], [3.125000e-02]]> : tensor<2x1xf8E8M0FNU>
// CHECK-NOT: fp8.dynamic_quantize
func.func @pair() -> (tensor<2x2xf8E4M3FN>, tensor<2x1xf8E8M0FNU>, tensor<2x2xf8E4M3FN>, tensor<2x1xf8E8M0FNU>) {
  %w = arith.constant dense<[[1.0, 3.0], [0.5, 8.0]]> : tensor<2x2xbf16>
  %q, %s, %qc, %sc = fp8.dynamic_quantize %w by <1x2> colwise <2x1> transposed rule <e8m0_rceil>
      : tensor<2x2xbf16> -> tensor<2x2xf8E4M3FN>, tensor<2x1xf8E8M0FNU> colwise tensor<2x2xf8E4M3FN>, tensor<2x1xf8E8M0FNU>
  return %q, %s, %qc, %sc : tensor<2x2xf8E4M3FN>, tensor<2x1xf8E8M0FNU>, tensor<2x2xf8E4M3FN>, tensor<2x1xf8E8M0FNU>
}

// -----

// The three-op form folds op by op; stochastic rounding and non-constant
// inputs stay.
// CHECK-LABEL: func.func @chain
// CHECK-NOT: fp8.amax
// CHECK-NOT: fp8.compute_scale
// CHECK: arith.constant dense<8.192000e+03> : tensor<1xf32>
// CHECK: arith.constant dense<[8.192000e+03, -5.734400e+04, 2.048000e+03, 2.457600e+04]> : tensor<4xf8E5M2>
// CHECK: fp8.quantize %arg0
// CHECK: fp8.quantize {{.*}} rounding <stochastic>
// CHECK: return
func.func @chain(%x: tensor<4xf32>, %r: tensor<4xi32>) -> (tensor<4xf8E5M2>, tensor<4xf8E5M2>, tensor<4xf8E5M2>) {
  %w = arith.constant dense<[1.0, -7.0, 0.25, 3.0]> : tensor<4xf32>
  %a = fp8.amax %w by <tensor> : tensor<4xf32> -> tensor<1xf32>
  %s, %si = fp8.compute_scale %a rule <pow2> for <e5m2> : tensor<1xf32> -> tensor<1xf32>, tensor<1xf32>
  %q = fp8.quantize %w, %s by <tensor> : tensor<4xf32>, tensor<1xf32> -> tensor<4xf8E5M2>
  %qx = fp8.quantize %x, %s by <tensor> : tensor<4xf32>, tensor<1xf32> -> tensor<4xf8E5M2>
  %qs = fp8.quantize %w, %s by <tensor> rounding <stochastic> rbits(%r : tensor<4xi32>) : tensor<4xf32>, tensor<1xf32> -> tensor<4xf8E5M2>
  return %q, %qx, %qs : tensor<4xf8E5M2>, tensor<4xf8E5M2>, tensor<4xf8E5M2>
}

// -----

// Constants past the element budget stay, and their elements are not read:
// a splat of 2^36 elements would take 256 GiB expanded. (The amax of a
// splat is the op's own fold, which reads one element.)
// CHECK-LABEL: func.func @huge_splat
// CHECK: arith.constant dense<1.250000e-01> : tensor<1x1xf32>
// CHECK: fp8.dynamic_quantize
// LIMIT-LABEL: func.func @huge_splat
// LIMIT: fp8.dynamic_quantize
func.func @huge_splat() -> (tensor<4294967296x16xf8E4M3FN>, tensor<134217728x16xf8E8M0FNU>, tensor<1x1xf32>) {
  %w = arith.constant dense<0.125> : tensor<4294967296x16xf32>
  %a = fp8.amax %w by <tensor> : tensor<4294967296x16xf32> -> tensor<1x1xf32>
  %q, %s = fp8.dynamic_quantize %w by <32x1> rule <e8m0_rceil> : tensor<4294967296x16xf32> -> tensor<4294967296x16xf8E4M3FN>, tensor<134217728x16xf8E8M0FNU>
  return %q, %s, %a : tensor<4294967296x16xf8E4M3FN>, tensor<134217728x16xf8E8M0FNU>, tensor<1x1xf32>
}

// -----

// A NaN product takes the element's NaN (numerics.md section 2): under the
// E8M0 NaN scale 0xFF, -2 and 2 give the NaN of their sign and the NaN
// elements keep theirs (E5M2: 0x7E | the top payload bits), as at run time
// (Execution/Numerics/nan-products.mlir).
// CHECK-LABEL: func.func @nan_scale
// CHECK-DAG: arith.constant dense<{{\[\[}}0xFF, 0x7F, 0x7F, 0xFF]]> : tensor<1x4xf8E4M3FN>
// CHECK-DAG: arith.constant dense<{{\[\[}}0xFE, 0x7E, 0x7F, 0xFE]]> : tensor<1x4xf8E5M2>
// CHECK-NOT: fp8.quantize
func.func @nan_scale() -> (tensor<1x4xf8E4M3FN>, tensor<1x4xf8E5M2>) {
  %x = arith.constant dense<[[-2.0, 2.0, 0x7FE00000, 0xFFC00000]]> : tensor<1x4xf32>
  %s = arith.constant dense<0xFF> : tensor<1x1xf8E8M0FNU>
  %a = fp8.quantize %x, %s by <1x4> : tensor<1x4xf32>, tensor<1x1xf8E8M0FNU> -> tensor<1x4xf8E4M3FN>
  %b = fp8.quantize %x, %s by <1x4> : tensor<1x4xf32>, tensor<1x1xf8E8M0FNU> -> tensor<1x4xf8E5M2>
  return %a, %b : tensor<1x4xf8E4M3FN>, tensor<1x4xf8E5M2>
}
