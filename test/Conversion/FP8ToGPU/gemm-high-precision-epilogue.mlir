// The elementwise consumer of a high-precision contraction's product runs in
// the GEMM's epilogue, as fp8.scaled_matmul's epilogue region does: one
// launch, the product never stored, the consumer without a kernel. Each
// decision is a remark. The zero fill the contraction accumulates into has
// no kernel either. The results are stored by TMA (sm90-tma-store, on by
// default); the REGS lines check the launches that store them from
// registers (sm90-tma-store=0).
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t/sm90" -o /dev/null
// RUN: FileCheck %s --check-prefix=SM90 --input-file=%t/sm90/fp8_kernels.ptx
// RUN: fp8-opt %s --fp8-gpu-pipeline="chip=sm_100a artifacts=%t/sm100" -o /dev/null
// RUN: FileCheck %s --check-prefix=SM100 --input-file=%t/sm100/fp8_kernels.ptx
// RUN: %if ptxas %{ not grep -E "[1-9][0-9]* bytes (spill|stack)" %t/sm90/fp8_kernels.ptxas.log %t/sm100/fp8_kernels.ptxas.log %}
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_90a | FileCheck %s --check-prefix=PLAN
// RUN: fp8-opt %s --convert-fp8-to-gpu="chip=sm_90a sm90-tma-store=0" | FileCheck %s --check-prefix=REGS
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_90a -remarks-filter=fp8-gpu -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK

// The epilogue knows the element's row and column, not which matrix of the
// batch it is in.
// REMARK: remark: [Missed] epilogue-not-fused | Category:fp8-gpu | Function=batched_batch_index | Remark="linalg.batch_matmul: nothing fused into its epilogue: 'linalg.generic' reads the batch index"
func.func @batched_batch_index(%a: tensor<2x128x64xbf16>, %b: tensor<2x64x64xbf16>) -> tensor<2x128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x128x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x128x64xf32>) -> tensor<2x128x64xf32>
  %p = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] ins(%a, %b : tensor<2x128x64xbf16>, tensor<2x64x64xbf16>) outs(%init : tensor<2x128x64xf32>) -> tensor<2x128x64xf32>
  %o = tensor.empty() : tensor<2x128x64xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%p : tensor<2x128x64xf32>) outs(%o : tensor<2x128x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %b0 = linalg.index 0 : index
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %b0, %c0 : index
    %z = arith.constant 0.000000e+00 : f32
    %r = arith.select %first, %z, %in : f32
    linalg.yield %r : f32
  } -> tensor<2x128x64xf32>
  return %y : tensor<2x128x64xf32>
}

// A batch's epilogue reads scalars only: a per-matrix input keeps the
// consumer a kernel of its own, and the GEMM writes the f32 product.
// PLAN-LABEL: batched_matrix_input = {buffers
// PLAN-SAME: kernel = "gemm_sm90a_batched_bf16_f32_tma_128x64_s8"
// PLAN-SAME: kernel = "fp8_elementwise_2x128x64_
// REMARK: remark: [Missed] epilogue-not-fused | Category:fp8-gpu | Function=batched_matrix_input | Remark="linalg.batch_matmul: nothing fused into its epilogue: the epilogue of a batch of GEMMs reads scalars only"
func.func @batched_matrix_input(%a: tensor<2x128x64xbf16>, %b: tensor<2x64x64xbf16>, %mask: tensor<2x128x64xbf16>) -> tensor<2x128x64xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x128x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x128x64xf32>) -> tensor<2x128x64xf32>
  %p = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] ins(%a, %b : tensor<2x128x64xbf16>, tensor<2x64x64xbf16>) outs(%init : tensor<2x128x64xf32>) -> tensor<2x128x64xf32>
  %o = tensor.empty() : tensor<2x128x64xbf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%p, %mask : tensor<2x128x64xf32>, tensor<2x128x64xbf16>) outs(%o : tensor<2x128x64xbf16>) {
  ^bb0(%in: f32, %m: bf16, %out: bf16):
    %mf = arith.extf %m : bf16 to f32
    %s = arith.addf %in, %mf : f32
    %r = arith.truncf %s : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<2x128x64xbf16>
  return %y : tensor<2x128x64xbf16>
}

