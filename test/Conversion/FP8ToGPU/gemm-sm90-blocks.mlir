// Block scales at the edges of K on sm_90a. A block may span all of K: one
// 128-long DeepSeek block (K = 128, or K = 64 inside it) still scales B by
// 128 x 128 squares, which the epilogue cannot apply per column. With
// 32-long blocks, a K that is not a multiple of the 128-deep K tile leaves
// groups past K in the last tile: the kernel skips their promotion, so it
// reads no scale past ceil(K / 32) - 1. Each K tile starts with wgmma.fence,
// since the previous tile's promotions read the partial sums' registers.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=STORE --input-file=%t/fp8_kernels.ptx
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_90a | FileCheck %s --check-prefix=PLAN
// RUN: fp8-opt %s --convert-fp8-to-gpu="chip=sm_90a sm90-tma-store=0" | FileCheck %s --check-prefix=PLANREG

// With 32-long blocks a K tile's four k32 steps write four partial sums
// (each wgmma starts its own: scale-d 0), issued as one group and waited
// for once; the slot is released, then each block's partial sum is
// promoted in order into the same accumulator, behind the check that the
// block lies inside K.
// CHECK-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_block32e8m0_tma_128x64_s8(
// CHECK: wgmma.fence.sync.aligned;
// CHECK-NOT: wgmma.wait_group
// CHECK: setp.ne.b32 p, 0, 0;
// CHECK-NEXT: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {[[P0:%r[0-9]+]],
// CHECK-NOT: wgmma.wait_group
// CHECK: setp.ne.b32 p, 0, 0;
// CHECK-NEXT: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {[[P1:%r[0-9]+]],
// CHECK-NOT: wgmma.wait_group
// CHECK: setp.ne.b32 p, 0, 0;
// CHECK-NEXT: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {[[P2:%r[0-9]+]],
// CHECK-NOT: wgmma.wait_group
// CHECK: setp.ne.b32 p, 0, 0;
// CHECK-NEXT: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {[[P3:%r[0-9]+]],
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NOT: fma.rn.f32
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-NOT: fma.rn.f32
// CHECK: mbarrier.arrive.shared.b64
// CHECK-NOT: fma.rn.f32
// CHECK: setp.{{lt|ge}}.u32
// CHECK-NOT: fma.rn.f32
// CHECK: fma.rn.f32 [[ACC:%r[0-9]+]], [[P0]], {{%r[0-9]+}}, [[ACC]];
// CHECK-NOT: wgmma
// CHECK: setp.{{lt|ge}}.u32
// CHECK-NOT: fma.rn.f32
// CHECK: fma.rn.f32 [[ACC]], [[P1]], {{%r[0-9]+}}, [[ACC]];
// CHECK-NOT: wgmma
// CHECK: setp.{{lt|ge}}.u32
// CHECK-NOT: fma.rn.f32
// CHECK: fma.rn.f32 [[ACC]], [[P2]], {{%r[0-9]+}}, [[ACC]];
// CHECK-NOT: wgmma
// CHECK: setp.{{lt|ge}}.u32
// CHECK-NOT: fma.rn.f32
// CHECK: fma.rn.f32 [[ACC]], [[P3]], {{%r[0-9]+}}, [[ACC]];
// CHECK-NOT: wgmma.mma_async
// CHECK-NOT: wgmma.wait_group
// CHECK-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32sq_tma_128x128_s6(
// One group of four k32 steps per K tile: K tiles and 128-long blocks
// coincide.
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-NOT: wgmma.fence

// A scale per column of B and 128 of K (DeepSeek's weight gradients, 1x128
// on both operands). A K tile's scales are loaded one tile ahead (the first
// tile's before the loop, the next tile's before the slot is waited for):
// this thread's two row scales of A and one of the warpgroup's 128 column
// scales of B, which goes to shared memory (after the ring and its barriers:
// 6 x 32784 bytes, one stage fewer than with register stores for the TMA
// store's result tile, which follows the scales) while the wgmmas run,
// behind a barrier of the warpgroup's 128 threads. What is stored is the
// column scale loaded before, not the next tile's. The promotion reads its
// 32 column scales as 16 pairs: no global load between the wgmmas and the
// 64 factors.
// CHECK-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32_tma_128x128_s6(
// CHECK: ld.global.b32
// CHECK-NOT: mbarrier.try_wait
// CHECK: ld.global.b32
// CHECK-NOT: mbarrier.try_wait
// CHECK: ld.global.b32
// CHECK-NOT: mbarrier.try_wait
// CHECK: ld.global.b32
// CHECK-NOT: mbarrier.try_wait
// CHECK: ld.global.b32
// CHECK-NOT: mbarrier.try_wait
// CHECK: ld.global.b32 [[NEXTCOL:%r[0-9]+]],
// CHECK-NOT: ld.global
// CHECK: mbarrier.try_wait.parity
// CHECK-NOT: ld.global
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32
// CHECK-NOT: ld.global
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NOT: ld.global
// CHECK-NOT: [[NEXTCOL]];
// CHECK: bar.sync {{%r[0-9]+}}, 128;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 0;
// CHECK-NOT: ld.global
// CHECK-COUNT-16: ld.shared.v2.b32
// CHECK-NOT: ld.global
// CHECK-COUNT-64: mul.rn.f32
// CHECK-NOT: ld.global

