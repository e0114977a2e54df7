// The MLP of mlp.mlir with per-tensor current scaling (recipe tensor_current):
// every matmul operand is measured, scaled into E4M3 and multiplied on FP8
// operands with f32 accumulation; the decode scales travel with the data.
// fp8-autocast will produce this form from mlp.mlir; it is written out by hand
// here so that the dialect can be read, verified and transformed today:
//
//   fp8-opt examples/mlp/mlp_fp8.mlir --fp8-fuse-dynamic-quantize

#relu_map = affine_map<(d0, d1) -> (d0, d1)>

func.func @mlp(%x: tensor<4x64xf32>, %w1: tensor<64x128xf32>, %w2: tensor<128x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32

  // Layer 1: quantize x and W1 with scales from their current amax.
  %ax = fp8.amax %x by <tensor> : tensor<4x64xf32> -> tensor<1x1xf32>
  %sx, %sx_inv = fp8.compute_scale %ax rule <ratio> for <e4m3>
      : tensor<1x1xf32> -> tensor<1x1xf32>, tensor<1x1xf32>
  %qx = fp8.quantize %x, %sx by <tensor>
      : tensor<4x64xf32>, tensor<1x1xf32> -> tensor<4x64xf8E4M3FN>
  %aw1 = fp8.amax %w1 by <tensor> : tensor<64x128xf32> -> tensor<1x1xf32>
  %sw1, %sw1_inv = fp8.compute_scale %aw1 rule <ratio> for <e4m3>
      : tensor<1x1xf32> -> tensor<1x1xf32>, tensor<1x1xf32>
  %qw1 = fp8.quantize %w1, %sw1 by <tensor>
      : tensor<64x128xf32>, tensor<1x1xf32> -> tensor<64x128xf8E4M3FN>
  %h = fp8.scaled_matmul %qx, %qw1 scales(%sx_inv, %sw1_inv) by(<tensor>, <tensor>)
      {recipe = #fp8.recipe<tensor_current>, role = #fp8.gemm_role<fprop>}
      : tensor<4x64xf8E4M3FN>, tensor<64x128xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32>
      -> tensor<4x128xf32>

  %h0 = tensor.empty() : tensor<4x128xf32>
  %r = linalg.generic {indexing_maps = [#relu_map, #relu_map], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<4x128xf32>) outs(%h0 : tensor<4x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x128xf32>

  // Layer 2.
  %ar = fp8.amax %r by <tensor> : tensor<4x128xf32> -> tensor<1x1xf32>
  %sr, %sr_inv = fp8.compute_scale %ar rule <ratio> for <e4m3>
      : tensor<1x1xf32> -> tensor<1x1xf32>, tensor<1x1xf32>
  %qr = fp8.quantize %r, %sr by <tensor>
      : tensor<4x128xf32>, tensor<1x1xf32> -> tensor<4x128xf8E4M3FN>
  %aw2 = fp8.amax %w2 by <tensor> : tensor<128x8xf32> -> tensor<1x1xf32>
  %sw2, %sw2_inv = fp8.compute_scale %aw2 rule <ratio> for <e4m3>
      : tensor<1x1xf32> -> tensor<1x1xf32>, tensor<1x1xf32>
  %qw2 = fp8.quantize %w2, %sw2 by <tensor>
      : tensor<128x8xf32>, tensor<1x1xf32> -> tensor<128x8xf8E4M3FN>
  %y = fp8.scaled_matmul %qr, %qw2 scales(%sr_inv, %sw2_inv) by(<tensor>, <tensor>)
      {recipe = #fp8.recipe<tensor_current>, role = #fp8.gemm_role<fprop>}
      : tensor<4x128xf8E4M3FN>, tensor<128x8xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32>
      -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
