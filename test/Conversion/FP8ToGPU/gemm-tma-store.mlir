// sm90-tma-store: an sm_90a GEMM's consumers write each tile's results into
// shared memory (each warpgroup its 64 rows, in boxes of 64 rows by 128
// bytes with the 128-byte swizzle) instead of storing them to global memory,
// and the warpgroup's first thread copies them out with TMA (a tensor map
// of the result's bytes, boxes of 128 bytes by 64 rows, clipped at the
// matrix's edges), which runs while the next tile's K loop does. Before
// reusing the tile, that thread waits until the previous copies have read
// it; before the CTA exits, until they have completed. The result tile
// takes shared memory after the staged epilogue inputs, so the ring keeps
// fewer stages; where it would keep fewer than 4, where a tile row is not
// whole 128-byte boxes, or where the epilogue loads a matrix from global
// memory, the results are stored from registers and a remark says why.
// (Result rows are 16-byte multiples apart: the lowering requires it of
// every sm_90a GEMM.) On by default, which the PLAN and PTX lines rely on;
// the OFF line turns it off (sm90-tma-store=0).
// No kernel spills.
// RUN: fp8-opt %s --fp8-gpu-graph-pipeline=chip=sm_90a --convert-fp8-to-gpu="chip=sm_90a sm90-tma-store=1" --remarks-filter=fp8-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: fp8-opt %s --fp8-gpu-graph-pipeline=chip=sm_90a --convert-fp8-to-gpu="chip=sm_90a sm90-tma-store=0" --remarks-filter=fp8-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: fp8-opt %s --fp8-gpu-graph-pipeline=chip=sm_90a --convert-fp8-to-gpu=chip=sm_90a | FileCheck %s --check-prefix=PLAN
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/fp8_kernels.ptx
// RUN: not grep -E "[1-9][0-9]* bytes (spill|stack)" %t/fp8_kernels.ptxas.log
// RUN: fp8-opt %s --fp8-gpu-graph-pipeline=chip=sm_100a --convert-fp8-to-gpu="chip=sm_100a sm90-tma-store=1" --remarks-filter=fp8-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM100

// REMARK: remark: [Passed] tma-store | Category:fp8-gpu | Function=plain | Remark="fp8.scaled_matmul stores its results by TMA from a 32768-byte tile in shared memory (6 pipeline stages)"
// REMARK: remark: [Passed] tma-store | Category:fp8-gpu | Function=fp8_out | Remark="fp8.scaled_matmul stores its results by TMA from a 16384-byte tile in shared memory (6 pipeline stages)"
// REMARK: remark: [Passed] tma-store | Category:fp8-gpu | Function=staged | Remark="fp8.scaled_matmul stores its results by TMA from a 32768-byte tile in shared memory (5 pipeline stages)"
// REMARK: remark: [Passed] tma-store | Category:fp8-gpu | Function=scores | Remark="linalg.batch_matmul stores its results by TMA from a 32768-byte tile in shared memory (6 pipeline stages)"
// REMARK: remark: [Missed] tma-store | Category:fp8-gpu | Function=narrow_fp8 | Remark="fp8.scaled_matmul stores its results from registers: a TMA store writes boxes of 128 bytes; a row of the tile is 64"
// REMARK: remark: [Missed] tma-store | Category:fp8-gpu | Function=wide_f32 | Remark="fp8.scaled_matmul stores its results from registers: an epilogue loading a matrix from global memory keeps too many registers live for the result tile's addresses"
// OFF-NOT: ] tma-store |
// SM100-NOT: ] tma-store |

// The plans, by function name. The result is a tensor map: [256, 384]
// bf16 as [256, 768] bytes (FP8 codes: [256, 384]), boxes of 128 bytes by
// 64 rows; the result tile follows the ring (six stages of 32 KiB and
// their barriers end at 196704) at 197632, 1024-aligned.
// PLAN-LABEL: fp8_out = {buffers
// PLAN-SAME: kernel = "fp8_gemm_sm90a_e4m3e4m3_e4m3_tensor_p4_amax_tma_128x128_s6"
// PLAN-SAME: {box = [128, 64], buffer = {{[0-9]+}} : i64, dims = [384, 256], dtype = "uint8", kind = "tensor_map", strides = [384], swizzle = "128B"}
// PLAN-SAME: shared_bytes = 214016 : i64
// PLAN-LABEL: plain = {buffers
// PLAN-SAME: kernel = "fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_tma_128x128_s6", kind = "kernel", params = [{{{[^}]*}}}, {{{[^}]*}}}, {box = [128, 64], buffer = {{[0-9]+}} : i64, dims = [768, 256], dtype = "uint8", kind = "tensor_map", strides = [768], swizzle = "128B"}, {buffer
// PLAN-SAME: shared_bytes = 230400 : i64
// A batch: a 3-D map, whose boxes stay in their matrix.
// PLAN-LABEL: scores = {buffers
// PLAN-SAME: kernel = "gemm_sm90a_batched_bf16_bf16_tma_128x128_s6"
// PLAN-SAME: {box = [128, 64, 1], buffer = {{[0-9]+}} : i64, dims = [256, 200, 4], dtype = "uint8", kind = "tensor_map", strides = [256, 51200], swizzle = "128B"}
// Five stages, the staged input's 32 KiB, then the result tile's.
// PLAN-LABEL: staged = {buffers
// PLAN-SAME: kernel = "fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_epibf16_{{[0-9a-f]+}}_stg_tma_128x128_s5"
// PLAN-SAME: shared_bytes = 230400 : i64
// PLAN-LABEL: wide_f32 = {buffers
// PLAN-SAME: kernel = "fp8_gemm_sm90a_e4m3e4m3_f32_tensor_p4_epif32_{{[0-9a-f]+}}_128x128_s7"

