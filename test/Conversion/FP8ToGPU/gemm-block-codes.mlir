// A quantization by blocks of a row of a GEMM's result (DeepSeek's 1x128
// activations, MXFP8's 1x32) is written by the GEMM: fp8-fuse-epilogue
// gives the GEMM the quantization, and the kernel reduces each block's amax
// in its epilogue (across the four lanes of a quad on sm_90a; the thread
// holding the row on sm_100a), stores the block's decode scale, and encodes
// the codes with it. One launch per function, no quantize kernel; the
// result scales are the parameter after the operand scales. On sm_90a the
// codes of 128-column tiles are stored by TMA (sm90-tma-store, on by
// default; the scales from registers), those of the 64-column MXFP8 tile
// from registers. The kernels assemble with ptxas without spills, with and
// without the TMA stores (gemm-block-codes-ptxas.test).
// RUN: fp8-opt %s --fp8-gpu-graph-pipeline=chip=sm_90a | FileCheck %s --check-prefix=GRAPH
// RUN: fp8-opt %s --fp8-gpu-graph-pipeline=chip=sm_90a --convert-fp8-to-gpu=chip=sm_90a | FileCheck %s --check-prefix=SM90
// RUN: fp8-opt %s --fp8-gpu-graph-pipeline=chip=sm_100a --convert-fp8-to-gpu="chip=sm_100a entry-points=mxfp8,tensor_blocks" | FileCheck %s --check-prefix=SM100
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/fp8_kernels.ptx
// RUN: rm -rf %t.100 && fp8-opt %s --fp8-gpu-pipeline="chip=sm_100a artifacts=%t.100 ptxas=none entry-points=mxfp8,tensor_blocks" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX100 --input-file=%t.100/fp8_kernels.ptx

// GRAPH-LABEL: func.func @deepseek
// GRAPH: fp8.scaled_matmul {{.*}} quantize by <1x128> rule <pow2> transpose_rhs epilogue_ins
// GRAPH-SAME: -> tensor<200x384xf8E4M3FN>, scale tensor<200x3xf32> epilogue {
// GRAPH-NOT: fp8.dynamic_quantize
// GRAPH-LABEL: func.func @mxfp8
// GRAPH: fp8.scaled_matmul {{.*}} quantize by <1x32> rule <e8m0_rceil>
// GRAPH-SAME: -> tensor<200x144xf8E4M3FN>, scale tensor<200x5xf8E8M0FNU> epilogue {
// GRAPH-NOT: fp8.dynamic_quantize
// GRAPH-LABEL: func.func @tensor_blocks
// GRAPH: fp8.scaled_matmul {{.*}} quantize by <1x128> rule <ratio>
// GRAPH-NOT: fp8.dynamic_quantize

// SM90-LABEL: deepseek = {buffers
// SM90-SAME: {bytes = 2400 : i64, id = [[SCALES:[0-9]+]] : i64, index = 1 : i64, kind = "output", type = tensor<200x3xf32>}
// SM90-SAME: launches = [{block = [384, 1, 1], {{[^}]*}}kernel = "fp8_gemm_sm90a_e4m3e4m3_e4m3_block128f32sq_epibf16_{{[0-9a-f]+}}_q128_pow2_tma_128x128_s6", kind = "kernel", params = [{{.*}}{buffer = 3 : i64, kind = "buffer"}, {buffer = [[SCALES]] : i64, kind = "buffer"}, {kind = "i32", value = 200 : i64}, {kind = "i32", value = 384 : i64}, {kind = "i32", value = 512 : i64}, {buffer = 4 : i64, kind = "buffer"}]
// SM90-SAME: }], workspace_bytes = {{[0-9]+}} : i64}
// SM90-LABEL: mxfp8 = {buffers
// SM90-SAME: launches = [{block = [384, 1, 1], {{[^}]*}}kernel = "fp8_gemm_sm90a_e4m3e4m3_e4m3_block32e8m0_epibf16_{{[0-9a-f]+}}_q32_e8m0_rceil_128x64_s8", kind = "kernel", params = [{{.*}}{buffer = 3 : i64, kind = "buffer"}, {buffer = 5 : i64, kind = "buffer"}, {kind = "i32", value = 200 : i64}
// SM90-SAME: }], workspace_bytes = {{[0-9]+}} : i64}
// SM90-LABEL: tensor_blocks = {buffers
// SM90-SAME: kernel = "fp8_gemm_sm90a_e4m3e4m3_e5m2_tensor_p4_epif32_{{[0-9a-f]+}}_q128_ratio_tma_128x128_s6"
// SM90-SAME: }], workspace_bytes = {{[0-9]+}} : i64}
// SM90-NOT: fp8_quantize

