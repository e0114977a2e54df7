// RUN: fp8-opt %s -split-input-file --fp8-legalize-layout=chip=sm_90a -verify-diagnostics
// RUN: not fp8-opt %s --fp8-legalize-layout=chip=sm_89 2>&1 | FileCheck %s --check-prefix=CHIP

// CHIP: for the --chip option: unsupported chip 'sm_89': fp8-mlir targets sm_90a (Hopper, wgmma) and sm_100a (Blackwell, tcgen05.mma); sm_89 has no FP8 tensor-core GEMM instructions that fp8-mlir uses (wgmma needs sm_90a)

func.func @fp4_on_hopper(%qa: tensor<16x64xf4E2M1FN>, %sa: tensor<16x4xf8E4M3FN>, %qb: tensor<32x64xf4E2M1FN>, %sb: tensor<2x4xf8E4M3FN>, %g: tensor<1x1xf32>) -> tensor<16x32xf32> {
  // expected-error @below {{operand A is 'f4E2M1FN', which sm_90a (wgmma) does not multiply; FP4 needs sm_100a (tcgen05.mma kind::mxf4nvf4), or quantize to e4m3 with a recipe such as mxfp8}}
  %c = fp8.scaled_matmul %qa, %qb scales(%sa, %sb) by(<1x16>, <16x16>) lhs_global(%g : tensor<1x1xf32>) rhs_global(%g : tensor<1x1xf32>) transpose_rhs : tensor<16x64xf4E2M1FN>, tensor<32x64xf4E2M1FN>, tensor<16x4xf8E4M3FN>, tensor<2x4xf8E4M3FN> -> tensor<16x32xf32>
  return %c : tensor<16x32xf32>
}

// -----

func.func @k_not_16_bytes(%a: tensor<64x100xf8E4M3FN>, %b: tensor<32x100xf8E4M3FN>, %s: tensor<1x1xf32>) -> tensor<64x32xf32> {
  // expected-error @below {{K = 100 gives rows of 100 bytes of 'f8E4M3FN'; TMA reads rows that are multiples of 16 bytes, so K must be a multiple of 16: pad K to 112 with zeros in both operands}}
  %c = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs : tensor<64x100xf8E4M3FN>, tensor<32x100xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

func.func @n_not_16_bytes(%a: tensor<64x128xf8E4M3FN>, %b: tensor<10x128xf8E4M3FN>, %s: tensor<1x1xf32>) -> tensor<64x10xbf16> {
  // expected-error @below {{N = 10 gives result rows of 20 bytes ('bf16'); TMA stores rows that are multiples of 16 bytes: pad N to 16}}
  %c = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs : tensor<64x128xf8E4M3FN>, tensor<10x128xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x10xbf16>
  return %c : tensor<64x10xbf16>
}

// -----

func.func @scale_blocks_of_16(%a: tensor<64x128xf8E4M3FN>, %sa: tensor<64x8xf32>, %b: tensor<32x128xf8E4M3FN>, %s: tensor<1x1xf32>) -> tensor<64x32xf32> {
  // expected-error @below {{operand A has a new scale every 16 elements of K (granularity <1x16>); sm_90a applies 'f32' scales to whole blocks of 32 elements of K, so blocks along K must be multiples of 32 or span K}}
  %c = fp8.scaled_matmul %a, %b scales(%sa, %s) by(<1x16>, <tensor>) transpose_rhs : tensor<64x128xf8E4M3FN>, tensor<32x128xf8E4M3FN>, tensor<64x8xf32>, tensor<1x1xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

func.func @dynamic_k(%a: tensor<64x?xf8E4M3FN>, %b: tensor<32x?xf8E4M3FN>, %s: tensor<1x1xf32>) -> tensor<64x32xf32> {
  // expected-warning @below {{K is dynamic: the 16-byte row alignment TMA needs (K a multiple of 16) must be checked at launch}}
  %c = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs : tensor<64x?xf8E4M3FN>, tensor<32x?xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

