// A frozen weight: after fp8-autocast, fp8-quantize-constants leaves only the
// activation's quantization to run time; the weight arrives as FP8 codes and
// E8M0 scales.
// RUN: fp8-opt %s --fp8-autocast=recipe=mxfp8 --fp8-quantize-constants | FileCheck %s

// CHECK-LABEL: func.func @frozen
// CHECK-DAG: %[[QW:.*]] = arith.constant dense<{{.*}}> : tensor<64x16xf8E4M3FN>
// CHECK-DAG: %[[SW:.*]] = arith.constant dense<{{.*}}> : tensor<2x16xf8E8M0FNU>
// CHECK: %[[QX:.*]], %[[SX:.*]] = fp8.dynamic_quantize %arg0 by <1x32> rule <e8m0_rceil>
// CHECK-NOT: fp8.dynamic_quantize
// CHECK: fp8.scaled_matmul %[[QX]], %[[QW]] scales(%[[SX]], %[[SW]]) by(<1x32>, <32x1>)
func.func @frozen(%x: tensor<8x64xf32>) -> tensor<8x16xf32> {
  %w = arith.constant dense<0.125> : tensor<64x16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x64xf32>, tensor<64x16xf32>) outs(%init : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// On Hopper the [K, N] weight needs a K-major copy; it folds too.
// RUN: fp8-opt %s --fp8-autocast=recipe=mxfp8 --fp8-legalize-layout=chip=sm_90a --fp8-quantize-constants | FileCheck %s --check-prefix=HOPPER
// HOPPER-LABEL: func.func @frozen
// HOPPER-DAG: %[[QW:.*]] = arith.constant dense<{{.*}}> : tensor<16x64xf8E4M3FN>
// HOPPER-DAG: %[[SW:.*]] = arith.constant dense<{{.*}}> : tensor<16x2xf8E8M0FNU>
// HOPPER-NOT: linalg.transpose
// HOPPER: fp8.scaled_matmul %{{.*}}, %[[QW]] scales(%{{.*}}, %[[SW]]) by(<1x32>, <1x32>) transpose_rhs
