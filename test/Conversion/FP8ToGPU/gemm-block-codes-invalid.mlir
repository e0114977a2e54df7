// Results quantized by blocks that no GEMM kernel writes are diagnosed at the
// op, on both chips: blocks must be one row of 32 or 128 columns.
// RUN: fp8-opt %s -split-input-file -verify-diagnostics --convert-fp8-to-gpu=chip=sm_90a -o /dev/null
// RUN: fp8-opt %s -split-input-file -verify-diagnostics --convert-fp8-to-gpu=chip=sm_100a -o /dev/null

func.func @two_rows(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %s: tensor<1x1xf32>) -> (tensor<256x384xf8E4M3FN>, tensor<128x12xf32>) {
  // expected-error @below {{fp8 GPU lowering: results are quantized by blocks of one row (1x32, 1x128), not <2x32>}}
  %q, %qs = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) quantize by <2x32> rule <pow2> transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xf8E4M3FN>, scale tensor<128x12xf32> epilogue {
  ^bb0(%c: f32):
    fp8.yield %c : f32
  }
  return %q, %qs : tensor<256x384xf8E4M3FN>, tensor<128x12xf32>
}

// -----

func.func @width_64(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %s: tensor<1x1xf32>) -> (tensor<256x384xf8E4M3FN>, tensor<256x6xf32>) {
  // expected-error @below {{fp8 GPU lowering: results are quantized by blocks of 32 or 128 columns}}
  %q, %qs = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) quantize by <1x64> rule <pow2> transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xf8E4M3FN>, scale tensor<256x6xf32> epilogue {
  ^bb0(%c: f32):
    fp8.yield %c : f32
  }
  return %q, %qs : tensor<256x384xf8E4M3FN>, tensor<256x6xf32>
}
