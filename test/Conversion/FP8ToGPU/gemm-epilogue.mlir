// A GEMM whose elementwise consumers were fused into its epilogue is one
// kernel: the epilogue body runs on each result element after the scales and
// the bias, reading its inputs by the element's row and column, and no
// elementwise kernel follows. Both chips; the kernels assemble with ptxas
// without spills (gemm-epilogue-ptxas.test).
// RUN: fp8-opt %s --fp8-gpu-graph-pipeline=chip=sm_90a | FileCheck %s --check-prefix=GRAPH
// RUN: fp8-opt %s --fp8-gpu-graph-pipeline=chip=sm_90a --convert-fp8-to-gpu=chip=sm_90a | FileCheck %s --check-prefix=SM90
// RUN: fp8-opt %s --fp8-gpu-graph-pipeline=chip=sm_100a --convert-fp8-to-gpu=chip=sm_100a | FileCheck %s --check-prefix=SM100
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/fp8_kernels.ptx
// RUN: not grep __nv_ %t/fp8_kernels.ptx
// RUN: rm -rf %t.reg && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a sm90-tma-store=0 artifacts=%t.reg ptxas=none" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTXREG --input-file=%t.reg/fp8_kernels.ptx

// GRAPH-LABEL: func.func @bias_gelu
// GRAPH: fp8.scaled_matmul {{.*}} epilogue_ins(%{{.*}} : tensor<384xbf16>)
// GRAPH-NOT: linalg.
// GRAPH-LABEL: func.func @residual_rowscale
// GRAPH: fp8.scaled_matmul {{.*}} epilogue_ins(%{{.*}}, %{{.*}} : tensor<200x136xf32>, tensor<200xf32>)
// GRAPH-NOT: linalg.

// One launch per function: the GEMM, its epilogue inputs as its last
// parameters (the f32 residual as a tensor map: the kernel stages it in
// shared memory, gemm-epilogue-staged.mlir). The results go out by TMA
// stores (tma in the kernel names), except residual_rowscale's: its staged
// residual leaves too few pipeline stages for a result tile.
// SM90-LABEL: bias_gelu = {buffers
// SM90-SAME: launches = [{block = [384, 1, 1], {{[^}]*}}kernel = "fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_epibf16_{{[0-9a-f]+}}_tma_128x128_s6", kind = "kernel", params = [{{.*}}{kind = "i32", value = 512 : i64}, {buffer = 4 : i64, kind = "buffer"}], persistent = true, shared_bytes = {{[0-9]+}} : i64}], workspace_bytes = {{[0-9]+}} : i64}
// SM90-LABEL: relu_quantize = {buffers
// SM90-SAME: launches = [{buffer = [[AMAX:[0-9]+]] : i64, byte = 0 : i64, kind = "fill"}, {{{[^}]*}}kernel = "fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_amax_epibf16_{{[0-9a-f]+}}_tma_128x128_s6", kind = "kernel", params = [{{.*}}{buffer = [[AMAX]] : i64, kind = "buffer"}, {kind = "i32", value = 256 : i64}
// SM90-SAME: kernel = "fp8_compute_scale_ratio_e4m3_inv"
// SM90-SAME: kernel = "fp8_quantize_bf16_e4m3_b32x128_sat_given_vs_nanprop_vl"
// SM90-NOT: fp8_amax
// SM90-LABEL: residual_rowscale = {buffers
// SM90-SAME: launches = [{block = [384, 1, 1], {{[^}]*}}kernel = "fp8_gemm_sm90a_e4m3e4m3_f32_rowcol_p4_epif32_{{[0-9a-f]+}}_stg_128x128_s5", kind = "kernel", params = [{{.*}}{kind = "i32", value = 512 : i64}, {box = [128, 128], buffer = 4 : i64, dims = [544, 200], dtype = "uint8", kind = "tensor_map", strides = [544], swizzle = "128B"}, {buffer = 5 : i64, kind = "buffer"}], persistent = true, shared_bytes = {{[0-9]+}} : i64}], workspace_bytes = {{[0-9]+}} : i64}
// SM90-LABEL: rowwise_quantize = {buffers
// SM90-SAME: kind = "fill"
// SM90-SAME: kernel = "fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_rowamax_epibf16_{{[0-9a-f]+}}_tma_128x128_s6"
// SM90-SAME: kernel = "fp8_compute_scale_ratio_e4m3_inv"
// SM90-SAME: kernel = "fp8_quantize_bf16_e4m3_b1x128_sat_given_vs_nanprop_vl"
// SM100-LABEL: bias_gelu = {buffers
// SM100-SAME: launches = [{{{[^}]*}}kernel = "fp8_gemm_sm100a_e4m3e4m3_bf16_tensor_epibf16_{{[0-9a-f]+}}_128x128_s7", kind = "kernel", params = [{{.*}}{kind = "i32", value = 512 : i64}, {buffer = 4 : i64, kind = "buffer"}], persistent = true, shared_bytes = {{[0-9]+}} : i64}], workspace_bytes = {{[0-9]+}} : i64}
// SM100-LABEL: residual_rowscale = {buffers
// SM100-SAME: launches = [{{{[^}]*}}kernel = "fp8_gemm_sm100a_e4m3e4m3_f32_rowcol_epif32_{{[0-9a-f]+}}_128x128_s7", kind = "kernel", params = [{{.*}}{kind = "i32", value = 512 : i64}, {buffer = 4 : i64, kind = "buffer"}, {buffer = 5 : i64, kind = "buffer"}], persistent = true, shared_bytes = {{[0-9]+}} : i64}], workspace_bytes = {{[0-9]+}} : i64}