// STORE-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32_tma_128x128_s6(
// STORE: wgmma.commit_group.sync.aligned;
// STORE-NOT: wgmma.wait_group
// STORE: st.shared.b32 [{{%rd[0-9]+}}+196704], %r{{[0-9]+}};
// STORE-NEXT: bar.sync {{%r[0-9]+}}, 128;
// STORE-NEXT: wgmma.wait_group.sync.aligned 0;
// CHECK: bra

// PLAN-LABEL: deepseek_k128 = {buffers
// PLAN-SAME: kernel = "fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32sq_tma_128x128_s6"
// PLAN-LABEL: deepseek_k64 = {buffers
// PLAN-SAME: kernel = "fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32sq_tma_128x128_s6"
// The staged scales: two buffers of 128 f32 for each consumer warpgroup,
// then (1024-aligned) the 32 KiB result tile of the TMA store.
// PLAN-LABEL: deepseek_wgrad = {buffers
// PLAN-SAME: kernel = "fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32_tma_128x128_s6"
// PLAN-SAME: shared_bytes = 232448
// PLAN-LABEL: mx_k160 = {buffers
// PLAN-SAME: kernel = "fp8_gemm_sm90a_e4m3e4m3_bf16_block32e8m0_tma_128x64_s8"
// PLAN-SAME: {kind = "i32", value = 256 : i64}, {kind = "i32", value = 384 : i64}, {kind = "i32", value = 160 : i64}]
// PLAN-LABEL: mx_k32 = {buffers
// PLAN-SAME: kernel = "fp8_gemm_sm90a_e4m3e4m3_bf16_block32e8m0_tma_128x64_s8"
// With register stores (sm90-tma-store=0), seven stages and the staged
// scales after them.
// PLANREG-LABEL: deepseek_wgrad = {buffers
// PLANREG-SAME: kernel = "fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32_128x128_s7"
// PLANREG-SAME: shared_bytes = 231536

func.func @mx_k160(%a: tensor<256x160xf8E4M3FN>, %b: tensor<384x160xf8E4M3FN>, %sa: tensor<256x5xf8E8M0FNU>, %sb: tensor<384x5xf8E8M0FNU>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) transpose_rhs : tensor<256x160xf8E4M3FN>, tensor<384x160xf8E4M3FN>, tensor<256x5xf8E8M0FNU>, tensor<384x5xf8E8M0FNU> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @deepseek_k128(%a: tensor<256x128xf8E4M3FN>, %b: tensor<384x128xf8E4M3FN>, %sa: tensor<256x1xf32>, %sb: tensor<3x1xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs : tensor<256x128xf8E4M3FN>, tensor<384x128xf8E4M3FN>, tensor<256x1xf32>, tensor<3x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @deepseek_k64(%a: tensor<256x64xf8E4M3FN>, %b: tensor<384x64xf8E4M3FN>, %sa: tensor<256x1xf32>, %sb: tensor<3x1xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs : tensor<256x64xf8E4M3FN>, tensor<384x64xf8E4M3FN>, tensor<256x1xf32>, tensor<3x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

// An MX block spanning K = 32: e8m0 scales are block scales.
func.func @mx_k32(%a: tensor<256x32xf8E4M3FN>, %b: tensor<384x32xf8E4M3FN>, %sa: tensor<256x1xf8E8M0FNU>, %sb: tensor<384x1xf8E8M0FNU>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) transpose_rhs : tensor<256x32xf8E4M3FN>, tensor<384x32xf8E4M3FN>, tensor<256x1xf8E8M0FNU>, tensor<384x1xf8E8M0FNU> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

// K = 160: two K tiles, the second ragged.
func.func @deepseek_wgrad(%a: tensor<256x160xf8E4M3FN>, %b: tensor<384x160xf8E4M3FN>, %sa: tensor<256x2xf32>, %sb: tensor<384x2xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <1x128>) transpose_rhs : tensor<256x160xf8E4M3FN>, tensor<384x160xf8E4M3FN>, tensor<256x2xf32>, tensor<384x2xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}