// SM100-LABEL: mxfp8 = {buffers
// SM100-SAME: kernel = "fp8_gemm_sm100a_e4m3e4m3_e4m3_block32e8m0_epibf16_{{[0-9a-f]+}}_q32_e8m0_rceil_128x128_s6"
// SM100-SAME: }], workspace_bytes = {{[0-9]+}} : i64}
// SM100-LABEL: tensor_blocks = {buffers
// SM100-SAME: launches = [{{{[^}]*}}kernel = "fp8_gemm_sm100a_e4m3e4m3_e5m2_tensor_epif32_{{[0-9a-f]+}}_q128_ratio_128x128_s7", kind = "kernel", params = [{{.*}}{buffer = 2 : i64, kind = "buffer"}, {buffer = 4 : i64, kind = "buffer"}, {kind = "i32", value = 200 : i64}
// SM100-SAME: }], workspace_bytes = {{[0-9]+}} : i64}
// SM100-NOT: fp8_quantize

// sm_100a: the kernels may use the registers one CTA per SM has (ptxas
// would give a 192-thread kernel 64 and spill). A fused epilogue's math runs
// on chunks of 16 columns (tcgen05.ld .x16) in loops, not unrolled, so that
// ptxas cannot hoist one chunk's loads over another's math (unrolled, with
// column scales and a GELU, it spilled). Each row's block of 32 is two
// chunks; a block of 128 is eight, each of whose f32 results goes back to its
// accumulator columns (tcgen05.st) before the next is read, so that 16 values
// are live rather than 128; once the block's scale is stored a second loop
// reads them again and encodes them.
// PTX100-LABEL: .entry fp8_gemm_sm100a_e4m3e4m3_e4m3_block32e8m0_epibf16_{{[0-9a-f]+}}_q32_e8m0_rceil_128x128_s6(
// PTX100: .maxnreg 255
// PTX100-LABEL: .entry fp8_gemm_sm100a_e4m3e4m3_e5m2_tensor_epif32_{{[0-9a-f]+}}_q128_ratio_128x128_s7(
// PTX100: .maxnreg 255
// PTX100: tcgen05.ld.sync.aligned.32x32b.x16.b32 {{.*}}, [[[C:%r[0-9]+]]];
// PTX100-NOT: {{^}}$L__BB
// PTX100: tcgen05.st.sync.aligned.32x32b.x16.b32 [[[C]]],
// PTX100-NOT: {{^}}$L__BB
// PTX100: @%p{{[0-9]+}} bra $L__BB
// PTX100-NOT: tcgen05.ld
// PTX100: tcgen05.wait::st.sync.aligned;
// PTX100-NOT: tcgen05.ld
// PTX100: rcp.rn.f32 [[D:%r[0-9]+]],
// PTX100-NEXT: st.global.b32 [%rd{{[0-9]+}}], [[D]];
// PTX100: bra{{.*}} [[SECOND:\$L__BB[0-9_]+]];
// PTX100: [[SECOND]]:
// PTX100: tcgen05.ld.sync.aligned.32x32b.x16.b32
// PTX100-NOT: tcgen05.st.sync
// PTX100: cvt.rn.satfinite.e5m2x2.f32
// PTX100-NOT: tcgen05.ld
// PTX100: {{^}}}

