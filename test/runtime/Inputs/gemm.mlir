// A per-tensor scaled GEMM for the runtime tests.
func.func @gemm(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>,
                %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs
      : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32>
      -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}
