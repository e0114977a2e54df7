// sm90-head-major-results: an sm_90a GEMM whose [M, N] result attention
// splits into heads (tensor.expand_shape to [M, H, D], read only by a
// linalg.transpose to [H, M, D]) stores it head-major from its epilogue:
// element (m, n) at ((n / D) M + m) D + n mod D, into the transpose's
// buffer, and the transpose has no layout kernel. Any other reader, another
// permutation, an odd D, a batch or sm_100a keeps the row-major result and
// the copy; so does every GEMM with the option off (it is on by default).
// The PLAN and CHECK lines store the results from registers
// (sm90-tma-store=0); the TMA lines by TMA, the default.
// RUN: fp8-opt %s --convert-fp8-to-gpu="chip=sm_90a sm90-head-major-results=1" -remarks-filter=fp8-gpu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: fp8-opt %s --convert-fp8-to-gpu="chip=sm_90a sm90-head-major-results=1 sm90-tma-store=0" | FileCheck %s --check-prefix=PLAN
// RUN: fp8-opt %s --convert-fp8-to-gpu="chip=sm_90a sm90-head-major-results=0" | FileCheck %s --check-prefix=OFF
// RUN: fp8-opt %s --convert-fp8-to-gpu="chip=sm_100a sm90-head-major-results=1" | FileCheck %s --check-prefix=OFF
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t sm90-head-major-results=1 sm90-tma-store=0" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: not grep -E "[1-9][0-9]* bytes (stack frame|spill)" %t/fp8_kernels.ptxas.log
// With sm90-tma-store the heads are copied out with a 3-D tensor map of
// [H, M, D] (rows of D elements, M rows a head), each 128-byte box in its
// head. Both options are on by default.
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_90a | FileCheck %s --check-prefix=TMA
// RUN: fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t/tma sm90-head-major-results=1 sm90-tma-store=1" -o /dev/null
// RUN: FileCheck %s --check-prefix=TMA-PTX --input-file=%t/tma/fp8_kernels.ptx
// RUN: not grep -E "[1-9][0-9]* bytes (stack frame|spill)" %t/tma/fp8_kernels.ptxas.log
// TMA-LABEL: split_heads = {buffers
// TMA-SAME: kernel = "gemm_sm90a_bf16_bf16_h64_tma_128x128_s6"
// TMA-SAME: {box = [128, 64, 1], buffer = 2 : i64, dims = [128, 128, 4], dtype = "uint8", kind = "tensor_map", strides = [128, 16384], swizzle = "128B"}
// TMA-PTX-LABEL: .entry gemm_sm90a_bf16_bf16_h64_tma_128x128_s6(
// TMA-PTX-COUNT-2: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group
// RUN: fp8-opt %fp8_src_root/examples/gpt2/gpt2_layer.mlir --fp8-autocast=recipe=tensor-current --fp8-gpu-pipeline="chip=sm_90a artifacts=%t/gpt2 sm90-head-major-results=1" -o /dev/null -remarks-filter=fp8-gpu 2>&1 | FileCheck %s --check-prefix=GPT2
// RUN: not grep -E "[1-9][0-9]* bytes (stack frame|spill)" %t/gpt2/fp8_kernels.ptxas.log

// The GPT-2 layer: the FP8 Q, K and V projections (bias epilogues, f32
// results) store heads of 32 in the forward, and again in the backward's
// recomputation of the forward.
// GPT2-COUNT-3: Function=gpt2_layer_forward | Remark="fp8.scaled_matmul stores its result split into heads of 32
// GPT2-COUNT-3: Function=gpt2_layer_backward | Remark="fp8.scaled_matmul stores its result split into heads of 32

// REMARK-DAG: remark: [Passed] head-major-result | Category:fp8-gpu | Function=split_heads | Remark="linalg.matmul stores its result split into heads of 64 ([H, M, D]): the transpose has no layout kernel"
// REMARK-NOT: Function=read_twice {{.*}}head-major
// REMARK-NOT: Function=other_permutation {{.*}}head-major

// The plans, in the order of the functions' names. other_permutation and
// read_twice keep their copies; split_heads writes buffer 2, the function's
// [4, 128, 64] result, with no other launch.
// PLAN-LABEL: other_permutation = {buffers
// PLAN-SAME: kernel = "gemm_sm90a_bf16_bf16_128x128_s7"
// PLAN-SAME: kernel = "fp8_layout_
// PLAN-LABEL: read_twice = {buffers
// PLAN-SAME: kernel = "gemm_sm90a_bf16_bf16_128x128_s7"
// PLAN-SAME: kernel = "fp8_layout_
// PLAN-LABEL: split_heads = {buffers
// PLAN-SAME: launches = [{block = [384, 1, 1], cluster = [1, 1, 1], grid = [2, 1, 1], kernel = "gemm_sm90a_bf16_bf16_h64_128x128_s7"
// PLAN-SAME: {buffer = 2 : i64, kind = "buffer"}
// PLAN-NOT: kernel =
// PLAN-SAME: workspace_bytes
// OFF-LABEL: split_heads = {buffers
// OFF-SAME: kernel = "fp8_layout_