// sm_90a, 1x128 pow2 blocks: one block per row of the 128-column tile; the
// quad reduces each of a thread's two rows' amaxes (xor 2, then 1), and its
// first lane stores the f32 decode scale fl32(1 / s).
// PTX-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_e4m3_block128f32sq_epibf16_{{[0-9a-f]+}}_q128_pow2_tma_128x128_s6(
// PTX-NOT: .entry
// PTX: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// PTX: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// PTX: rcp.rn.f32 [[D0:%r[0-9]+]],
// PTX-NEXT: st.global.b32 [%rd{{[0-9]+}}], [[D0]];
// PTX: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// PTX: rcp.rn.f32 [[D1:%r[0-9]+]],
// PTX-NEXT: st.global.b32 [%rd{{[0-9]+}}], [[D1]];
// PTX-NOT: .entry
// PTX: cvt.rn.satfinite.e4m3x2.f32
// sm_90a, 1x32 E8M0 blocks: two blocks per row of the 64-column tile, four
// per thread, each reduced over the quad; the E8M0 codes are stored as
// bytes.
// PTX-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_e4m3_block32e8m0_epibf16_{{[0-9a-f]+}}_q32_e8m0_rceil_128x64_s8(
// PTX-COUNT-4: st.global.b8
// PTX-NOT: .entry
// PTX: cvt.rn.satfinite.e4m3x2.f32

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @deepseek(%a: tensor<200x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>,
                    %sa: tensor<200x4xf32>, %sb: tensor<3x4xf32>,
                    %bias: tensor<384xbf16>)
    -> (tensor<200x384xf8E4M3FN>, tensor<200x3xf32>) {
  %zero = arith.constant 0.0 : bf16
  %p = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>)
      transpose_rhs : tensor<200x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>,
      tensor<200x4xf32>, tensor<3x4xf32> -> tensor<200x384xbf16>
  %e = tensor.empty() : tensor<200x384xbf16>
  %h = linalg.generic {indexing_maps = [#id, #row, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%p, %bias : tensor<200x384xbf16>, tensor<384xbf16>)
      outs(%e : tensor<200x384xbf16>) {
  ^bb0(%in: bf16, %bv: bf16, %out: bf16):
    %s = arith.addf %in, %bv : bf16
    %r = arith.maximumf %s, %zero : bf16
    linalg.yield %r : bf16
  } -> tensor<200x384xbf16>
  %q, %qs = fp8.dynamic_quantize %h by <1x128> rule <pow2>
      : tensor<200x384xbf16> -> tensor<200x384xf8E4M3FN>, tensor<200x3xf32>
  return %q, %qs : tensor<200x384xf8E4M3FN>, tensor<200x3xf32>
}

func.func @mxfp8(%a: tensor<200x512xf8E4M3FN>, %b: tensor<144x512xf8E4M3FN>,
                 %sa: tensor<200x16xf8E8M0FNU>, %sb: tensor<144x16xf8E8M0FNU>)
    -> (tensor<200x144xf8E4M3FN>, tensor<200x5xf8E8M0FNU>) {
  %p = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>)
      transpose_rhs : tensor<200x512xf8E4M3FN>, tensor<144x512xf8E4M3FN>,
      tensor<200x16xf8E8M0FNU>, tensor<144x16xf8E8M0FNU> -> tensor<200x144xbf16>
  %q, %qs = fp8.dynamic_quantize %p by <1x32> rule <e8m0_rceil>
      : tensor<200x144xbf16> -> tensor<200x144xf8E4M3FN>, tensor<200x5xf8E8M0FNU>
  return %q, %qs : tensor<200x144xf8E4M3FN>, tensor<200x5xf8E8M0FNU>
}

func.func @tensor_blocks(%a: tensor<200x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>,
                         %s: tensor<1x1xf32>)
    -> (tensor<200x384xf8E5M2>, tensor<200x3xf32>) {
  %p = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>)
      transpose_rhs : tensor<200x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>,
      tensor<1x1xf32>, tensor<1x1xf32> -> tensor<200x384xf32>
  %q, %qs = fp8.dynamic_quantize %p by <1x128> rule <ratio>
      : tensor<200x384xf32> -> tensor<200x384xf8E5M2>, tensor<200x3xf32>
  return %q, %qs : tensor<200x384xf8E5M2>, tensor<200x3xf32>
}
