// sm90-head-major-results, the other way: an sm_90a batch of GEMMs whose
// [H, M, D] result is only merged back into rows (a linalg.transpose to
// [M, H, D], as attention's context and its Q, K and V gradients are)
// stores it so from its epilogue: element (h, m, d) at (m H + h) D + d,
// into the transpose's buffer, and the transpose has no layout kernel.
// Another reader, another permutation, sm_100a and the option off keep the
// [H, M, D] result and the copy. The PLAN and CHECK lines store from
// registers (sm90-tma-store=0); the TMA lines by TMA, the default.
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_90a -remarks-filter=fp8-gpu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: fp8-opt %s --convert-fp8-to-gpu="chip=sm_90a sm90-tma-store=0" | FileCheck %s --check-prefix=PLAN
// RUN: fp8-opt %s --convert-fp8-to-gpu="chip=sm_90a sm90-head-major-results=0" | FileCheck %s --check-prefix=OFF
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_100a | FileCheck %s --check-prefix=OFF
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t sm90-tma-store=0" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: not grep -E "[1-9][0-9]* bytes (stack frame|spill)" %t/fp8_kernels.ptxas.log
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_90a | FileCheck %s --check-prefix=TMA
// RUN: fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t/tma" -o /dev/null
// RUN: FileCheck %s --check-prefix=TMA-PTX --input-file=%t/tma/fp8_kernels.ptx
// RUN: not grep -E "[1-9][0-9]* bytes (stack frame|spill)" %t/tma/fp8_kernels.ptxas.log
// RUN: fp8-opt %fp8_src_root/examples/gpt2/gpt2_layer.mlir --fp8-autocast=recipe=tensor-current --fp8-gpu-pipeline="chip=sm_90a artifacts=%t/gpt2" -o /dev/null -remarks-filter=fp8-gpu 2>&1 | FileCheck %s --check-prefix=GPT2
// RUN: not grep -E "[1-9][0-9]* bytes (stack frame|spill)" %t/gpt2/fp8_kernels.ptxas.log

// The GPT-2 layer: the context (a bf16 batch of GEMMs with a truncation
// epilogue, which fp8-propagate-scales leaves above its per-tensor
// quantization) in the forward and in the backward's recomputation, and
// the backward's query, key and value gradients, which their bias
// gradients and quantizations read token-major.
// GPT2-COUNT-1: [Passed] token-major-result | Category:fp8-gpu | Function=gpt2_layer_forward | Remark="linalg.batch_matmul stores the rows of its 4 matrices merged ([M, H, D]): the transpose has no layout kernel"
// GPT2-COUNT-4: [Passed] token-major-result | Category:fp8-gpu | Function=gpt2_layer_backward | Remark="linalg.batch_matmul stores the rows of its 4 matrices merged ([M, H, D]): the transpose has no layout kernel"
// GPT2-NOT: token-major-result

// REMARK-DAG: remark: [Passed] token-major-result | Category:fp8-gpu | Function=merge_heads | Remark="linalg.batch_matmul stores the rows of its 4 matrices merged ([M, H, D]): the transpose has no layout kernel"
// REMARK-NOT: Function=other_permutation {{.*}}token-major
// REMARK-NOT: Function=read_twice {{.*}}token-major

// The plans, in the order of the functions' names. merge_heads writes
// buffer 2, the function's [128, 256] result, with no other launch.
// PLAN-LABEL: merge_heads = {buffers
// PLAN-SAME: launches = [{block = [384, 1, 1], cluster = [1, 1, 1], grid = [4, 1, 1], kernel = "gemm_sm90a_batched_bf16_bf16_epif32_{{[0-9a-f]+}}_mnb_mb_128x64_s8"
// PLAN-SAME: {buffer = 2 : i64, kind = "buffer"}, {kind = "i32", value = 128 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 4 : i64}]
// PLAN-NOT: kernel =
// PLAN-SAME: workspace_bytes
// PLAN-LABEL: other_permutation = {buffers
// PLAN-SAME: kernel = "gemm_sm90a_batched_bf16_bf16_epif32_{{[0-9a-f]+}}_mnb_128x64_s8"
// PLAN-SAME: kernel = "fp8_layout_
// PLAN-LABEL: read_twice = {buffers
// PLAN-SAME: kernel = "gemm_sm90a_batched_bf16_bf16_epif32_{{[0-9a-f]+}}_mnb_128x64_s8"
// PLAN-SAME: kernel = "fp8_layout_
// OFF-LABEL: merge_heads = {buffers
// OFF-NOT: _mb_
// OFF-SAME: kernel = "fp8_layout_

// By TMA, through a 3-D map of [M, H, D] (rows of D elements, H rows a token),
// each 128-byte box one row of a head's 64-row tile, at (bytes, head, row).
// TMA-LABEL: merge_heads = {buffers
// TMA-SAME: kernel = "gemm_sm90a_batched_bf16_bf16_epif32_{{[0-9a-f]+}}_mnb_mb_tma_128x64_s8"
// TMA-SAME: {box = [128, 1, 64], buffer = 2 : i64, dims = [128, 4, 128], dtype = "uint8", kind = "tensor_map", strides = [128, 512], swizzle = "128B"}
// TMA-PTX-LABEL: .entry gemm_sm90a_batched_bf16_bf16_epif32_{{[0-9a-f]+}}_mnb_mb_tma_128x64_s8(
// TMA-PTX: div.u32 [[BATCH:%r[0-9]+]],
// TMA-PTX: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}}, [[BATCH]], %r{{[0-9]+}}}]