// The store of a pair: (head M + row) rows of 64 elements of 2 bytes (a
// shift by 7) from the column's place in its head.
// CHECK-LABEL: .entry gemm_sm90a_bf16_bf16_h64_128x128_s7(
// CHECK: cvt.rn.bf16x2.f32 [[PAIR:%r[0-9]+]]
// CHECK-NEXT: cvt.u64.u32 [[HEAD64:%rd[0-9]+]], %r{{[0-9]+}};
// CHECK-NEXT: mad.lo.s64 [[ROWS:%rd[0-9]+]], [[HEAD64]], %rd{{[0-9]+}}, %rd{{[0-9]+}};
// CHECK-NEXT: shl.b64 [[BYTES:%rd[0-9]+]], [[ROWS]], 7;
// CHECK-NEXT: add.s64 [[ADDRESS:%rd[0-9]+]], %rd{{[0-9]+}}, [[BYTES]];
// CHECK-NEXT: st.global.b32 {{\[}}[[ADDRESS]]{{\]}}, [[PAIR]];
// CHECK-LABEL: .entry
func.func @split_heads(%a: tensor<128x64xbf16>, %b: tensor<256x64xbf16>) -> tensor<4x128x64xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<128x256xbf16>
  %init = linalg.fill ins(%zero : bf16) outs(%e : tensor<128x256xbf16>) -> tensor<128x256xbf16>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : tensor<128x64xbf16>, tensor<256x64xbf16>) outs(%init : tensor<128x256xbf16>) -> tensor<128x256xbf16>
  %x = tensor.expand_shape %c [[0], [1, 2]] output_shape [128, 4, 64] : tensor<128x256xbf16> into tensor<128x4x64xbf16>
  %t = tensor.empty() : tensor<4x128x64xbf16>
  %h = linalg.transpose ins(%x : tensor<128x4x64xbf16>) outs(%t : tensor<4x128x64xbf16>) permutation = [1, 0, 2]
  return %h : tensor<4x128x64xbf16>
}

// The product is also returned as it is: it stays row-major.
func.func @read_twice(%a: tensor<128x64xbf16>, %b: tensor<256x64xbf16>) -> (tensor<4x128x64xbf16>, tensor<128x256xbf16>) {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<128x256xbf16>
  %init = linalg.fill ins(%zero : bf16) outs(%e : tensor<128x256xbf16>) -> tensor<128x256xbf16>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : tensor<128x64xbf16>, tensor<256x64xbf16>) outs(%init : tensor<128x256xbf16>) -> tensor<128x256xbf16>
  %x = tensor.expand_shape %c [[0], [1, 2]] output_shape [128, 4, 64] : tensor<128x256xbf16> into tensor<128x4x64xbf16>
  %t = tensor.empty() : tensor<4x128x64xbf16>
  %h = linalg.transpose ins(%x : tensor<128x4x64xbf16>) outs(%t : tensor<4x128x64xbf16>) permutation = [1, 0, 2]
  return %h, %c : tensor<4x128x64xbf16>, tensor<128x256xbf16>
}

// [H, D, M] is not the heads' layout.
func.func @other_permutation(%a: tensor<128x64xbf16>, %b: tensor<256x64xbf16>) -> tensor<4x64x128xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<128x256xbf16>
  %init = linalg.fill ins(%zero : bf16) outs(%e : tensor<128x256xbf16>) -> tensor<128x256xbf16>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : tensor<128x64xbf16>, tensor<256x64xbf16>) outs(%init : tensor<128x256xbf16>) -> tensor<128x256xbf16>
  %x = tensor.expand_shape %c [[0], [1, 2]] output_shape [128, 4, 64] : tensor<128x256xbf16> into tensor<128x4x64xbf16>
  %t = tensor.empty() : tensor<4x64x128xbf16>
  %h = linalg.transpose ins(%x : tensor<128x4x64xbf16>) outs(%t : tensor<4x64x128xbf16>) permutation = [1, 2, 0]
  return %h : tensor<4x64x128xbf16>
}
