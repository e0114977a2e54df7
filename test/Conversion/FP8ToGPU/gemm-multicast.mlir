// sm90-multicast: an sm_90a GEMM runs in clusters of two CTAs ([2, 1, 1]),
// which walk pairs of tile rows of one tile column (the second CTA of a
// ragged last pair computes a tile past M and stores nothing). Each CTA's
// producer copies its A tile and half of the shared B tile (B's tensor map
// has boxes of blockN / 2 rows), that half into both CTAs' shared memory
// (`.multicast::cluster`, mask 0b11), and arms its full barrier for its A
// tile and both halves that start inside the matrices. A slot's empty
// barrier counts the consumer warps of both CTAs (16): each consumer warp
// releases the slot in its own CTA and, through `mapa`, in the other. A
// cluster barrier follows the barriers' initialization and precedes the
// exit. Off by default; GEMMs of one tile row keep one CTA per cluster. The
// results are stored by TMA (sm90-tma-store, on by default), the result
// tile taking a stage's shared memory: six stages. No kernel spills.
// RUN: fp8-opt %s --convert-fp8-to-gpu="chip=sm_90a sm90-multicast=1" --remarks-filter=fp8-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_90a --remarks-filter=fp8-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: fp8-opt %s --convert-fp8-to-gpu="chip=sm_90a sm90-multicast=1" | FileCheck %s --check-prefix=PLAN
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a sm90-multicast=1 artifacts=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/fp8_kernels.ptx
// RUN: not grep -E "[1-9][0-9]* bytes (spill|stack)" %t/fp8_kernels.ptxas.log
// RUN: fp8-opt %s --convert-fp8-to-gpu="chip=sm_100a sm90-multicast=1" --remarks-filter=fp8-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF

// REMARK: remark: [Passed] multicast | Category:fp8-gpu | Function=plain | Remark="fp8.scaled_matmul runs in clusters of two CTAs on pairs of tile rows, each copying half of the shared 128-row B tile into both"
// REMARK: remark: [Missed] multicast | Category:fp8-gpu | Function=one_row | Remark="fp8.scaled_matmul runs one CTA per cluster: its result has one tile row, which no other CTA shares B with"
// REMARK: remark: [Passed] multicast | Category:fp8-gpu | Function=ragged | Remark="fp8.scaled_matmul runs in clusters of two CTAs on pairs of tile rows, each copying half of the shared 128-row B tile into both"
// REMARK: remark: [Passed] multicast | Category:fp8-gpu | Function=scores | Remark="linalg.batch_matmul runs in clusters of two CTAs on pairs of tile rows, each copying half of the shared 128-row B tile into both"
// OFF-NOT: ] multicast |

// The plans, by function name. 256 x 384: a pair of tile rows by three
// tile columns, three clusters.
// PLAN-LABEL: one_row = {buffers
// PLAN-SAME: cluster = [1, 1, 1], grid = [3, 1, 1], kernel = "fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_tma_128x128_s6"
// PLAN-SAME: {box = [128, 128], buffer = 1 : i64
// PLAN-LABEL: plain = {buffers
// PLAN-SAME: cluster = [2, 1, 1], grid = [6, 1, 1], kernel = "fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_tma_mc_128x128_s6"
// PLAN-SAME: params = [{box = [128, 128], buffer = 0 : i64, dims = [512, 256]{{.*}}}, {box = [128, 64], buffer = 1 : i64, dims = [512, 384]
// 300 rows: three tile rows, two pairs (the second with a tile past M).
// PLAN-LABEL: ragged = {buffers
// PLAN-SAME: cluster = [2, 1, 1], grid = [12, 1, 1], kernel = "fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_tma_mc_128x128_s6"
// A batch of four: two tile rows a matrix, four pairs.
// PLAN-LABEL: scores = {buffers
// PLAN-SAME: cluster = [2, 1, 1], grid = [8, 1, 1], kernel = "gemm_sm90a_batched_bf16_bf16_tma_mc_128x128_s6"
// PLAN-SAME: {box = [128, 64, 1], buffer = 1 : i64, dims = [128, 128, 4]

// PTX-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_tma_mc_128x128_s6(
// Six slots: full barriers of one arrival, empty ones of 16.
// PTX: mov.b32 [[SIXTEEN:%r[0-9]+]], 16;
// PTX-NEXT: mbarrier.init.shared.b64 [__fp8_dynamic_smem+196656], [[SIXTEEN]];
// PTX-COUNT-5: mbarrier.init.shared.b64 [__fp8_dynamic_smem+{{[0-9]+}}], [[SIXTEEN]];
// PTX: fence.mbarrier_init.release.cluster;
// PTX: barrier.cluster.arrive;
// PTX-NEXT: barrier.cluster.wait;
// The consumers: each release is two arrivals, here and in the other CTA,
// both releases at CTA scope (at cluster scope the remote one compiles to
// a GPU-wide memory barrier per K step: half the speed on an H100).
// PTX: mapa.shared::cluster.u64 [[REMOTE:%rd[0-9]+]], [[LOCAL:%rd[0-9]+]],
// PTX: mbarrier.arrive.shared.b64 {{%rd[0-9]+}}, {{\[}}[[LOCAL]]];
// PTX-NOT: release.cluster
// PTX: mbarrier.arrive.shared::cluster.b64 _, {{\[}}[[REMOTE]]]
// The producer: the A tile here, the half of B everywhere.
// PTX: mbarrier.arrive.expect_tx.shared.b64
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// PTX: barrier.cluster.arrive;
// PTX-NEXT: barrier.cluster.wait;
// PTX-NEXT: ret;

func.func @plain(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @one_row(%a: tensor<128x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<128x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<128x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<128x384xbf16>
  return %c : tensor<128x384xbf16>
}

func.func @ragged(%a: tensor<300x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<300x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<300x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<300x384xbf16>
  return %c : tensor<300x384xbf16>
}

func.func @scores(%q: tensor<4x200x64xbf16>, %k: tensor<4x128x64xbf16>) -> tensor<4x200x128xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<4x200x128xbf16>
  %init = linalg.fill ins(%zero : bf16) outs(%e : tensor<4x200x128xbf16>) -> tensor<4x200x128xbf16>
  %c = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] ins(%q, %k : tensor<4x200x64xbf16>, tensor<4x128x64xbf16>) outs(%init : tensor<4x200x128xbf16>) -> tensor<4x200x128xbf16>
  return %c : tensor<4x200x128xbf16>
}
