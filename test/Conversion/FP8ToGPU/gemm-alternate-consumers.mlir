// sm90-alternate-consumers: the two consumer warpgroups of an sm_90a GEMM
// that waits for each K tile's wgmmas (to promote their partial sums) issue
// them in turn. Consumer 0 issues a group after consumer 1 has issued its
// previous one, consumer 1 after consumer 0 has issued the same one: named
// barriers 5 (consumer 0's turn ends) and 6 (consumer 1's), each completed
// by one warpgroup's bar.arrive and the other's bar.sync of 256 threads
// (the number each consumer waits on and arrives on is selected once).
// Consumer 1 passes the first turn before its tiles (bar.arrive 6),
// consumer 0 takes the last after its tiles (bar.sync 6). One turn per K
// tile: with blocks of 32 (MXFP8) too, whose four k32 steps are one group.
// Not where the tensor cores
// accumulate across K tiles (promote_interval 0, high-precision GEMMs).
// Off by default. No kernel spills.
// RUN: fp8-opt %s --convert-fp8-to-gpu="chip=sm_90a sm90-alternate-consumers=1" --remarks-filter=fp8-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_90a --remarks-filter=fp8-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
// sm_100a has no such kernel (nor one for the f32 block scales of @deepseek,
// which fails after the first functions).
// RUN: not fp8-opt %s --convert-fp8-to-gpu="chip=sm_100a sm90-alternate-consumers=1" --remarks-filter=fp8-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: fp8-opt %s --convert-fp8-to-gpu="chip=sm_90a sm90-alternate-consumers=1" | FileCheck %s --check-prefix=PLAN
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a sm90-alternate-consumers=1 artifacts=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=PTXAS --input-file=%t/fp8_kernels.ptxas.log
// RUN: not grep -E "[1-9][0-9]* bytes (spill|stack)" %t/fp8_kernels.ptxas.log

// REMARK-DAG: remark: [Passed] alternate-consumers | Category:fp8-gpu | Function=tensor | Remark="fp8.scaled_matmul issues each K tile's wgmmas from its two consumer warpgroups in turn, one promoting while the other's run"
// REMARK-DAG: remark: [Missed] alternate-consumers | Category:fp8-gpu | Function=accumulating | Remark="fp8.scaled_matmul keeps its consumer warpgroups in step: the consumer warpgroups take turns only where they wait for each K tile's wgmmas to promote partial sums (scaled operands, promote_interval > 0), not where the tensor cores accumulate across K tiles"
// REMARK-DAG: remark: [Passed] alternate-consumers | Category:fp8-gpu | Function=deepseek | Remark=
// REMARK-DAG: remark: [Passed] alternate-consumers | Category:fp8-gpu | Function=wgrad | Remark=
// REMARK-DAG: remark: [Passed] alternate-consumers | Category:fp8-gpu | Function=mxfp8 | Remark=
// A high-precision GEMM accumulates across K tiles in the tensor cores too.
// REMARK-DAG: remark: [Missed] alternate-consumers | Category:fp8-gpu | Function=high_precision | Remark="linalg.matmul keeps its consumer warpgroups in step: the consumer warpgroups take turns only where
// OFF-NOT: ] alternate-consumers |

// PLAN-LABEL: accumulating = {buffers
// PLAN-SAME: kernel = "fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p0_tma_128x128_s6"
// PLAN-LABEL: deepseek = {buffers
// PLAN-SAME: kernel = "fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32sq_tma_alt_128x128_s6"
// PLAN-LABEL: mxfp8 = {buffers
// PLAN-SAME: kernel = "fp8_gemm_sm90a_e4m3e4m3_bf16_block32e8m0_tma_alt_128x64_s8"
// PLAN-LABEL: tensor = {buffers
// PLAN-SAME: kernel = "fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_tma_alt_128x128_s6"
// PLAN-LABEL: wgrad = {buffers
// PLAN-SAME: kernel = "fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32_tma_alt_128x128_s6"

// Per tensor, a turn per K tile (one group of four wgmmas).
// PTX-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_tma_alt_128x128_s6(
// PTX: bar.arrive 6, 256;
// PTX: bar.sync [[OTHER:%r[0-9]+]], 256;
// PTX-NEXT: wgmma.fence.sync.aligned;
// PTX-COUNT-4: wgmma.mma_async
// PTX: wgmma.commit_group.sync.aligned;
// PTX-NOT: wgmma
// PTX: bar.arrive [[OWN:%r[0-9]+]], 256;
// PTX-NEXT: // end inline asm
// PTX-NEXT: wgmma.wait_group.sync.aligned 0;
// PTX-NOT: , 256;
// PTX: bar.sync 6, 256;
// PTX-NOT: , 256;
// PTX: ret;
// Accumulated across K tiles: no turns.
// PTX-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p0_tma_128x128_s6(
// PTX-NOT: {{bar.arrive|, 256;}}
// PTX-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32sq_tma_alt_128x128_s6(
// MXFP8 (blocks of 32 along K): one turn per K tile, whose four k32 steps
// are one group (one partial sum each). Consumer 1 passes the first turn
// after taking its registers; the tile's group is issued after the other
// consumer's turn ends and ends this one's turn once committed, before it
// is waited for; the staged column scales keep their barrier of one
// warpgroup (128 threads). No turn among the tile's four promotions.
// Consumer 0 takes the last turn after its tiles, before the producer's
// code.
// PTX-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_block32e8m0_tma_alt_128x64_s8(
// PTX: setmaxnreg.inc.sync.aligned.u32 232;
// PTX: bar.arrive 6, 256;
// PTX: mbarrier.try_wait.parity
// PTX: bar.sync [[OTHER:%r[0-9]+]], 256;
// PTX-NEXT: wgmma.fence.sync.aligned;
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k32
// PTX: wgmma.commit_group.sync.aligned;
// PTX-NOT: wgmma
// PTX: bar.arrive {{%r[0-9]+}}, 256;
// PTX: bar.sync {{%r[0-9]+}}, 128;
// PTX-NEXT: wgmma.wait_group.sync.aligned 0;
// PTX-NOT: {{wgmma|, 256;}}
// PTX: mbarrier.arrive.shared.b64
// PTX-NOT: {{wgmma|, 256;}}
// PTX: bar.sync 6, 256;
// PTX-NOT: bar.arrive
// PTX: mbarrier.arrive.expect_tx.shared.b64
// PTXAS-COUNT-5: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

func.func @tensor(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @accumulating(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs promote_interval(0) : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @deepseek(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x4xf32>, %sb: tensor<3x4xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x4xf32>, tensor<3x4xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @wgrad(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x4xf32>, %sb: tensor<384x4xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <1x128>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x4xf32>, tensor<384x4xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @mxfp8(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x16xf8E8M0FNU>, %sb: tensor<384x16xf8E8M0FNU>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>, tensor<384x16xf8E8M0FNU> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @high_precision(%a: tensor<256x256xbf16>, %b: tensor<256x256xbf16>) -> tensor<256x256xbf16> {
  %z = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<256x256xbf16>
  %f = linalg.fill ins(%z : bf16) outs(%e : tensor<256x256xbf16>) -> tensor<256x256xbf16>
  %c = linalg.matmul ins(%a, %b : tensor<256x256xbf16>, tensor<256x256xbf16>) outs(%f : tensor<256x256xbf16>) -> tensor<256x256xbf16>
  return %c : tensor<256x256xbf16>
}
