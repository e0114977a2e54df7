// The K loop of sm_90a GEMMs that accumulate in the tensor cores alone
// (promote_interval 0, and the high-precision bf16/f16/tf32 GEMMs) keeps one
// wgmma group in flight across K tiles: a tile's group is committed, then
// only the previous tile's is waited for (wait_group 1) and its slot
// released, so the pipe does not drain between tiles. After the loop the
// last group is waited for (wait_group 0) and its slot released before the
// epilogue reads the accumulator. Kernels that promote partial sums on the
// CUDA cores wait for each group (wait_group 0) before reading it.
// By default the results go out by TMA stores and the bf16 GEMM reads its
// MN-major B as it is; the OLD run pins the register stores and the
// transposed copy of B (sm90-tma-store=0 sm90-mn-major-operands=0).
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=PTXAS --input-file=%t/fp8_kernels.ptxas.log
// RUN: not grep -E "[1-9][0-9]* bytes spill|C7515|serializ" %t/fp8_kernels.ptxas.log
// RUN: rm -rf %t.old && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a sm90-tma-store=0 sm90-mn-major-operands=0 artifacts=%t.old" -o /dev/null
// RUN: FileCheck %s --check-prefix=OLD --input-file=%t.old/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=OLDPTXAS --input-file=%t.old/fp8_kernels.ptxas.log
// RUN: not grep -E "[1-9][0-9]* bytes spill|C7515|serializ" %t.old/fp8_kernels.ptxas.log

// CHECK-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p0_tma_128x128_s6(
// CHECK:       mbarrier.try_wait.parity.shared.b64
// CHECK:       wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK:       wgmma.commit_group.sync.aligned;
// CHECK-NEXT:  wgmma.wait_group.sync.aligned 1;
// CHECK-NOT:   add.rn.f32
// CHECK:       mbarrier.arrive.shared.b64
// CHECK:       wgmma.wait_group.sync.aligned 0;
// CHECK-NOT:   wgmma.mma_async
// CHECK:       mbarrier.arrive.shared.b64
// CHECK:       cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// OLD-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p0_128x128_s7(
// OLD:       wgmma.wait_group.sync.aligned 0;
// OLD-NOT:   wgmma.mma_async
// OLD:       mbarrier.arrive.shared.b64
// OLD:       st.global
func.func @tensor_p0(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs promote_interval(0) : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

// CHECK-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_tma_128x128_s6(
// CHECK-NOT:   wgmma.wait_group.sync.aligned 1;
// CHECK:       add.rn.f32
// CHECK-NOT:   wgmma.wait_group.sync.aligned 1;
// CHECK:       wgmma.commit_group.sync.aligned;
// CHECK-NEXT:  wgmma.wait_group.sync.aligned 0;
// CHECK-NOT:   wgmma.wait_group.sync.aligned 1;
// CHECK-NOT:   .entry fp8_layout_transpose
func.func @tensor_p4(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs promote_interval(4) : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

// CHECK-LABEL: .entry gemm_sm90a_bf16_f32_mnb_tma_128x128_s{{[0-9]+}}(
// CHECK:       wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK:       wgmma.commit_group.sync.aligned;
// CHECK-NEXT:  wgmma.wait_group.sync.aligned 1;
// CHECK:       mbarrier.arrive.shared.b64
// CHECK:       wgmma.wait_group.sync.aligned 0;
// CHECK:       cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// OLD-LABEL: .entry fp8_layout_transpose
// OLD-LABEL: .entry gemm_sm90a_bf16_f32_128x128_s{{[0-9]+}}(
// OLD:       wgmma.fence.sync.aligned;
// OLD-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// OLD:       wgmma.commit_group.sync.aligned;
// OLD-NEXT:  wgmma.wait_group.sync.aligned 1;
// OLD:       mbarrier.arrive.shared.b64
// OLD:       wgmma.wait_group.sync.aligned 0;
// OLD:       st.global
func.func @matmul_bf16(%a: tensor<256x128xbf16>, %b: tensor<128x256xbf16>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %c = linalg.matmul ins(%a, %b : tensor<256x128xbf16>, tensor<128x256xbf16>) outs(%init : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %c : tensor<256x256xf32>
}

// The TMA stores' named barriers take an ID in a register: ptxas reserves
// all 16.
// PTXAS-DAG: Used {{[0-9]+}} registers, used 16 barriers
// OLDPTXAS-DAG: Used {{[0-9]+}} registers, used 1 barriers
