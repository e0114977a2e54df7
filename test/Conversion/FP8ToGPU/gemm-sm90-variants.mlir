// Every sm_90a GEMM variant assembles with ptxas, without spills: operand
// formats, result types, promotion intervals, bias, narrow tiles, row-wise,
// DeepSeek (1x128 with 128x128 or 1x128), 1x32 (E8M0 and f32) block scales,
// and ragged extents.
// REQUIRES: ptxas
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptxas.log
// RUN: not grep -E "[1-9][0-9]* bytes spill" %t/fp8_kernels.ptxas.log

// One kernel per configuration (@deepseek and @ragged share one); FP8
// results with out_scale and the results' amax.
// CHECK-COUNT-23: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: Compiling entry function

func.func @tensor_e4m3_e4m3(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @tensor_e4m3_e5m2(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E5M2>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E5M2>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @tensor_e5m2_e4m3(%a: tensor<256x512xf8E5M2>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<256x512xf8E5M2>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @tensor_e5m2_e5m2(%a: tensor<256x512xf8E5M2>, %b: tensor<384x512xf8E5M2>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<256x512xf8E5M2>, tensor<384x512xf8E5M2>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @tensor_out_f32(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xf32> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xf32>
  return %c : tensor<256x384xf32>
}

func.func @tensor_out_f16(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xf16>
  return %c : tensor<256x384xf16>
}

func.func @tensor_p0(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs promote_interval(0) : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @tensor_p1(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs promote_interval(1) : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @tensor_p8(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs promote_interval(8) : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @tensor_bias_bf16(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>, %bias: tensor<384xbf16>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) bias(%bias : tensor<384xbf16>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @tensor_f32_bias_f32(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>, %bias: tensor<384xf32>) -> tensor<256x384xf32> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) bias(%bias : tensor<384xf32>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xf32>
  return %c : tensor<256x384xf32>
}

func.func @tensor_narrow_n(%a: tensor<256x512xf8E4M3FN>, %b: tensor<48x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x48xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<48x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x48xbf16>
  return %c : tensor<256x48xbf16>
}

func.func @rowwise(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x1xf32>, %sb: tensor<384x1xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x*>, <1x*>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x1xf32>, tensor<384x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @rowwise_bias_e5m2(%a: tensor<256x512xf8E5M2>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x1xf32>, %sb: tensor<384x1xf32>, %bias: tensor<384xbf16>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x*>, <1x*>) bias(%bias : tensor<384xbf16>) transpose_rhs : tensor<256x512xf8E5M2>, tensor<384x512xf8E4M3FN>, tensor<256x1xf32>, tensor<384x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @deepseek(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x4xf32>, %sb: tensor<3x4xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x4xf32>, tensor<3x4xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @deepseek_f32(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x4xf32>, %sb: tensor<3x4xf32>) -> tensor<256x384xf32> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x4xf32>, tensor<3x4xf32> -> tensor<256x384xf32>
  return %c : tensor<256x384xf32>
}

func.func @blocks_1x128_both(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x4xf32>, %sb: tensor<384x4xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <1x128>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x4xf32>, tensor<384x4xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @mx_e8m0(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x16xf8E8M0FNU>, %sb: tensor<384x16xf8E8M0FNU>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>, tensor<384x16xf8E8M0FNU> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @mx_e8m0_e5m2(%a: tensor<256x512xf8E5M2>, %b: tensor<384x512xf8E5M2>, %sa: tensor<256x16xf8E8M0FNU>, %sb: tensor<384x16xf8E8M0FNU>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) transpose_rhs : tensor<256x512xf8E5M2>, tensor<384x512xf8E5M2>, tensor<256x16xf8E8M0FNU>, tensor<384x16xf8E8M0FNU> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @blocks_1x32_f32(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x16xf32>, %sb: tensor<384x16xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x16xf32>, tensor<384x16xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @ragged(%a: tensor<200x320xf8E4M3FN>, %b: tensor<136x320xf8E4M3FN>, %sa: tensor<200x3xf32>, %sb: tensor<2x3xf32>) -> tensor<200x136xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs : tensor<200x320xf8E4M3FN>, tensor<136x320xf8E4M3FN>, tensor<200x3xf32>, tensor<2x3xf32> -> tensor<200x136xbf16>
  return %c : tensor<200x136xbf16>
}

func.func @fp8_out(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %s: tensor<1x1xf32>, %os: tensor<1x1xf32>) -> (tensor<256x384xf8E4M3FN>, tensor<1x1xf32>) {
  %c, %amax = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) out_scale(%os : tensor<1x1xf32>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xf8E4M3FN>, amax tensor<1x1xf32>
  return %c, %amax : tensor<256x384xf8E4M3FN>, tensor<1x1xf32>
}
func.func @bf16_amax(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %s: tensor<1x1xf32>, %bias: tensor<384xbf16>) -> (tensor<256x384xbf16>, tensor<1x1xf32>) {
  %c, %amax = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) bias(%bias : tensor<384xbf16>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>, amax tensor<1x1xf32>
  return %c, %amax : tensor<256x384xbf16>, tensor<1x1xf32>
}
func.func @e5m2_out_deepseek(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x4xf32>, %sb: tensor<3x4xf32>, %os: tensor<1x1xf32>) -> (tensor<256x384xf8E5M2>, tensor<1x1xf32>) {
  %c, %amax = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) out_scale(%os : tensor<1x1xf32>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x4xf32>, tensor<3x4xf32> -> tensor<256x384xf8E5M2>, amax tensor<1x1xf32>
  return %c, %amax : tensor<256x384xf8E5M2>, tensor<1x1xf32>
}
