// The structure of the sm_90a GEMM kernels in PTX: TMA loads into the ring
// under mbarriers (the elected producer thread arms the full barrier with
// the tile's bytes; consumers wait on its phase), warp specialization with
// setmaxnreg, four wgmma m64nNk32 per 128-deep K tile with the operand
// formats, promotion into the f32 accumulator (add, or FFMA by block
// scales), and the epilogue's stores: by default into a shared-memory tile
// that TMA copies out (sm90-tma-store); the REG run pins the register-store
// path (sm90-tma-store=0), which stores from registers with st.global.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: not grep __nv_ %t/fp8_kernels.ptx
// RUN: rm -rf %t.reg && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a sm90-tma-store=0 artifacts=%t.reg ptxas=none" -o /dev/null
// RUN: FileCheck %s --check-prefix=REG --input-file=%t.reg/fp8_kernels.ptx
// RUN: not grep -e __nv_ -e cp.async.bulk.tensor.2d.global.shared %t.reg/fp8_kernels.ptx

// CHECK: .version 8.0
// CHECK: .target sm_90a
// CHECK: .extern .shared .align 1024 .b8 __fp8_dynamic_smem[];

// CHECK-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_tma_128x128_s6(
// CHECK-DAG: .param .align 64 .b8 fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_tma_128x128_s6_param_0[128]
// CHECK-DAG: .maxntid 384, 1, 1
// CHECK-DAG: .maxnreg 168
// CHECK-DAG: mbarrier.init.shared.b64
// CHECK-DAG: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK-DAG: elect.sync
// CHECK-DAG: mbarrier.arrive.expect_tx.shared.b64
// CHECK-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: mbarrier.try_wait.parity.shared.b64
// CHECK-DAG: wgmma.fence.sync.aligned;
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK-DAG: wgmma.commit_group.sync.aligned;
// CHECK-DAG: wgmma.wait_group.sync.aligned 0;
// CHECK-DAG: add.rn.f32
// CHECK-DAG: mbarrier.arrive.shared.b64
// CHECK-DAG: cvt.rn.bf16x2.f32
// CHECK-DAG: st.shared.b32
// CHECK-DAG: fence.proxy.async.shared::cta;
// CHECK-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group

// CHECK-LABEL: .entry fp8_gemm_sm90a_e5m2e4m3_f32_tensor_p0_tma_128x128_s5(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e5m2.e4m3
// CHECK-DAG: st.shared.v2.b32

// CHECK-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_rowcol_p4_biasbf16_tma_128x128_s6(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK-DAG: add.rn.f32

// DeepSeek: the partial sum of every 128-deep block is scaled and added.
// CHECK-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32sq_tma_128x128_s6(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK-DAG: fma.rn.f32

// 32-wide E8M0 blocks on 64-column tiles.
// CHECK-LABEL: .entry fp8_gemm_sm90a_e4m3e5m2_bf16_block32e8m0_tma_128x64_s8(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e5m2
// CHECK-DAG: fma.rn.f32

// FP8 results: fl32(v * out_scale) through cvt.rn.satfinite, 2-byte stores,
// and the amax of the f32 results folded in with one atomic per warp.
// CHECK-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_e4m3_tensor_p4_amax_tma_128x128_s6(
// CHECK-DAG: cvt.rn.satfinite.e4m3x2.f32
// CHECK-DAG: st.shared.b16
// CHECK-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: atom.global.max.u32

// The register-store path: one more pipeline stage, no TMA store, and the
// results stored to global memory from registers.
// REG-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_128x128_s7(
// REG-DAG: cvt.rn.bf16x2.f32
// REG-DAG: st.global.b32
// REG-LABEL: .entry fp8_gemm_sm90a_e5m2e4m3_f32_tensor_p0_128x128_s7(
// REG-DAG: st.global.v2.b32
// REG-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_e4m3_tensor_p4_amax_128x128_s7(
// REG-DAG: cvt.rn.satfinite.e4m3x2.f32
// REG-DAG: st.global.b16
// REG-DAG: shfl.sync.bfly.b32
// REG-DAG: atom.global.max.u32


func.func @tensor(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @tensor_e5m2_e4m3_f32_p0(%a: tensor<256x512xf8E5M2>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xf32> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs promote_interval(0) : tensor<256x512xf8E5M2>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xf32>
  return %c : tensor<256x384xf32>
}

func.func @rowwise_bias(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x1xf32>, %sb: tensor<384x1xf32>, %bias: tensor<384xbf16>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x*>, <1x*>) bias(%bias : tensor<384xbf16>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x1xf32>, tensor<384x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @deepseek(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x4xf32>, %sb: tensor<3x4xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x4xf32>, tensor<3x4xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @mx(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E5M2>, %sa: tensor<256x16xf8E8M0FNU>, %sb: tensor<384x16xf8E8M0FNU>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E5M2>, tensor<256x16xf8E8M0FNU>, tensor<384x16xf8E8M0FNU> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @fp8_out(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %s: tensor<1x1xf32>, %os: tensor<1x1xf32>) -> (tensor<256x384xf8E4M3FN>, tensor<1x1xf32>) {
  %c, %amax = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) out_scale(%os : tensor<1x1xf32>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xf8E4M3FN>, amax tensor<1x1xf32>
  return %c, %amax : tensor<256x384xf8E4M3FN>, tensor<1x1xf32>
}
