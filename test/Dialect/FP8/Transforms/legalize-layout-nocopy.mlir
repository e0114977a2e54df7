// With allow-copies=false a wrong majorness is an error that says what to do.
// RUN: fp8-opt %s --fp8-legalize-layout="chip=sm_90a allow-copies=false" -verify-diagnostics
// RUN: not fp8-opt %s --fp8-legalize-layout="chip=sm_100a allow-copies=false" 2>&1 | FileCheck %s --check-prefix=BLACKWELL

// The sm_100a GEMM reads K-major operands too (its tensor cores could read
// 8-bit operands MN-major, but the kernel does not use the transpose bits),
// and copies are not allowed.
// BLACKWELL: error: operand B is stored [K = 128, N = 40] (N-major), but the sm_100a GEMM reads f8E4M3FN operands K-major only (tcgen05.mma could read them MN-major through the instruction descriptor's transpose bits, which are not generated); store it K-major, or let fp8-legalize-layout insert a transposed copy (allow-copies=true)
func.func @mn_major_unaligned(%a: tensor<64x128xf8E4M3FN>, %b: tensor<128x40xf8E4M3FN>, %s: tensor<1x1xf32>) -> tensor<64x40xf32> {
  // expected-error @below {{operand B is stored [K = 128, N = 40] (N-major), but sm_90a wgmma reads f8E4M3FN operands K-major only; store it K-major, or let fp8-legalize-layout insert a transposed copy (allow-copies=true)}}
  %c = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) : tensor<64x128xf8E4M3FN>, tensor<128x40xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x40xf32>
  return %c : tensor<64x40xf32>
}
