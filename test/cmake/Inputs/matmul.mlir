// A bf16 GEMM for the installed tools: fp8-autocast turns it into scaled FP8.
func.func @matmul(%a: tensor<128x256xbf16>, %b: tensor<256x128xbf16>) -> tensor<128x128xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<128x128xbf16>
  %z = linalg.fill ins(%zero : bf16) outs(%e : tensor<128x128xbf16>) -> tensor<128x128xbf16>
  %c = linalg.matmul ins(%a, %b : tensor<128x256xbf16>, tensor<256x128xbf16>)
                     outs(%z : tensor<128x128xbf16>) -> tensor<128x128xbf16>
  return %c : tensor<128x128xbf16>
}