// A causal mask reads the element's row and column (its loop indices): the
// epilogue compares the column with the row and selects -1e4 above the
// diagonal.
// PLAN-LABEL: indices = {buffers
// PLAN-SAME: kernel = "gemm_sm90a_bf16_f32_epif32_{{[0-9a-f]+}}_tma_128x64_s8"
// PLAN-NOT: kernel = "fp8_elementwise
// PLAN-SAME: workspace_bytes
// REMARK: remark: [Passed] epilogue-fused | Category:fp8-gpu | Function=indices | Remark="linalg.generic fused into the epilogue of linalg.matmul"
// SM90-LABEL: .entry gemm_sm90a_bf16_f32_epif32_{{[0-9a-f]+}}_tma_128x64_s8(
// SM90: setp.gt.u32 [[ABOVE:%p[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}};
// SM90-NEXT: selp.f32 {{%r[0-9]+}}, 0fC61C4000, {{%r[0-9]+}}, [[ABOVE]];
func.func @indices(%x: tensor<128x64xbf16>, %w: tensor<64x64xbf16>) -> tensor<128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
  %p = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w : tensor<128x64xbf16>, tensor<64x64xbf16>) outs(%init : tensor<128x64xf32>) -> tensor<128x64xf32>
  %o = tensor.empty() : tensor<128x64xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p : tensor<128x64xf32>) outs(%o : tensor<128x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %above = arith.cmpi ugt, %j, %i : index
    %ninf = arith.constant -1.000000e+04 : f32
    %r = arith.select %above, %ninf, %in : f32
    linalg.yield %r : f32
  } -> tensor<128x64xf32>
  return %y : tensor<128x64xf32>
}

// A linear layer in bf16: the bias, a column vector, is the epilogue's one
// input, the last parameter (buffer 2). The output (buffer 3) is a tensor
// map of its bytes for the TMA store, or a buffer without it.
// PLAN-LABEL: linear = {buffers
// PLAN-SAME: kernel = "gemm_sm90a_bf16_bf16_epif32_{{[0-9a-f]+}}_tma_128x128_s6"
// PLAN-SAME: {box = [128, 64], buffer = 3 : i64, dims = [512, 128], dtype = "uint8", kind = "tensor_map", strides = [512], swizzle = "128B"}, {kind = "i32", value = 128 : i64}, {kind = "i32", value = 256 : i64}, {kind = "i32", value = 64 : i64}, {buffer = 2 : i64, kind = "buffer"}]
// PLAN-NOT: kernel = "fp8_elementwise
// PLAN-SAME: workspace_bytes
// REGS-LABEL: linear = {buffers
// REGS-SAME: kernel = "gemm_sm90a_bf16_bf16_epif32_{{[0-9a-f]+}}_128x128_s7"
// REGS-SAME: {buffer = 3 : i64, kind = "buffer"}, {kind = "i32", value = 128 : i64}, {kind = "i32", value = 256 : i64}, {kind = "i32", value = 64 : i64}, {buffer = 2 : i64, kind = "buffer"}]
// REMARK: remark: [Passed] epilogue-fused | Category:fp8-gpu | Function=linear | Remark="linalg.generic fused into the epilogue of linalg.matmul"
func.func @linear(%x: tensor<128x64xbf16>, %w: tensor<256x64xbf16>, %bias: tensor<256xbf16>) -> tensor<128x256xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  %p = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w : tensor<128x64xbf16>, tensor<256x64xbf16>) outs(%init : tensor<128x256xf32>) -> tensor<128x256xf32>
  %o = tensor.empty() : tensor<128x256xbf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p, %bias : tensor<128x256xf32>, tensor<256xbf16>) outs(%o : tensor<128x256xbf16>) {
  ^bb0(%in: f32, %b: bf16, %out: bf16):
    %bf = arith.extf %b : bf16 to f32
    %s = arith.addf %in, %bf : f32
    %r = arith.truncf %s : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<128x256xbf16>
  return %y : tensor<128x256xbf16>
}