// The GELU's erf by polynomial (no libdevice), the bf16 bias read per
// column, pairs of bf16 results stored as 32 bits into the TMA store's tile
// (from registers to global memory with sm90-tma-store=0, PTXREG); the
// residual read from shared memory in pairs, the row scale as f32, pairs of
// f32 results stored from registers.
// PTX-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_epibf16_
// PTX: wgmma.mma_async
// PTX: ld.global.b16
// PTX: st.shared.b32
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_f32_rowcol_p4_epif32_
// PTX: wgmma.mma_async
// PTX: ld.shared.v2.b32
// PTX: ld.global.b32
// PTX: st.global.v2.b32
// PTXREG-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_epibf16_{{[0-9a-f]+}}_128x128_s7(
// PTXREG: wgmma.mma_async
// PTXREG: ld.global.b16
// PTXREG: st.global.b32
// PTXREG-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_f32_rowcol_p4_epif32_

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#col = affine_map<(d0, d1) -> (d0)>

// A bf16 product, its bf16 bias, GELU (erf form) in f32, a bf16 result.
func.func @bias_gelu(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>, %bias: tensor<384xbf16>) -> tensor<256x384xbf16> {
  %p = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  %e = tensor.empty() : tensor<256x384xbf16>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %bias : tensor<256x384xbf16>, tensor<384xbf16>) outs(%e : tensor<256x384xbf16>) {
  ^bb0(%in: bf16, %bv: bf16, %out: bf16):
    %s = arith.addf %in, %bv : bf16
    %x = arith.extf %s : bf16 to f32
    %r = arith.constant 0.707106769 : f32
    %h = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %xs = arith.mulf %x, %r : f32
    %erf = math.erf %xs : f32
    %p1 = arith.addf %erf, %one : f32
    %xp = arith.mulf %x, %p1 : f32
    %g = arith.mulf %xp, %h : f32
    %n = arith.truncf %g : f32 to bf16
    linalg.yield %n : bf16
  } -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}

// Row-wise scales, an f32 product, a same-shape residual and a per-row
// scaling, ragged extents (200 x 136).
func.func @residual_rowscale(%a: tensor<200x512xf8E4M3FN>, %b: tensor<136x512xf8E4M3FN>, %sa: tensor<200x1xf32>, %sb: tensor<136x1xf32>, %res: tensor<200x136xf32>, %rows: tensor<200xf32>) -> tensor<200x136xf32> {
  %p = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x512>, <1x512>) transpose_rhs : tensor<200x512xf8E4M3FN>, tensor<136x512xf8E4M3FN>, tensor<200x1xf32>, tensor<136x1xf32> -> tensor<200x136xf32>
  %e = tensor.empty() : tensor<200x136xf32>
  %s = linalg.add ins(%p, %res : tensor<200x136xf32>, tensor<200x136xf32>) outs(%e : tensor<200x136xf32>) -> tensor<200x136xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %rows : tensor<200x136xf32>, tensor<200xf32>) outs(%e : tensor<200x136xf32>) {
  ^bb0(%in: f32, %rv: f32, %out: f32):
    %m = arith.mulf %in, %rv : f32
    linalg.yield %m : f32
  } -> tensor<200x136xf32>
  return %y : tensor<200x136xf32>
}

// The per-tensor quantization of a GEMM's result takes its amax from the
// epilogue (one atomic max per warp into a zero-filled buffer): then the
// scale, and one quantize kernel reading the result once.
func.func @relu_quantize(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> (tensor<256x384xf8E4M3FN>, tensor<1x1xf32>) {
  %p = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  %e = tensor.empty() : tensor<256x384xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<256x384xbf16>) outs(%e : tensor<256x384xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %zero = arith.constant 0.0 : bf16
    %r = arith.maximumf %in, %zero : bf16
    linalg.yield %r : bf16
  } -> tensor<256x384xbf16>
  %q, %s = fp8.dynamic_quantize %y by <tensor> rule <ratio> : tensor<256x384xbf16> -> tensor<256x384xf8E4M3FN>, tensor<1x1xf32>
  return %q, %s : tensor<256x384xf8E4M3FN>, tensor<1x1xf32>
}

// Row-wise scaling: the amax of each row, one atomic per row and tile.
func.func @rowwise_quantize(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> (tensor<256x384xf8E4M3FN>, tensor<256x1xf32>) {
  %p = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  %q, %s = fp8.dynamic_quantize %p by <1x*> rule <ratio> : tensor<256x384xbf16> -> tensor<256x384xf8E4M3FN>, tensor<256x1xf32>
  return %q, %s : tensor<256x384xf8E4M3FN>, tensor<256x1xf32>
}
