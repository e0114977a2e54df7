// The structure of the sm_100a GEMM kernels in PTX: tensor memory allocated
// by the MMA warp (and released), TMA loads into the ring under mbarriers,
// block scales bulk-copied next to the operands and moved to tensor memory
// with tcgen05.cp, tcgen05.mma of the kind the scaling needs issued by one
// elected thread, tcgen05.commit to the ring's and the accumulator's
// barriers, and the epilogue's tcgen05.ld + wait::ld and stores.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_100a artifacts=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST --input-file=%t/mx.json
// RUN: not grep __nv_ %t/fp8_kernels.ptx

// CHECK: .version 8.8
// CHECK: .target sm_100a

// Per-tensor scales: kind::f8f6f4, the scales in the epilogue.
// CHECK-LABEL: .entry fp8_gemm_sm100a_e4m3e4m3_bf16_tensor_128x128_s7(
// CHECK-DAG: .param .align 64 .b8 fp8_gemm_sm100a_e4m3e4m3_bf16_tensor_128x128_s7_param_0[128]
// CHECK-DAG: .maxntid 192, 1, 1
// CHECK-DAG: mbarrier.init.shared.b64
// CHECK-DAG: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32
// CHECK-DAG: tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
// CHECK-DAG: elect.sync
// CHECK-DAG: mbarrier.arrive.expect_tx.shared.b64
// CHECK-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: mbarrier.try_wait.parity.shared.b64
// CHECK-DAG: tcgen05.fence::after_thread_sync;
// CHECK-DAG: tcgen05.mma.cta_group::1.kind::f8f6f4
// CHECK-DAG: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// CHECK-DAG: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK-DAG: tcgen05.wait::ld.sync.aligned;
// CHECK-DAG: tcgen05.fence::before_thread_sync;
// CHECK-DAG: mbarrier.arrive.shared.b64
// CHECK-DAG: st.global.v4.b32
// CHECK-DAG: tcgen05.dealloc.cta_group::1.sync.aligned.b32
// CHECK-NOT: tcgen05.cp
// CHECK: ret;

// Row-wise scales and a bias, 64-column tiles for N = 48.
// CHECK-LABEL: .entry fp8_gemm_sm100a_e5m2e4m3_f32_rowcol_biasbf16_128x64_s8(
// CHECK-DAG: tcgen05.mma.cta_group::1.kind::f8f6f4
// CHECK-DAG: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK-DAG: st.global.v2.b64
// CHECK: ret;

// MXFP8: E8M0 scales every 32 elements, applied by the tensor cores.
// CHECK-LABEL: .entry fp8_gemm_sm100a_e4m3e5m2_bf16_block32e8m0_128x128_s6(
// CHECK-DAG: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK-DAG: tcgen05.cp.cta_group::1.32x128b.warpx4
// CHECK-DAG: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32
// CHECK-DAG: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// CHECK-DAG: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK: ret;

// Scales given as plain [rows, K / 32] tensors are staged into the layout the
// GEMM copies from.
// CHECK-LABEL: .entry fp8_scale_layout_sm100a(

// NVFP4: E2M1 x E2M1 with E4M3 scales every 16 elements, global scales in
// the epilogue.
// CHECK-LABEL: .entry fp8_gemm_sm100a_e2m1e2m1_f32_block16e4m3g_128x128_s6(
// CHECK-DAG: tcgen05.cp.cta_group::1.32x128b.warpx4
// CHECK-DAG: tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16
// CHECK-DAG: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK: ret;

// The manifest: the staged scale buffers and the GEMM's parameters.
// MANIFEST: "layout": "tcgen05_scale_factors"
// MANIFEST: "kernel": "fp8_scale_layout_sm100a"
// MANIFEST: "kernel": "fp8_scale_layout_sm100a"
// MANIFEST: "block": [
// MANIFEST-NEXT: 192,
// MANIFEST: "kernel": "fp8_gemm_sm100a_e4m3e5m2_bf16_block32e8m0_128x128_s6"
// MANIFEST: "persistent": true

func.func @tensor(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @rowwise_bias(%a: tensor<256x512xf8E5M2>, %b: tensor<48x512xf8E4M3FN>, %sa: tensor<256x1xf32>, %sb: tensor<48x1xf32>, %bias: tensor<48xbf16>) -> tensor<256x48xf32> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x*>, <1x*>) bias(%bias : tensor<48xbf16>) transpose_rhs : tensor<256x512xf8E5M2>, tensor<48x512xf8E4M3FN>, tensor<256x1xf32>, tensor<48x1xf32> -> tensor<256x48xf32>
  return %c : tensor<256x48xf32>
}

func.func @mx(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E5M2>, %sa: tensor<256x16xf8E8M0FNU>, %sb: tensor<384x16xf8E8M0FNU>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E5M2>, tensor<256x16xf8E8M0FNU>, tensor<384x16xf8E8M0FNU> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @nvfp4(%qa: tensor<256x512xf4E2M1FN>, %sa: tensor<256x32xf8E4M3FN>, %qb: tensor<384x512xf4E2M1FN>, %sb: tensor<24x32xf8E4M3FN>, %ga: tensor<1x1xf32>, %gb: tensor<1x1xf32>) -> tensor<256x384xf32> {
  %c = fp8.scaled_matmul %qa, %qb scales(%sa, %sb) by(<1x16>, <16x16>) lhs_global(%ga : tensor<1x1xf32>) rhs_global(%gb : tensor<1x1xf32>) transpose_rhs : tensor<256x512xf4E2M1FN>, tensor<384x512xf4E2M1FN>, tensor<256x32xf8E4M3FN>, tensor<24x32xf8E4M3FN> -> tensor<256x384xf32>
  return %c : tensor<256x384xf32>
}