// Attention's scores in bf16: the f32 product scaled by 1/8 and rounded to
// bf16 in the epilogue of the batched GEMM; its parameters end with the
// output (buffer 2: a 3-D tensor map for the TMA store, or a buffer without
// it), M, N, K and the batch.
// PLAN-LABEL: scores = {buffers
// PLAN-SAME: {bytes = 76800 : i64, id = 2 : i64, index = 0 : i64, kind = "output", type = tensor<4x100x96xbf16>}]
// PLAN-SAME: launches = [{block = [384, 1, 1], cluster = [1, 1, 1], grid = [4, 1, 1], kernel = "gemm_sm90a_batched_bf16_bf16_epif32_{{[0-9a-f]+}}_tma_128x128_s6"
// PLAN-SAME: {box = [128, 64, 1], buffer = 2 : i64, dims = [192, 100, 4], dtype = "uint8", kind = "tensor_map", strides = [192, 19200], swizzle = "128B"}, {kind = "i32", value = 100 : i64}, {kind = "i32", value = 96 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 4 : i64}], persistent = true, shared_bytes = {{[0-9]+}} : i64}], workspace_bytes = 0 : i64}
// REGS-LABEL: scores = {buffers
// REGS-SAME: {bytes = 76800 : i64, id = 2 : i64, index = 0 : i64, kind = "output", type = tensor<4x100x96xbf16>}]
// REGS-SAME: launches = [{block = [384, 1, 1], cluster = [1, 1, 1], grid = [4, 1, 1], kernel = "gemm_sm90a_batched_bf16_bf16_epif32_{{[0-9a-f]+}}_128x128_s7"
// REGS-SAME: {buffer = 2 : i64, kind = "buffer"}, {kind = "i32", value = 100 : i64}, {kind = "i32", value = 96 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 4 : i64}], persistent = true, shared_bytes = {{[0-9]+}} : i64}], workspace_bytes = 0 : i64}
// REMARK: remark: [Passed] epilogue-fused | Category:fp8-gpu | Function=scores | Remark="linalg.generic fused into the epilogue of linalg.batch_matmul"
// SM90-LABEL: .entry gemm_sm90a_batched_bf16_bf16_epif32_{{[0-9a-f]+}}_tma_128x128_s6(
// SM90: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// SM90: mul.rn.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0f3E000000;
// SM90: cvt.rn.bf16x2.f32
// SM100-LABEL: .entry gemm_sm100a_batched_bf16_bf16_epif32_{{[0-9a-f]+}}_128x128_s{{[0-9]+}}(
// SM100: .maxnreg 255
// SM100: tcgen05.mma.cta_group::1.kind::f16
func.func @scores(%q: tensor<4x100x64xbf16>, %k: tensor<4x96x64xbf16>) -> tensor<4x100x96xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x100x96xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x100x96xf32>) -> tensor<4x100x96xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] ins(%q, %k : tensor<4x100x64xbf16>, tensor<4x96x64xbf16>) outs(%init : tensor<4x100x96xf32>) -> tensor<4x100x96xf32>
  %o = tensor.empty() : tensor<4x100x96xbf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<4x100x96xf32>) outs(%o : tensor<4x100x96xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %c = arith.constant 1.250000e-01 : f32
    %m = arith.mulf %in, %c : f32
    %r = arith.truncf %m : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<4x100x96xbf16>
  return %y : tensor<4x100x96xbf16>
}

// REMARK: remark: [Missed] epilogue-not-fused | Category:fp8-gpu | Function=two_readers | Remark="linalg.matmul: nothing fused into its epilogue: its product has 2 readers"
func.func @two_readers(%x: tensor<128x64xbf16>, %w: tensor<64x64xbf16>) -> (tensor<128x64xf32>, tensor<128x64xbf16>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
  %p = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w : tensor<128x64xbf16>, tensor<64x64xbf16>) outs(%init : tensor<128x64xf32>) -> tensor<128x64xf32>
  %o = tensor.empty() : tensor<128x64xbf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p : tensor<128x64xf32>) outs(%o : tensor<128x64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %r = arith.truncf %in : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<128x64xbf16>
  return %p, %y : tensor<128x64xf32>, tensor<128x64xbf16>
}

// The GEMM runs where the contraction is: an input of the consumer that is
// computed after it (here the bias, scaled) is not ready then.
// REMARK: remark: [Missed] epilogue-not-fused | Category:fp8-gpu | Function=z_late_input | Remark="linalg.matmul: nothing fused into its epilogue: 'linalg.generic' reads a value computed after the contraction"
func.func @z_late_input(%x: tensor<128x64xbf16>, %w: tensor<64x64xbf16>, %bias: tensor<64xf32>) -> tensor<128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
  %p = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w : tensor<128x64xbf16>, tensor<64x64xbf16>) outs(%init : tensor<128x64xf32>) -> tensor<128x64xf32>
  %eb = tensor.empty() : tensor<64xf32>
  %b2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%bias : tensor<64xf32>) outs(%eb : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %two = arith.constant 2.000000e+00 : f32
    %r = arith.mulf %in, %two : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %o = tensor.empty() : tensor<128x64xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p, %b2 : tensor<128x64xf32>, tensor<64xf32>) outs(%o : tensor<128x64xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    linalg.yield %s : f32
  } -> tensor<128x64xf32>
  return %y : tensor<128x64xf32>
}