// The store of a pair: rows Batches x N elements apart, from the matrix's
// first row (its batch index times N elements past the result's start).
// CHECK-LABEL: .entry gemm_sm90a_batched_bf16_bf16_epif32_{{[0-9a-f]+}}_mnb_mb_128x64_s8(
// CHECK-DAG: ld.param.b32 [[BATCHES:%r[0-9]+]], [{{.*}}_param_6];
// CHECK-DAG: ld.param.b32 [[N:%r[0-9]+]], [{{.*}}_param_4];
// CHECK-DAG: ld.param.b64 [[OUT:%rd[0-9]+]], [{{.*}}_param_2];
// CHECK-DAG: mul.wide.u32 [[ROWBYTES:%rd[0-9]+]], [[N]], 2;
// CHECK-DAG: mul.wide.u32 [[PITCH:%rd[0-9]+]], [[BATCHES]], [[N]];
// CHECK: mad.lo.s64 [[BASE:%rd[0-9]+]], [[ROWBYTES]], %rd{{[0-9]+}}, [[OUT]];
// CHECK: cvt.rn.bf16x2.f32 [[PAIR:%r[0-9]+]]
// CHECK-NEXT: mad.lo.s64 [[ELEMENTS:%rd[0-9]+]], [[PITCH]], %rd{{[0-9]+}}, %rd{{[0-9]+}};
// CHECK-NEXT: shl.b64 [[BYTES:%rd[0-9]+]], [[ELEMENTS]], 1;
// CHECK-NEXT: add.s64 [[ADDRESS:%rd[0-9]+]], [[BASE]], [[BYTES]];
// CHECK-NEXT: st.global.b32 {{\[}}[[ADDRESS]]{{\]}}, [[PAIR]];

#trunc = affine_map<(b, m, n) -> (b, m, n)>

func.func @merge_heads(%a: tensor<4x128x64xbf16>, %b: tensor<4x64x64xbf16>) -> tensor<128x256xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x128x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
  %c = linalg.batch_matmul ins(%a, %b : tensor<4x128x64xbf16>, tensor<4x64x64xbf16>) outs(%init : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
  %e16 = tensor.empty() : tensor<4x128x64xbf16>
  %r = linalg.generic {indexing_maps = [#trunc, #trunc], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c : tensor<4x128x64xf32>) outs(%e16 : tensor<4x128x64xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %y = arith.truncf %x : f32 to bf16
    linalg.yield %y : bf16
  } -> tensor<4x128x64xbf16>
  %t = tensor.empty() : tensor<128x4x64xbf16>
  %h = linalg.transpose ins(%r : tensor<4x128x64xbf16>) outs(%t : tensor<128x4x64xbf16>) permutation = [1, 0, 2]
  %m = tensor.collapse_shape %h [[0], [1, 2]] : tensor<128x4x64xbf16> into tensor<128x256xbf16>
  return %m : tensor<128x256xbf16>
}

// [M, D, H] is not the merged layout.
func.func @other_permutation(%a: tensor<4x128x64xbf16>, %b: tensor<4x64x64xbf16>) -> tensor<128x64x4xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x128x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
  %c = linalg.batch_matmul ins(%a, %b : tensor<4x128x64xbf16>, tensor<4x64x64xbf16>) outs(%init : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
  %e16 = tensor.empty() : tensor<4x128x64xbf16>
  %r = linalg.generic {indexing_maps = [#trunc, #trunc], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c : tensor<4x128x64xf32>) outs(%e16 : tensor<4x128x64xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %y = arith.truncf %x : f32 to bf16
    linalg.yield %y : bf16
  } -> tensor<4x128x64xbf16>
  %t = tensor.empty() : tensor<128x64x4xbf16>
  %h = linalg.transpose ins(%r : tensor<4x128x64xbf16>) outs(%t : tensor<128x64x4xbf16>) permutation = [1, 2, 0]
  return %h : tensor<128x64x4xbf16>
}

// The heads are also returned as they are: they stay [H, M, D].
func.func @read_twice(%a: tensor<4x128x64xbf16>, %b: tensor<4x64x64xbf16>) -> (tensor<128x4x64xbf16>, tensor<4x128x64xbf16>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x128x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
  %c = linalg.batch_matmul ins(%a, %b : tensor<4x128x64xbf16>, tensor<4x64x64xbf16>) outs(%init : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
  %e16 = tensor.empty() : tensor<4x128x64xbf16>
  %r = linalg.generic {indexing_maps = [#trunc, #trunc], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c : tensor<4x128x64xf32>) outs(%e16 : tensor<4x128x64xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %y = arith.truncf %x : f32 to bf16
    linalg.yield %y : bf16
  } -> tensor<4x128x64xbf16>
  %t = tensor.empty() : tensor<128x4x64xbf16>
  %h = linalg.transpose ins(%r : tensor<4x128x64xbf16>) outs(%t : tensor<128x4x64xbf16>) permutation = [1, 0, 2]
  return %h, %r : tensor<128x4x64xbf16>, tensor<4x128x64xbf16>
}
