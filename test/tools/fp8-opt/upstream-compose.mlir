// fp8 ops compose with upstream dialects and passes in one fp8-opt run.
// RUN: fp8-opt %s -linalg-generalize-named-ops -fp8-fuse-dynamic-quantize -cse | FileCheck %s

// CHECK-LABEL: func @compose
// CHECK: linalg.generic
// CHECK: fp8.dynamic_quantize
func.func @compose(%x: tensor<16x32xf32>, %w: tensor<32x8xf32>, %init: tensor<16x8xf32>)
    -> (tensor<16x8xf32>, tensor<16x32xf8E4M3FN>) {
  %y = linalg.matmul ins(%x, %w : tensor<16x32xf32>, tensor<32x8xf32>) outs(%init : tensor<16x8xf32>) -> tensor<16x8xf32>
  %a = fp8.amax %x by <tensor> : tensor<16x32xf32> -> tensor<1x1xf32>
  %s = fp8.compute_scale %a rule <ratio> for <e4m3> : tensor<1x1xf32> -> tensor<1x1xf32>
  %q = fp8.quantize %x, %s by <tensor> : tensor<16x32xf32>, tensor<1x1xf32> -> tensor<16x32xf8E4M3FN>
  return %y, %q : tensor<16x8xf32>, tensor<16x32xf8E4M3FN>
}
