// The row-wise and column-wise copies of a dynamic_quantize come from one
// read of the input: one paired kernel when the tile holds both copies'
// blocks (32 x 128 tiles, or 128 x 128 for 128-row blocks), after one amax
// pass when a copy's blocks need the amax of whole rows, columns or the
// tensor. In a batch of matrices each matrix is a grid row (blockIdx.y) of
// the same kernels, whose copies each step to their matrix by their own
// strides; a copy whose matrices would fold into rows is quantized by
// matrix too, as its transposed partner is.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: not grep __nv_ %t/fp8_kernels.ptx
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_90a | FileCheck %s --check-prefix=PLAN
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_90a --remarks-filter=fp8-gpu \
// RUN:   --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK


// One read: four 32-row runs per thread (two 16-byte loads each, guarded
// scalars at ragged edges), all issued first and held as bf16 (128
// registers: two CTAs per SM), both copies' codes, and no amax atomics
// (QuantizeConfig::isRowColumnPair). A thread's magnitudes fold as bf16
// pairs (max.bf16x2: IEEE maxNum, which a NaN never wins, so NaNs are
// ignored without a test), its run's maximum in seven of them and the
// columns' in one per pair and sub-tile. A row's amax takes three shuffles
// among its eight lanes; a column's two among the four rows of a warp, then
// one exchange in shared memory; the transposed codes go through shared
// memory as words. Three barriers in all.
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b1x128_pow2_sat_fused_vs_pair_b128x1_fused_t_vs_r128_nanignore_vl(
// CHECK: .maxnreg 128
// CHECK-COUNT-8: ld.global.v4.b32
// CHECK-NOT: ld.global.v4
// CHECK-NOT: atom.global
// CHECK-NOT: setp.nan
// CHECK-COUNT-7: max.bf16x2
// CHECK-NOT: setp.nan
// CHECK-COUNT-3: shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// CHECK-NOT: bar.sync
// CHECK: shfl.sync.bfly.b32 {{.*}}, 8, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// CHECK: bar.sync
// CHECK: bar.sync
// CHECK: cvt.rn.satfinite.e4m3x2.f32
// CHECK: st.shared.v4.b32
// CHECK: bar.sync
// CHECK-NOT: bar.sync
// CHECK-COUNT-16: ld.shared.b32
// CHECK: st.global.v4.b32
// CHECK-NOT: bar.sync
// CHECK: ret;
// MXFP8's 1x32 with 32x1 (32-row tiles) is a row-column pair too: a row
// block's two lanes take one shuffle, 64 registers (four CTAs per SM), the
// transposed codes read back as bytes; three barriers. E8M0 multipliers
// are positive (or NaN, and then so is every product of the block): a
// code's sign is its input's, with no NaN test.
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b1x32_e8m0_rceil_sat_e8m0_fused_vs_pair_b32x1_fused_t_vs_r32_nanignore_vl(
// CHECK: .maxnreg 64
// CHECK-COUNT-2: ld.global.v4.b32
// CHECK-NOT: ld.global.v4
// CHECK-NOT: atom.global
// CHECK-NOT: setp.nan
// CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK-NOT: setp.nan
// CHECK-NOT: bar.sync
// CHECK: shfl.sync.bfly.b32 {{.*}}, 8, 31, -1;
// CHECK-COUNT-3: bar.sync
// CHECK-NOT: bar.sync
// CHECK-DAG: ld.shared.b8
// CHECK-DAG: st.global.b8
// CHECK: ret;
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b1x16_pow2_sat_fused_vs_pair_b16x1_fused_vs_r32_nanignore_vl(
// CHECK-NOT: atom.global
// Row and column amaxes from the same read, reduced in registers: a row's
// part by three shuffles among its eight lanes, a column's by two among the
// four rows of a warp, then across the warps in shared memory (the
// magnitudes themselves never go through shared memory). 40 registers: six
// CTAs per SM.
// CHECK-LABEL: .entry fp8_amax_bf16_b1x128_pair_b32x1_r32_nanignore_vl(
// CHECK: .maxnreg 40
// CHECK-COUNT-2: ld.global.v4.b32
// CHECK-NOT: ld.global.v4
// CHECK-NOT: st.shared.v4
// CHECK: shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK: atom.global.max.u32
// CHECK-COUNT-16: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// CHECK-COUNT-4: st.shared.v4.b32
// CHECK-NEXT: $L__
// CHECK-NEXT: bar.sync
// CHECK-COUNT-8: ld.shared.b32
// CHECK: atom.global.max.u32
// CHECK-NOT: st.shared.v4
// CHECK: ret;
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b1x128_ratio_sat_vs_pair_b32x1_t_vs_r32_nanignore_vl(
// CHECK-NOT: atom.global
// CHECK-LABEL: .entry fp8_amax_bf16_b32x128_nanignore_vl_gs(
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b32x128_ratio_sat_vs_pair_b32x128_t_vs_r32_nanignore_vl(
// Batched kernels are the kernels of one matrix whose buffers step to
// matrix blockIdx.y: the input, each copy's codes, and each copy's scales by
// its own stride (row-wise: parameter 9, column-wise: parameter 17).
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b1x32_e8m0_rceil_sat_e8m0_fused_vs_pair_b32x1_fused_t_vs_r32_nanignore_vl_batched(
// CHECK: .maxnreg 64
// CHECK: %ctaid.y
// CHECK-NOT: atom.global
// CHECK: ret;
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b1x128_pow2_sat_fused_vs_pair_b128x1_fused_t_r128_nanignore_vl_batched(
// CHECK: .maxnreg 128
// CHECK: mov.u32 [[MATRIX:%r[0-9]+]], %ctaid.y;
// CHECK-DAG: ld.param.b32 [[ROW_STRIDE:%r[0-9]+]], [{{[a-z0-9_]+}}_batched_param_9];
// CHECK-DAG: mul.wide.u32 %rd{{[0-9]+}}, [[ROW_STRIDE]], [[MATRIX]];
// CHECK-DAG: ld.param.b32 [[COLUMN_STRIDE:%r[0-9]+]], [{{[a-z0-9_]+}}_batched_param_17];
// CHECK-DAG: mul.wide.u32 %rd{{[0-9]+}}, [[COLUMN_STRIDE]], [[MATRIX]];
// CHECK-NOT: atom.global
// CHECK: ret;
// CHECK-LABEL: .entry fp8_amax_bf16_b1x128_nanignore_vl_batched(
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b1x128_ratio_sat_vs_pair_b128x1_fused_t_vs_r128_nanignore_vl_batched(
// CHECK-LABEL: .entry fp8_amax_bf16_b1x128_pair_b32x1_r32_nanignore_vl_batched(
// CHECK: %ctaid.y
// CHECK-COUNT-2: atom.global.max.u32
// CHECK: ret;
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b1x128_ratio_sat_vs_pair_b32x1_t_r32_nanignore_vl_batched(
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b128x128_pow2_sat_fused_vs_pair_b128x128_fused_t_r128_nanignore_vl(
// CHECK-NOT: atom.global
// CHECK-LABEL: .entry fp8_amax_bf16_b1x128_nanignore_vl(
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b1x128_ratio_sat_vs_pair_b128x1_fused_t_vs_r128_nanignore_vl(
// CHECK-NOT: atom.global
// CHECK-LABEL: .entry fp8_quantize_bf16_e4m3_b1x32_e8m0_rceil_sat_e8m0_fused_vs_pair_b32x1_fused_e5m2_t_vs_r32_nanignore_vl(
// CHECK-DAG: cvt.rn.satfinite.e4m3x2.f32
// CHECK-DAG: cvt.rn.satfinite.e5m2x2.f32

// Plans, by function name. A batch: one paired kernel, a grid row per
// matrix. The row-wise copy's 64 x 8 E8M0 scales are 512 bytes apart, and
// so are the column-wise copy's 2 x 256; neither has amaxes.
// PLAN-LABEL: batched = {buffers
// PLAN-SAME: launches = [{block = [256, 1, 1], cluster = [1, 1, 1], grid = [4, 2, 1], kernel = "fp8_quantize_bf16_e4m3_b1x32_e8m0_rceil_sat_e8m0_fused_vs_pair_b32x1_fused_t_vs_r32_nanignore_vl_batched", kind = "kernel", params = [{buffer = 0 : i64, kind = "buffer"}, {buffer = 0 : i64, kind = "buffer"}, {buffer = 1 : i64, kind = "buffer"}, {buffer = 2 : i64, kind = "buffer"}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 256 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 32 : i64}, {kind = "i32", value = 256 : i64}, {kind = "i32", value = 512 : i64}, {kind = "i32", value = 0 : i64}, {buffer = 0 : i64, kind = "buffer"}, {buffer = 3 : i64, kind = "buffer"}, {buffer = 4 : i64, kind = "buffer"}, {kind = "i32", value = 32 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 512 : i64}, {kind = "i32", value = 0 : i64}], persistent = false, shared_bytes = 21536 : i64}]
// DeepSeek's pair on 200-row matrices: two 128-row tiles per matrix (the
// second ragged), 200 row scales (800 bytes) and 2 x 128 column scales
// (1024 bytes) per matrix, the transposed rows of 200 codes unpadded (a
// result).
// PLAN-LABEL: batched_deepseek = {buffers
// PLAN-SAME: launches = [{block = [256, 1, 1], cluster = [1, 1, 1], grid = [2, 2, 1], kernel = "fp8_quantize_bf16_e4m3_b1x128_pow2_sat_fused_vs_pair_b128x1_fused_t_r128_nanignore_vl_batched", kind = "kernel", params = [{buffer = 0 : i64, kind = "buffer"}, {buffer = 0 : i64, kind = "buffer"}, {buffer = 1 : i64, kind = "buffer"}, {buffer = 2 : i64, kind = "buffer"}, {kind = "i32", value = 200 : i64}, {kind = "i32", value = 128 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 128 : i64}, {kind = "i32", value = 128 : i64}, {kind = "i32", value = 800 : i64}, {kind = "i32", value = 0 : i64}, {buffer = 0 : i64, kind = "buffer"}, {buffer = 3 : i64, kind = "buffer"}, {buffer = 4 : i64, kind = "buffer"}, {kind = "i32", value = 128 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 200 : i64}, {kind = "i32", value = 1024 : i64}, {kind = "i32", value = {{[0-9]+}} : i64}], persistent = false, shared_bytes = 21536 : i64}]
// Rows of 512 take the row-wise copy's amax kernel (each matrix's 64 row
// amaxes 256 bytes apart); columns of 64 lie inside a 128-row tile.
// PLAN-LABEL: batched_rowwise = {buffers
// PLAN-SAME: {bytes = 768 : i64, id = 5 : i64, kind = "temp", offset = 0 : i64, type = tensor<192x1xf32>}
// PLAN-SAME: launches = [{buffer = 5 : i64, byte = 0 : i64, kind = "fill"}, {block = [256, 1, 1], cluster = [1, 1, 1], grid = [8, 3, 1], kernel = "fp8_amax_bf16_b1x128_nanignore_vl_batched", kind = "kernel", params = [{buffer = 0 : i64, kind = "buffer"}, {buffer = 5 : i64, kind = "buffer"}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 512 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 512 : i64}, {kind = "i32", value = 256 : i64}], persistent = false, shared_bytes = 21536 : i64}, {block = [256, 1, 1], cluster = [1, 1, 1], grid = [4, 3, 1], kernel = "fp8_quantize_bf16_e4m3_b1x128_ratio_sat_vs_pair_b128x1_fused_t_vs_r128_nanignore_vl_batched", kind = "kernel", params = [{buffer = 0 : i64, kind = "buffer"}, {buffer = 5 : i64, kind = "buffer"}, {buffer = 1 : i64, kind = "buffer"}, {buffer = 2 : i64, kind = "buffer"}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 512 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 512 : i64}, {kind = "i32", value = 512 : i64}, {kind = "i32", value = 256 : i64}, {kind = "i32", value = 256 : i64}, {buffer = 0 : i64, kind = "buffer"}, {buffer = 3 : i64, kind = "buffer"}, {buffer = 4 : i64, kind = "buffer"}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 2048 : i64}, {kind = "i32", value = {{[0-9]+}} : i64}], persistent = false, shared_bytes = 21536 : i64}]
// Rows of 256 and columns of 200: both copies need amaxes, measured by one
// paired amax kernel (row amaxes 800 bytes apart, column amaxes 1024), then
// the paired quantize kernel reads both.
// PLAN-LABEL: batched_rowwise_tall = {buffers
// PLAN-SAME: launches = [{buffer = 5 : i64, byte = 0 : i64, kind = "fill"}, {buffer = 6 : i64, byte = 0 : i64, kind = "fill"}, {block = [256, 1, 1], cluster = [1, 1, 1], grid = [14, 2, 1], kernel = "fp8_amax_bf16_b1x128_pair_b32x1_r32_nanignore_vl_batched", kind = "kernel", params = [{buffer = 0 : i64, kind = "buffer"}, {buffer = 5 : i64, kind = "buffer"}, {kind = "i32", value = 200 : i64}, {kind = "i32", value = 256 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 256 : i64}, {kind = "i32", value = 800 : i64}, {buffer = 6 : i64, kind = "buffer"}, {kind = "i32", value = 200 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 1024 : i64}], persistent = false, shared_bytes = 21536 : i64}, {block = [256, 1, 1], cluster = [1, 1, 1], grid = [14, 2, 1], kernel = "fp8_quantize_bf16_e4m3_b1x128_ratio_sat_vs_pair_b32x1_t_r32_nanignore_vl_batched", kind = "kernel", params = [{buffer = 0 : i64, kind = "buffer"}, {buffer = 5 : i64, kind = "buffer"}, {buffer = 1 : i64, kind = "buffer"}, {buffer = 2 : i64, kind = "buffer"}, {kind = "i32", value = 200 : i64}, {kind = "i32", value = 256 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 256 : i64}, {kind = "i32", value = 256 : i64}, {kind = "i32", value = 800 : i64}, {kind = "i32", value = 800 : i64}, {buffer = 6 : i64, kind = "buffer"}, {buffer = 3 : i64, kind = "buffer"}, {buffer = 4 : i64, kind = "buffer"}, {kind = "i32", value = 200 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 200 : i64}, {kind = "i32", value = 1024 : i64}, {kind = "i32", value = 1024 : i64}], persistent = false, shared_bytes = 21536 : i64}]
// One scale for the whole batch: its blocks lie in no tile, so the
// whole-matrix amax kernel measures the batch as one [128, 96] matrix
// before the pair (whose matrices' amax and scale strides are 0).
// PLAN-LABEL: batched_tensor = {buffers
// PLAN-SAME: launches = [{buffer = 5 : i64, byte = 0 : i64, kind = "fill"}, {block = [256, 1, 1], cluster = [1, 1, 1], grid = [4, 1, 1], kernel = "fp8_amax_bf16_b32x128_nanignore_vl_gs", kind = "kernel", params = [{buffer = 0 : i64, kind = "buffer"}, {buffer = 5 : i64, kind = "buffer"}, {kind = "i32", value = 128 : i64}, {kind = "i32", value = 96 : i64}, {kind = "i32", value = 128 : i64}, {kind = "i32", value = 96 : i64}], persistent = false, shared_bytes = 0 : i64}, {block = [256, 1, 1], cluster = [1, 1, 1], grid = [2, 2, 1], kernel = "fp8_quantize_bf16_e4m3_b32x128_ratio_sat_vs_pair_b32x128_t_vs_r32_nanignore_vl_batched"
// PLAN-LABEL: blocks16 = {buffers
// PLAN-SAME: launches = [{block = [256, 1, 1], cluster = [1, 1, 1], grid = [4, 1, 1], kernel = "fp8_quantize_bf16_e4m3_b1x16_pow2_sat_fused_vs_pair_b16x1_fused_vs_r32_nanignore_vl", kind = "kernel", params = [{{[^]]*}}], persistent = false, shared_bytes = 21536 : i64}]
// 256 x 512 in 128 x 128 tiles; the transposed codes have rows of 256.
// PLAN-LABEL: deepseek = {buffers
// PLAN-SAME: launches = [{block = [256, 1, 1], cluster = [1, 1, 1], grid = [8, 1, 1], kernel = "fp8_quantize_bf16_e4m3_b1x128_pow2_sat_fused_vs_pair_b128x1_fused_t_vs_r128_nanignore_vl", kind = "kernel", params = [{{[^]]*}}{kind = "i32", value = 128 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 256 : i64}], persistent = false, shared_bytes = 21536 : i64}]
// The row-wise copy's amax kernel alone, then the pair; 2 x 4 tiles of 32 x
// 128 for the amaxes, 1 x 4 of 128 x 128 for the pair.
// PLAN-LABEL: mixed = {buffers
// PLAN-SAME: launches = [{buffer = 5 : i64, byte = 0 : i64, kind = "fill"}, {block = [256, 1, 1], cluster = [1, 1, 1], grid = [8, 1, 1], kernel = "fp8_amax_bf16_b1x128_nanignore_vl", kind = "kernel", params = [{{[^]]*}}], persistent = false, shared_bytes = 21536 : i64}, {block = [256, 1, 1], cluster = [1, 1, 1], grid = [4, 1, 1], kernel = "fp8_quantize_bf16_e4m3_b1x128_ratio_sat_vs_pair_b128x1_fused_t_vs_r128_nanignore_vl", kind = "kernel", params = [{buffer = 0 : i64, kind = "buffer"}, {buffer = 5 : i64, kind = "buffer"}, {{[^]]*}}], persistent = false, shared_bytes = 21536 : i64}]
// PLAN-LABEL: mxfp8 = {buffers
// PLAN-SAME: launches = [{block = [256, 1, 1], cluster = [1, 1, 1], grid = [4, 1, 1], kernel = "fp8_quantize_bf16_e4m3_b1x32_e8m0_rceil_sat_e8m0_fused_vs_pair_b32x1_fused_t_vs_r32_nanignore_vl", kind = "kernel", params = [{{[^]]*}}], persistent = false, shared_bytes = 21536 : i64}]
// Per row and per column: both amax buffers zero-filled, one paired amax
// kernel, one paired quantize kernel reading both.
// PLAN-LABEL: rowwise = {buffers
// PLAN-SAME: launches = [{buffer = 5 : i64, byte = 0 : i64, kind = "fill"}, {buffer = 6 : i64, byte = 0 : i64, kind = "fill"}, {block = [256, 1, 1], cluster = [1, 1, 1], grid = [32, 1, 1], kernel = "fp8_amax_bf16_b1x128_pair_b32x1_r32_nanignore_vl", kind = "kernel", params = [{buffer = 0 : i64, kind = "buffer"}, {buffer = 5 : i64, kind = "buffer"}, {{[^]]*}}{buffer = 6 : i64, kind = "buffer"}{{[^]]*}}], persistent = false, shared_bytes = 21536 : i64}, {block = [256, 1, 1], cluster = [1, 1, 1], grid = [32, 1, 1], kernel = "fp8_quantize_bf16_e4m3_b1x128_ratio_sat_vs_pair_b32x1_t_vs_r32_nanignore_vl", kind = "kernel", params = [{buffer = 0 : i64, kind = "buffer"}, {buffer = 5 : i64, kind = "buffer"}, {{[^]]*}}{buffer = 6 : i64, kind = "buffer"}{{[^]]*}}], persistent = false, shared_bytes = 21536 : i64}]
// Per tensor: one amax, which both copies read.
// PLAN-LABEL: tensor = {buffers
// PLAN-SAME: launches = [{buffer = 5 : i64, byte = 0 : i64, kind = "fill"}, {block = [256, 1, 1], cluster = [1, 1, 1], grid = [32, 1, 1], kernel = "fp8_amax_bf16_b32x128_nanignore_vl_gs", kind = "kernel", params = [{{[^]]*}}], persistent = false, shared_bytes = 0 : i64}, {block = [256, 1, 1], cluster = [1, 1, 1], grid = [32, 1, 1], kernel = "fp8_quantize_bf16_e4m3_b32x128_ratio_sat_vs_pair_b32x128_t_vs_r32_nanignore_vl", kind = "kernel", params = [{buffer = 0 : i64, kind = "buffer"}, {buffer = 5 : i64, kind = "buffer"}, {{[^]]*}}{buffer = 5 : i64, kind = "buffer"}{{[^]]*}}], persistent = false, shared_bytes = 21536 : i64}]
// 2 x 3 tiles of 128 x 128.
// PLAN-LABEL: weight = {buffers
// PLAN-SAME: launches = [{block = [256, 1, 1], cluster = [1, 1, 1], grid = [6, 1, 1], kernel = "fp8_quantize_bf16_e4m3_b128x128_pow2_sat_fused_vs_pair_b128x128_fused_t_r128_nanignore_vl", kind = "kernel", params = [{{[^]]*}}], persistent = false, shared_bytes = 21536 : i64}]

// REMARK: remark: [Passed] quantize-pair-fused | Category:fp8-gpu | Function=deepseek | Remark="row-wise <1x128> and column-wise <128x1> copies written from one read of the input"
// REMARK: remark: [Passed] quantize-pair-fused | Category:fp8-gpu | Function=mxfp8 | Remark="row-wise <1x32> and column-wise <32x1> copies written from one read of the input"
// REMARK: remark: [Passed] quantize-pair-fused | Category:fp8-gpu | Function=blocks16 | Remark="row-wise <1x16> and column-wise <16x1> copies written from one read of the input"
// REMARK: remark: [Passed] quantize-pair-fused | Category:fp8-gpu | Function=rowwise | Remark="row-wise <1x*> and column-wise <*x1> copies written from one read of the input after one amax pass"
// REMARK: remark: [Passed] quantize-pair-fused | Category:fp8-gpu | Function=tensor | Remark="row-wise <tensor> and column-wise <tensor> copies written from one read of the input after one amax pass"
// REMARK: remark: [Passed] quantize-pair-fused | Category:fp8-gpu | Function=batched | Remark="row-wise <1x1x32> and column-wise <1x32x1> copies written from one read of the input"
// REMARK: remark: [Passed] quantize-pair-fused | Category:fp8-gpu | Function=batched_deepseek | Remark="row-wise <1x1x128> and column-wise <1x128x1> copies written from one read of the input"
// REMARK: remark: [Passed] quantize-pair-fused | Category:fp8-gpu | Function=batched_rowwise | Remark="row-wise <1x1x*> and column-wise <1x*x1> copies written from one read of the input after one amax pass"
// REMARK: remark: [Passed] quantize-pair-fused | Category:fp8-gpu | Function=batched_tensor | Remark="row-wise <tensor> and column-wise <tensor> copies written from one read of the input after one amax pass"
// REMARK: remark: [Passed] quantize-pair-fused | Category:fp8-gpu | Function=batched_rowwise_tall | Remark="row-wise <1x1x*> and column-wise <1x*x1> copies written from one read of the input after one amax pass"
// REMARK: remark: [Passed] quantize-pair-fused | Category:fp8-gpu | Function=weight | Remark="row-wise <128x128> and column-wise <128x128> copies written from one read of the input"
// REMARK: remark: [Passed] quantize-pair-fused | Category:fp8-gpu | Function=mixed | Remark="row-wise <1x*> and column-wise <*x1> copies written from one read of the input after one amax pass"
// REMARK: remark: [Passed] quantize-pair-fused | Category:fp8-gpu | Function=formats | Remark="row-wise <1x32> and column-wise <32x1> copies written from one read of the input"

func.func @deepseek(%x: tensor<256x512xbf16>) -> (tensor<256x512xf8E4M3FN>, tensor<256x4xf32>, tensor<512x256xf8E4M3FN>, tensor<512x2xf32>) {
  %q, %s, %qt, %st = fp8.dynamic_quantize %x by <1x128> colwise <128x1> transposed rule <pow2> : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<256x4xf32> colwise tensor<512x256xf8E4M3FN>, tensor<512x2xf32>
  return %q, %s, %qt, %st : tensor<256x512xf8E4M3FN>, tensor<256x4xf32>, tensor<512x256xf8E4M3FN>, tensor<512x2xf32>
}

func.func @mxfp8(%x: tensor<64x256xbf16>) -> (tensor<64x256xf8E4M3FN>, tensor<64x8xf8E8M0FNU>, tensor<256x64xf8E4M3FN>, tensor<256x2xf8E8M0FNU>) {
  %q, %s, %qt, %st = fp8.dynamic_quantize %x by <1x32> colwise <32x1> transposed rule <e8m0_rceil> : tensor<64x256xbf16> -> tensor<64x256xf8E4M3FN>, tensor<64x8xf8E8M0FNU> colwise tensor<256x64xf8E4M3FN>, tensor<256x2xf8E8M0FNU>
  return %q, %s, %qt, %st : tensor<64x256xf8E4M3FN>, tensor<64x8xf8E8M0FNU>, tensor<256x64xf8E4M3FN>, tensor<256x2xf8E8M0FNU>
}

func.func @blocks16(%x: tensor<64x256xbf16>) -> (tensor<64x256xf8E4M3FN>, tensor<64x16xf32>, tensor<64x256xf8E4M3FN>, tensor<4x256xf32>) {
  %q, %s, %qc, %sc = fp8.dynamic_quantize %x by <1x16> colwise <16x1> rule <pow2> : tensor<64x256xbf16> -> tensor<64x256xf8E4M3FN>, tensor<64x16xf32> colwise tensor<64x256xf8E4M3FN>, tensor<4x256xf32>
  return %q, %s, %qc, %sc : tensor<64x256xf8E4M3FN>, tensor<64x16xf32>, tensor<64x256xf8E4M3FN>, tensor<4x256xf32>
}

func.func @rowwise(%x: tensor<256x512xbf16>) -> (tensor<256x512xf8E4M3FN>, tensor<256x1xf32>, tensor<512x256xf8E4M3FN>, tensor<512x1xf32>) {
  %q, %s, %qt, %st = fp8.dynamic_quantize %x by <1x*> colwise <*x1> transposed rule <ratio> : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<256x1xf32> colwise tensor<512x256xf8E4M3FN>, tensor<512x1xf32>
  return %q, %s, %qt, %st : tensor<256x512xf8E4M3FN>, tensor<256x1xf32>, tensor<512x256xf8E4M3FN>, tensor<512x1xf32>
}

func.func @tensor(%x: tensor<256x512xbf16>) -> (tensor<256x512xf8E4M3FN>, tensor<1x1xf32>, tensor<512x256xf8E4M3FN>, tensor<1x1xf32>) {
  %q, %s, %qt, %st = fp8.dynamic_quantize %x by <tensor> colwise <tensor> transposed rule <ratio> : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<1x1xf32> colwise tensor<512x256xf8E4M3FN>, tensor<1x1xf32>
  return %q, %s, %qt, %st : tensor<256x512xf8E4M3FN>, tensor<1x1xf32>, tensor<512x256xf8E4M3FN>, tensor<1x1xf32>
}

func.func @batched(%x: tensor<2x64x256xbf16>) -> (tensor<2x64x256xf8E4M3FN>, tensor<2x64x8xf8E8M0FNU>, tensor<2x256x64xf8E4M3FN>, tensor<2x256x2xf8E8M0FNU>) {
  %q, %s, %qt, %st = fp8.dynamic_quantize %x by <1x1x32> colwise <1x32x1> transposed rule <e8m0_rceil> : tensor<2x64x256xbf16> -> tensor<2x64x256xf8E4M3FN>, tensor<2x64x8xf8E8M0FNU> colwise tensor<2x256x64xf8E4M3FN>, tensor<2x256x2xf8E8M0FNU>
  return %q, %s, %qt, %st : tensor<2x64x256xf8E4M3FN>, tensor<2x64x8xf8E8M0FNU>, tensor<2x256x64xf8E4M3FN>, tensor<2x256x2xf8E8M0FNU>
}

func.func @batched_deepseek(%x: tensor<2x200x128xbf16>) -> (tensor<2x200x128xf8E4M3FN>, tensor<2x200x1xf32>, tensor<2x128x200xf8E4M3FN>, tensor<2x128x2xf32>) {
  %q, %s, %qt, %st = fp8.dynamic_quantize %x by <1x1x128> colwise <1x128x1> transposed rule <pow2> : tensor<2x200x128xbf16> -> tensor<2x200x128xf8E4M3FN>, tensor<2x200x1xf32> colwise tensor<2x128x200xf8E4M3FN>, tensor<2x128x2xf32>
  return %q, %s, %qt, %st : tensor<2x200x128xf8E4M3FN>, tensor<2x200x1xf32>, tensor<2x128x200xf8E4M3FN>, tensor<2x128x2xf32>
}

func.func @batched_rowwise(%x: tensor<3x64x512xbf16>) -> (tensor<3x64x512xf8E4M3FN>, tensor<3x64x1xf32>, tensor<3x512x64xf8E4M3FN>, tensor<3x512x1xf32>) {
  %q, %s, %qt, %st = fp8.dynamic_quantize %x by <1x1x*> colwise <1x*x1> transposed rule <ratio> : tensor<3x64x512xbf16> -> tensor<3x64x512xf8E4M3FN>, tensor<3x64x1xf32> colwise tensor<3x512x64xf8E4M3FN>, tensor<3x512x1xf32>
  return %q, %s, %qt, %st : tensor<3x64x512xf8E4M3FN>, tensor<3x64x1xf32>, tensor<3x512x64xf8E4M3FN>, tensor<3x512x1xf32>
}

func.func @batched_tensor(%x: tensor<2x64x96xbf16>) -> (tensor<2x64x96xf8E4M3FN>, tensor<1x1x1xf32>, tensor<2x96x64xf8E4M3FN>, tensor<1x1x1xf32>) {
  %q, %s, %qt, %st = fp8.dynamic_quantize %x by <tensor> colwise <tensor> transposed rule <ratio> : tensor<2x64x96xbf16> -> tensor<2x64x96xf8E4M3FN>, tensor<1x1x1xf32> colwise tensor<2x96x64xf8E4M3FN>, tensor<1x1x1xf32>
  return %q, %s, %qt, %st : tensor<2x64x96xf8E4M3FN>, tensor<1x1x1xf32>, tensor<2x96x64xf8E4M3FN>, tensor<1x1x1xf32>
}

func.func @batched_rowwise_tall(%x: tensor<2x200x256xbf16>) -> (tensor<2x200x256xf8E4M3FN>, tensor<2x200x1xf32>, tensor<2x256x200xf8E4M3FN>, tensor<2x256x1xf32>) {
  %q, %s, %qt, %st = fp8.dynamic_quantize %x by <1x1x*> colwise <1x*x1> transposed rule <ratio> : tensor<2x200x256xbf16> -> tensor<2x200x256xf8E4M3FN>, tensor<2x200x1xf32> colwise tensor<2x256x200xf8E4M3FN>, tensor<2x256x1xf32>
  return %q, %s, %qt, %st : tensor<2x200x256xf8E4M3FN>, tensor<2x200x1xf32>, tensor<2x256x200xf8E4M3FN>, tensor<2x256x1xf32>
}

// DeepSeek's 128x128 weight blocks on a ragged [200, 320] weight and its
// transposed copy (a 72-row block in the second tile row).
func.func @weight(%w: tensor<200x320xbf16>) -> (tensor<200x320xf8E4M3FN>, tensor<2x3xf32>, tensor<320x200xf8E4M3FN>, tensor<3x2xf32>) {
  %q, %s, %qt, %st = fp8.dynamic_quantize %w by <128x128> colwise <128x128> transposed rule <pow2> : tensor<200x320xbf16> -> tensor<200x320xf8E4M3FN>, tensor<2x3xf32> colwise tensor<320x200xf8E4M3FN>, tensor<3x2xf32>
  return %q, %s, %qt, %st : tensor<200x320xf8E4M3FN>, tensor<2x3xf32>, tensor<320x200xf8E4M3FN>, tensor<3x2xf32>
}

// Rows of 512 need an amax pass; columns of 64 lie inside a 128-row tile.
func.func @mixed(%x: tensor<64x512xbf16>) -> (tensor<64x512xf8E4M3FN>, tensor<64x1xf32>, tensor<512x64xf8E4M3FN>, tensor<512x1xf32>) {
  %q, %s, %qt, %st = fp8.dynamic_quantize %x by <1x*> colwise <*x1> transposed rule <ratio> : tensor<64x512xbf16> -> tensor<64x512xf8E4M3FN>, tensor<64x1xf32> colwise tensor<512x64xf8E4M3FN>, tensor<512x1xf32>
  return %q, %s, %qt, %st : tensor<64x512xf8E4M3FN>, tensor<64x1xf32>, tensor<512x64xf8E4M3FN>, tensor<512x1xf32>
}

// Codes of two formats under one rule: each copy's conversion.
func.func @formats(%x: tensor<64x256xbf16>) -> (tensor<64x256xf8E4M3FN>, tensor<64x8xf8E8M0FNU>, tensor<256x64xf8E5M2>, tensor<256x2xf8E8M0FNU>) {
  %q, %s, %qt, %st = fp8.dynamic_quantize %x by <1x32> colwise <32x1> transposed rule <e8m0_rceil> : tensor<64x256xbf16> -> tensor<64x256xf8E4M3FN>, tensor<64x8xf8E8M0FNU> colwise tensor<256x64xf8E5M2>, tensor<256x2xf8E8M0FNU>
  return %q, %s, %qt, %st : tensor<64x256xf8E4M3FN>, tensor<64x8xf8E8M0FNU>, tensor<256x64xf8E5M2>, tensor<256x2xf8E8M0FNU>
}
