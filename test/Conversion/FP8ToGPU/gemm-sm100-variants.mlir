// Every sm_100a GEMM variant assembles with ptxas, without spills: operand
// formats (all e4m3/e5m2 pairs for kind::f8f6f4 and kind::mxf8f6f4, e2m1 for
// kind::mxf4nvf4), result types, bias, narrow tiles, row-wise scales, MXFP8
// blocks (B 1x32 or 32x32), NVFP4 blocks (B 16x16 or 1x16), ragged extents,
// FP8 results with out_scale and the results' amax, and the scale staging
// kernel.
// REQUIRES: ptxas
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_100a artifacts=%t" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptxas.log
// RUN: not grep -E "[1-9][0-9]* bytes spill" %t/fp8_kernels.ptxas.log
// RUN: FileCheck %s --check-prefix=FP8OUT --input-file=%t/fp8_kernels.ptx

// One kernel per configuration, plus fp8_scale_layout_sm100a.
// CHECK-COUNT-21: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
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

func.func @mx_e4m3_e4m3(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x16xf8E8M0FNU>, %sb: tensor<384x16xf8E8M0FNU>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>, tensor<384x16xf8E8M0FNU> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @mx_e4m3_e5m2(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E5M2>, %sa: tensor<256x16xf8E8M0FNU>, %sb: tensor<384x16xf8E8M0FNU>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E5M2>, tensor<256x16xf8E8M0FNU>, tensor<384x16xf8E8M0FNU> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @mx_e5m2_e4m3(%a: tensor<256x512xf8E5M2>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x16xf8E8M0FNU>, %sb: tensor<384x16xf8E8M0FNU>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) transpose_rhs : tensor<256x512xf8E5M2>, tensor<384x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>, tensor<384x16xf8E8M0FNU> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @mx_e5m2_e5m2(%a: tensor<256x512xf8E5M2>, %b: tensor<384x512xf8E5M2>, %sa: tensor<256x16xf8E8M0FNU>, %sb: tensor<384x16xf8E8M0FNU>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) transpose_rhs : tensor<256x512xf8E5M2>, tensor<384x512xf8E5M2>, tensor<256x16xf8E8M0FNU>, tensor<384x16xf8E8M0FNU> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @mx_f32_bias(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x16xf8E8M0FNU>, %sb: tensor<384x16xf8E8M0FNU>, %bias: tensor<384xf32>) -> tensor<256x384xf32> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) bias(%bias : tensor<384xf32>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>, tensor<384x16xf8E8M0FNU> -> tensor<256x384xf32>
  return %c : tensor<256x384xf32>
}

func.func @mx_square_b(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x16xf8E8M0FNU>, %sb: tensor<12x16xf8E8M0FNU>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <32x32>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>, tensor<12x16xf8E8M0FNU> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @mx_ragged(%a: tensor<200x320xf8E4M3FN>, %b: tensor<136x320xf8E4M3FN>, %sa: tensor<200x10xf8E8M0FNU>, %sb: tensor<136x10xf8E8M0FNU>) -> tensor<200x136xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) transpose_rhs : tensor<200x320xf8E4M3FN>, tensor<136x320xf8E4M3FN>, tensor<200x10xf8E8M0FNU>, tensor<136x10xf8E8M0FNU> -> tensor<200x136xbf16>
  return %c : tensor<200x136xbf16>
}

func.func @tensor_ragged_f16(%a: tensor<200x320xf8E4M3FN>, %b: tensor<136x320xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<200x136xf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<200x320xf8E4M3FN>, tensor<136x320xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<200x136xf16>
  return %c : tensor<200x136xf16>
}

func.func @nvfp4(%qa: tensor<256x512xf4E2M1FN>, %sa: tensor<256x32xf8E4M3FN>, %qb: tensor<384x512xf4E2M1FN>, %sb: tensor<24x32xf8E4M3FN>, %ga: tensor<1x1xf32>, %gb: tensor<1x1xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %qa, %qb scales(%sa, %sb) by(<1x16>, <16x16>) lhs_global(%ga : tensor<1x1xf32>) rhs_global(%gb : tensor<1x1xf32>) transpose_rhs : tensor<256x512xf4E2M1FN>, tensor<384x512xf4E2M1FN>, tensor<256x32xf8E4M3FN>, tensor<24x32xf8E4M3FN> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @nvfp4_rowwise_blocks_bias(%qa: tensor<200x320xf4E2M1FN>, %sa: tensor<200x20xf8E4M3FN>, %qb: tensor<136x320xf4E2M1FN>, %sb: tensor<136x20xf8E4M3FN>, %ga: tensor<1x1xf32>, %gb: tensor<1x1xf32>, %bias: tensor<136xf32>) -> tensor<200x136xf32> {
  %c = fp8.scaled_matmul %qa, %qb scales(%sa, %sb) by(<1x16>, <1x16>) lhs_global(%ga : tensor<1x1xf32>) rhs_global(%gb : tensor<1x1xf32>) bias(%bias : tensor<136xf32>) transpose_rhs : tensor<200x320xf4E2M1FN>, tensor<136x320xf4E2M1FN>, tensor<200x20xf8E4M3FN>, tensor<136x20xf8E4M3FN> -> tensor<200x136xf32>
  return %c : tensor<200x136xf32>
}

// FP8 results: cvt.rn.satfinite pairs of fl32(v * out_scale), 16-byte
// stores, and the results' amax with one atomic per warp and tile.
// FP8OUT-LABEL: .entry fp8_gemm_sm100a_e4m3e4m3_e4m3_tensor_amax_128x128_s7(
// FP8OUT-DAG: tcgen05.ld.sync.aligned.32x32b.x32.b32
// FP8OUT-DAG: cvt.rn.satfinite.e4m3x2.f32
// FP8OUT-DAG: st.global.v4.b32
// FP8OUT-DAG: atom.global.max.u32
func.func @fp8_out_amax(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %s: tensor<1x1xf32>, %os: tensor<1x1xf32>) -> (tensor<256x384xf8E4M3FN>, tensor<1x1xf32>) {
  %c, %amax = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) out_scale(%os : tensor<1x1xf32>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xf8E4M3FN>, amax tensor<1x1xf32>
  return %c, %amax : tensor<256x384xf8E4M3FN>, tensor<1x1xf32>
}

func.func @mx_e5m2_out_ragged_m(%a: tensor<200x512xf8E4M3FN>, %b: tensor<144x512xf8E4M3FN>, %sa: tensor<200x16xf8E8M0FNU>, %sb: tensor<144x16xf8E8M0FNU>, %os: tensor<1x1xf32>) -> tensor<200x144xf8E5M2> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) out_scale(%os : tensor<1x1xf32>) transpose_rhs : tensor<200x512xf8E4M3FN>, tensor<144x512xf8E4M3FN>, tensor<200x16xf8E8M0FNU>, tensor<144x16xf8E8M0FNU> -> tensor<200x144xf8E5M2>
  return %c : tensor<200x144xf8E5M2>
}