// The consumers, after a tile's last wgmmas: the first thread of the
// warpgroup waits for the previous copies' reads, the warpgroup's barrier
// (3 or 4, 128 threads), 32 shared stores of bf16 pairs and no global one,
// the proxy fence, the barrier again, then the two boxes of its 64 rows
// and the commit. Before the warpgroup returns, the wait for completion.
// PTX-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_tma_128x128_s6(
// PTX: wgmma.wait_group.sync.aligned 0;
// PTX: cp.async.bulk.wait_group.read 0;
// PTX: bar.sync [[ID:%r[0-9]+]], 128;
// PTX-COUNT-32: st.shared.b32
// PTX-NOT: st.global
// PTX: fence.proxy.async.shared::cta;
// PTX-NEXT: bar.sync [[ID]], 128;
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX-NOT: cp.async.bulk.tensor.2d.global.shared
// PTX: cp.async.bulk.wait_group 0;
// PTX: setmaxnreg.dec.sync.aligned.u32 40;
// PTX-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_e4m3_tensor_p4_amax_tma_128x128_s6(
// PTX-COUNT-32: st.shared.b16
// PTX: fence.proxy.async.shared::cta;
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX-NOT: cp.async.bulk.tensor.2d.global.shared
// PTX: atom.global.max.u32
// PTX-LABEL: .entry gemm_sm90a_batched_bf16_bf16_tma_128x128_s6(
// PTX-COUNT-2: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @plain(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @fp8_out(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %s: tensor<1x1xf32>, %os: tensor<1x1xf32>) -> (tensor<256x384xf8E4M3FN>, tensor<1x1xf32>) {
  %c, %amax = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) out_scale(%os : tensor<1x1xf32>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xf8E4M3FN>, amax tensor<1x1xf32>
  return %c, %amax : tensor<256x384xf8E4M3FN>, tensor<1x1xf32>
}

// A residual staged in shared memory, and the result tile after it.
func.func @staged(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>, %g: tensor<256x384xbf16>) -> tensor<256x384xbf16> {
  %p = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  %e = tensor.empty() : tensor<256x384xbf16>
  %y = linalg.add ins(%p, %g : tensor<256x384xbf16>, tensor<256x384xbf16>) outs(%e : tensor<256x384xbf16>) -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}

// Attention's scores: a batch of bf16 products, ragged in M.
func.func @scores(%q: tensor<4x200x64xbf16>, %k: tensor<4x128x64xbf16>) -> tensor<4x200x128xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<4x200x128xbf16>
  %init = linalg.fill ins(%zero : bf16) outs(%e : tensor<4x200x128xbf16>) -> tensor<4x200x128xbf16>
  %c = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] ins(%q, %k : tensor<4x200x64xbf16>, tensor<4x128x64xbf16>) outs(%init : tensor<4x200x128xbf16>) -> tensor<4x200x128xbf16>
  return %c : tensor<4x200x128xbf16>
}

// 64-column tiles of FP8 codes: 64 bytes a row.
func.func @narrow_fp8(%a: tensor<256x512xf8E4M3FN>, %b: tensor<64x512xf8E4M3FN>, %s: tensor<1x1xf32>, %os: tensor<1x1xf32>) -> (tensor<256x64xf8E4M3FN>, tensor<1x1xf32>) {
  %c, %amax = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) out_scale(%os : tensor<1x1xf32>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<64x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x64xf8E4M3FN>, amax tensor<1x1xf32>
  return %c, %amax : tensor<256x64xf8E4M3FN>, tensor<1x1xf32>
}

// Two f32 matrices in the epilogue: too many to stage, loaded from global
// memory.
func.func @wide_f32(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>, %g: tensor<256x384xf32>, %h: tensor<256x384xf32>) -> tensor<256x384xf32> {
  %p = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xf32>
  %e = tensor.empty() : tensor<256x384xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%p, %g, %h : tensor<256x384xf32>, tensor<256x384xf32>, tensor<256x384xf32>) outs(%e : tensor<256x384xf32>) {
  ^bb0(%x: f32, %u: f32, %v: f32, %o: f32):
    %s = arith.addf %x, %u : f32
    %t = arith.mulf %s, %v : f32
    linalg.yield %t : f32
  } -> tensor<256x384xf32>
  return %y : tensor<256x384xf32>
}
