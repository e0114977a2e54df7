// K = 100 (rows of 100 FP8 bytes; TMA reads rows 16-byte multiples apart)
// through the whole pipeline on both chips: B stored [K, N] is read through
// a K-major copy whose layout kernel pads its rows to 112 bytes, as A's
// quantization pads A's; a K-major copy of constant codes is a constant,
// stored unpadded, and refused.
// RUN: fp8-opt %s -split-input-file --fp8-gpu-pipeline="chip=sm_90a ptxas=none" -verify-diagnostics -o /dev/null
// RUN: fp8-opt %s -split-input-file --fp8-gpu-pipeline="chip=sm_100a ptxas=none" -verify-diagnostics -o /dev/null

func.func @copied(%a: tensor<64x100xbf16>, %b: tensor<100x32xf8E4M3FN>, %s: tensor<1x1xf32>) -> tensor<64x32xf32> {
  %qa, %sa = fp8.dynamic_quantize %a by <tensor> rule <ratio> : tensor<64x100xbf16> -> tensor<64x100xf8E4M3FN>, tensor<1x1xf32>
  %c = fp8.scaled_matmul %qa, %b scales(%sa, %s) by(<tensor>, <tensor>) : tensor<64x100xf8E4M3FN>, tensor<100x32xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

func.func @constant(%a: tensor<64x100xbf16>) -> tensor<64x32xf32> {
  %b = arith.constant dense<1.0> : tensor<100x32xbf16>
  %qa, %sa = fp8.dynamic_quantize %a by <tensor> rule <ratio> : tensor<64x100xbf16> -> tensor<64x100xf8E4M3FN>, tensor<1x1xf32>
  %qb, %sb = fp8.dynamic_quantize %b by <tensor> rule <ratio> : tensor<100x32xbf16> -> tensor<100x32xf8E4M3FN>, tensor<1x1xf32>
  // expected-error @below {{K = 100 gives rows of 100 bytes of 'f8E4M3FN'; TMA reads rows that are multiples of 16 bytes, so K must be a multiple of 16: pad K to 112}}
  %c = fp8.scaled_matmul %qa, %qb scales(%sa, %sb) by(<tensor>, <tensor>) : tensor<64x100xf8E4M3FN>, tensor<100x32xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
