// sm90-producer-column-scales: where B has a block scale per column (1 x 128
// blocks along K with f32 scales: DeepSeek's weight gradients), the
// producer warp copies each K tile's column scales into a buffer beside the
// ring slot: each lane copies four of the tile's 128 (cp.async of 4 bytes,
// columns past N clamped to the last one as the consumers' loads were),
// arrives on the slot's full mbarrier with cp.async.mbarrier.arrive (which
// holds the phase open until its copies land), and the warp synchronizes
// before the elected lane arms the barrier for the TMA bytes. The consumers
// read the scales from the slot once it is full: no column scale loaded
// from global memory, stored to shared memory or waited for on a
// warpgroup's named barrier (bar.sync of 128 threads), which the kernel
// without the option has. The buffers (512 bytes a slot) take a stage of
// the ring: 6 where there were 7. Not for other scales: E8M0 ones (1-byte
// copies), per-tensor or square blocks. Off by default. No kernel spills.
// RUN: fp8-opt %s --convert-fp8-to-gpu="chip=sm_90a sm90-producer-column-scales=1" --remarks-filter=fp8-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_90a --remarks-filter=fp8-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: fp8-opt %s --convert-fp8-to-gpu="chip=sm_90a sm90-producer-column-scales=1 sm90-tma-store=0" | FileCheck %s --check-prefix=PLAN
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a sm90-producer-column-scales=1 sm90-tma-store=0 artifacts=%t/on" -o /dev/null
// RUN: fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a sm90-tma-store=0 artifacts=%t/off" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/on/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=PTX-OFF --input-file=%t/off/fp8_kernels.ptx
// RUN: not grep -E "[1-9][0-9]* bytes (spill|stack)" %t/on/fp8_kernels.ptxas.log
// RUN: grep -c "0 bytes spill stores" %t/on/fp8_kernels.ptxas.log | FileCheck %s --check-prefix=PTXAS
// PTXAS: 3

// REMARK-DAG: remark: [Passed] producer-column-scales | Category:fp8-gpu | Function=wgrad | Remark="fp8.scaled_matmul has its producer copy B's column scales into the ring (5 pipeline stages)"
// REMARK-DAG: remark: [Passed] producer-column-scales | Category:fp8-gpu | Function=ragged | Remark=
// REMARK-DAG: remark: [Missed] producer-column-scales | Category:fp8-gpu | Function=mxfp8 | Remark="fp8.scaled_matmul stages B's column scales in its consumers: the producer copies column scales of B (blocks of 1 x 128 with f32 scales) in 4-byte copies: not other scales, not E8M0 ones, not with multicast B"
// REMARK-DAG: remark: [Missed] producer-column-scales | Category:fp8-gpu | Function=deepseek | Remark="fp8.scaled_matmul stages B's column scales in its consumers: B has no per-column block scales"
// OFF-NOT: ] producer-column-scales |

// PLAN-LABEL: deepseek = {buffers
// PLAN-SAME: kernel = "fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32sq_128x128_s7"
// PLAN-LABEL: mxfp8 = {buffers
// PLAN-SAME: kernel = "fp8_gemm_sm90a_e4m3e4m3_bf16_block32e8m0_128x64_s8"
// PLAN-LABEL: ragged = {buffers
// PLAN-SAME: kernel = "fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32_pcs_128x128_s6"
// PLAN-LABEL: wgrad = {buffers
// PLAN-SAME: kernel = "fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32_pcs_128x128_s6"

// The consumers: A's two row scales from global memory (the first tile's,
// then in the loop the next tile's), no store to shared memory and no
// named barrier; the column scales read in pairs from the slot's buffer (6
// slots of 256 x 128 bytes and their barriers, 6 x 32784 = 196704) after
// the tile's wgmmas.
// PTX-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32_pcs_128x128_s6(
// PTX: setmaxnreg.inc.sync.aligned.u32 232;
// PTX-COUNT-2: ld.global.b32
// PTX-NOT: {{st.shared|bar.sync|bar.arrive}}
// PTX: mbarrier.try_wait.parity
// PTX-NOT: {{st.shared|bar.sync|bar.arrive}}
// PTX: wgmma.wait_group.sync.aligned 0;
// PTX: ld.shared.v2.b32 {{.*}}+196704];
// PTX-COUNT-15: ld.shared.v2.b32
// PTX-NOT: {{bar.sync|bar.arrive|st.shared.b32}}
// The producer: after the slot is free, four copies a lane into its
// buffer, the lane's arrival, the warp's barrier, then the TMA bytes.
// PTX: setmaxnreg.dec.sync.aligned.u32 40;
// PTX: mbarrier.try_wait.parity
// PTX-COUNT-4: cp.async.ca.shared.global [{{%rd[0-9]+}}+{{[0-9]+}}], [{{%rd[0-9]+}}], 4;
// PTX-NEXT: cp.async.mbarrier.arrive.shared.b64 [{{%rd[0-9]+}}+196608];
// PTX-NEXT: bar.warp.sync -1;
// PTX: mbarrier.arrive.expect_tx.shared.b64
// PTX-COUNT-2: cp.async.bulk.tensor.2d
// PTX: .entry

// Without the option the consumers stage the scales themselves.
// PTX-OFF-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32_128x128_s7(
// PTX-OFF: st.shared.b32
// PTX-OFF: bar.sync {{%r[0-9]+}}, 128;
// PTX-OFF-NOT: cp.async.ca
// PTX-OFF: .entry

func.func @wgrad(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x4xf32>, %sb: tensor<384x4xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <1x128>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x4xf32>, tensor<384x4xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

// Ragged M, N and K: the last tile's columns past N = 136 copy column 135's
// scales; K = 304 ends in a tile of 48.
func.func @ragged(%a: tensor<200x304xf8E4M3FN>, %b: tensor<136x304xf8E4M3FN>, %sa: tensor<200x3xf32>, %sb: tensor<136x3xf32>) -> tensor<200x136xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <1x128>) transpose_rhs : tensor<200x304xf8E4M3FN>, tensor<136x304xf8E4M3FN>, tensor<200x3xf32>, tensor<136x3xf32> -> tensor<200x136xbf16>
  return %c : tensor<200x136xbf16>
}

func.func @deepseek(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x4xf32>, %sb: tensor<3x4xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x4xf32>, tensor<3x4xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @mxfp8(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x16xf8E8M0FNU>, %sb: tensor<384x16xf8E8M0FNU>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>, tensor<384x16xf8E8M0FNU> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}
