// convert-fp8-to-gpu{sm90-tile-n=192}: sm_90a GEMMs with per-tensor or
// row/column scales, and high-precision ones, wider than 128 columns take
// output tiles of 128 x 192 (two consumer warpgroups of 64 x 192: an
// m64n192k32 wgmma per k32 step, the accumulator and a partial sum of 96
// registers each, which the consumers' 232 registers hold; 4 stages of
// 40 KiB and the TMA store's 48 KiB result tile, or 5 stages with register
// stores: sm90-tma-store=0 (REG), or the bf16 GEMM's f32 results, whose
// 96 KiB tile would leave 3 stages). DeepSeek's GEMMs (A in 1x128 blocks,
// B in 128x128 squares) take them too: a tile starts at column 0 or 64 of
// one of B's blocks and straddles the next, so each K tile loads A's two
// row scales and B's two block scales (the second clamped to B's last
// block), multiplies them into four factors, and picks the factor of the
// middle 64 columns by whether the tile starts at a block (one selp per
// row); the first 64 columns take the first block's, the last 64 the
// second's, in 96 fma per thread. With a scale per column of B (1x128 on
// both operands, DeepSeek's weight gradients) each consumer warpgroup
// stages a K tile's 192 column scales in shared memory in two loads per
// thread (the second half of the second past the tile, into a buffer of
// 256) and each thread reads its 48 as 24 pairs. N <= 128 keeps its tiles.
// Every kernel assembles without spills.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a sm90-tile-n=192 artifacts=%t" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=BLOCKS --input-file=%t/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=COLUMNS --input-file=%t/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=PTXAS --input-file=%t/fp8_kernels.ptxas.log
// RUN: not grep -E "[1-9][0-9]* bytes spill|C751" %t/fp8_kernels.ptxas.log
// RUN: rm -rf %t.reg && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a sm90-tile-n=192 sm90-tma-store=0 artifacts=%t.reg" -o /dev/null
// RUN: FileCheck %s --check-prefix=REG --input-file=%t.reg/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=REGPTXAS --input-file=%t.reg/fp8_kernels.ptxas.log
// RUN: not grep -E "[1-9][0-9]* bytes spill|C751" %t.reg/fp8_kernels.ptxas.log
// RUN: %python -c "import json, sys; print(*(n + ' ' + ' '.join(str(l['grid'][0]) for l in json.load(open(sys.argv[1] + '/' + n + '.json'))['launches'] if 'gemm' in l.get('kernel', '')) for n in sys.argv[2:]))" \
// RUN:   %t tensor ragged deepseek deepseek_columns narrow bf16 | FileCheck %s --check-prefix=GRID
// RUN: not fp8-opt %s --convert-fp8-to-gpu=sm90-tile-n=160 -o /dev/null 2>&1 | FileCheck %s --check-prefix=INVALID --implicit-check-not=note
// RUN: not fp8-opt %s --convert-fp8-to-gpu=num-sms=0 -o /dev/null 2>&1 | FileCheck %s --check-prefix=SMS --implicit-check-not=note

// CHECK-DAG: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_tma_128x192_s4(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3
// CHECK-DAG: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_rowcol_p4_tma_128x192_s4(
// CHECK-DAG: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32_tma_128x192_s4(
// CHECK-DAG: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_tma_128x128_s6(
// CHECK-DAG: .entry gemm_sm90a_bf16_f32_128x192_s5(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16

// REG-DAG: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_128x192_s5(
// REG-DAG: wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3
// REG-DAG: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_rowcol_p4_128x192_s5(
// REG-DAG: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32sq_128x192_s5(
// REG-DAG: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32_128x192_s5(
// REG-DAG: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_128x128_s7(
// REG-DAG: .entry gemm_sm90a_bf16_f32_128x192_s5(
// REG-DAG: wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16

// BLOCKS-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32sq_tma_128x192_s4(
// BLOCKS: setmaxnreg.inc.sync.aligned.u32 232;
// The promotion (placed before the K loop's head in the PTX): element i
// of the fragment, column 8 (i / 4) + 2 (lane mod 4) + i mod 2 of row
// r + 8 ((i / 2) mod 2), times its factor. Columns [0, 64) take the
// first block's, [64, 128) the middle one, [128, 192) the second block's.
// BLOCKS: fma.rn.f32 [[ACC0:%r[0-9]+]], {{%r[0-9]+}}, [[A0B0:%r[0-9]+]], [[ACC0]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC1:%r[0-9]+]], {{%r[0-9]+}}, [[A0B0]], [[ACC1]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC2:%r[0-9]+]], {{%r[0-9]+}}, [[A1B0:%r[0-9]+]], [[ACC2]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC3:%r[0-9]+]], {{%r[0-9]+}}, [[A1B0]], [[ACC3]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC0:%r[0-9]+]], {{%r[0-9]+}}, [[A0B0]], [[ACC0]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC1:%r[0-9]+]], {{%r[0-9]+}}, [[A0B0]], [[ACC1]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC2:%r[0-9]+]], {{%r[0-9]+}}, [[A1B0]], [[ACC2]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC3:%r[0-9]+]], {{%r[0-9]+}}, [[A1B0]], [[ACC3]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC0:%r[0-9]+]], {{%r[0-9]+}}, [[A0B0]], [[ACC0]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC1:%r[0-9]+]], {{%r[0-9]+}}, [[A0B0]], [[ACC1]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC2:%r[0-9]+]], {{%r[0-9]+}}, [[A1B0]], [[ACC2]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC3:%r[0-9]+]], {{%r[0-9]+}}, [[A1B0]], [[ACC3]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC0:%r[0-9]+]], {{%r[0-9]+}}, [[A0B0]], [[ACC0]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC1:%r[0-9]+]], {{%r[0-9]+}}, [[A0B0]], [[ACC1]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC2:%r[0-9]+]], {{%r[0-9]+}}, [[A1B0]], [[ACC2]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC3:%r[0-9]+]], {{%r[0-9]+}}, [[A1B0]], [[ACC3]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC0:%r[0-9]+]], {{%r[0-9]+}}, [[A0B0]], [[ACC0]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC1:%r[0-9]+]], {{%r[0-9]+}}, [[A0B0]], [[ACC1]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC2:%r[0-9]+]], {{%r[0-9]+}}, [[A1B0]], [[ACC2]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC3:%r[0-9]+]], {{%r[0-9]+}}, [[A1B0]], [[ACC3]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC0:%r[0-9]+]], {{%r[0-9]+}}, [[A0B0]], [[ACC0]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC1:%r[0-9]+]], {{%r[0-9]+}}, [[A0B0]], [[ACC1]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC2:%r[0-9]+]], {{%r[0-9]+}}, [[A1B0]], [[ACC2]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC3:%r[0-9]+]], {{%r[0-9]+}}, [[A1B0]], [[ACC3]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC0:%r[0-9]+]], {{%r[0-9]+}}, [[A0B0]], [[ACC0]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC1:%r[0-9]+]], {{%r[0-9]+}}, [[A0B0]], [[ACC1]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC2:%r[0-9]+]], {{%r[0-9]+}}, [[A1B0]], [[ACC2]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC3:%r[0-9]+]], {{%r[0-9]+}}, [[A1B0]], [[ACC3]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC0:%r[0-9]+]], {{%r[0-9]+}}, [[A0B0]], [[ACC0]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC1:%r[0-9]+]], {{%r[0-9]+}}, [[A0B0]], [[ACC1]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC2:%r[0-9]+]], {{%r[0-9]+}}, [[A1B0]], [[ACC2]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC3:%r[0-9]+]], {{%r[0-9]+}}, [[A1B0]], [[ACC3]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC0:%r[0-9]+]], {{%r[0-9]+}}, [[MID0:%r[0-9]+]], [[ACC0]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC1:%r[0-9]+]], {{%r[0-9]+}}, [[MID0]], [[ACC1]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC2:%r[0-9]+]], {{%r[0-9]+}}, [[MID1:%r[0-9]+]], [[ACC2]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC3:%r[0-9]+]], {{%r[0-9]+}}, [[MID1]], [[ACC3]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC0:%r[0-9]+]], {{%r[0-9]+}}, [[MID0]], [[ACC0]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC1:%r[0-9]+]], {{%r[0-9]+}}, [[MID0]], [[ACC1]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC2:%r[0-9]+]], {{%r[0-9]+}}, [[MID1]], [[ACC2]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC3:%r[0-9]+]], {{%r[0-9]+}}, [[MID1]], [[ACC3]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC0:%r[0-9]+]], {{%r[0-9]+}}, [[MID0]], [[ACC0]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC1:%r[0-9]+]], {{%r[0-9]+}}, [[MID0]], [[ACC1]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC2:%r[0-9]+]], {{%r[0-9]+}}, [[MID1]], [[ACC2]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC3:%r[0-9]+]], {{%r[0-9]+}}, [[MID1]], [[ACC3]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC0:%r[0-9]+]], {{%r[0-9]+}}, [[MID0]], [[ACC0]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC1:%r[0-9]+]], {{%r[0-9]+}}, [[MID0]], [[ACC1]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC2:%r[0-9]+]], {{%r[0-9]+}}, [[MID1]], [[ACC2]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC3:%r[0-9]+]], {{%r[0-9]+}}, [[MID1]], [[ACC3]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC0:%r[0-9]+]], {{%r[0-9]+}}, [[MID0]], [[ACC0]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC1:%r[0-9]+]], {{%r[0-9]+}}, [[MID0]], [[ACC1]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC2:%r[0-9]+]], {{%r[0-9]+}}, [[MID1]], [[ACC2]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC3:%r[0-9]+]], {{%r[0-9]+}}, [[MID1]], [[ACC3]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC0:%r[0-9]+]], {{%r[0-9]+}}, [[MID0]], [[ACC0]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC1:%r[0-9]+]], {{%r[0-9]+}}, [[MID0]], [[ACC1]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC2:%r[0-9]+]], {{%r[0-9]+}}, [[MID1]], [[ACC2]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC3:%r[0-9]+]], {{%r[0-9]+}}, [[MID1]], [[ACC3]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC0:%r[0-9]+]], {{%r[0-9]+}}, [[MID0]], [[ACC0]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC1:%r[0-9]+]], {{%r[0-9]+}}, [[MID0]], [[ACC1]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC2:%r[0-9]+]], {{%r[0-9]+}}, [[MID1]], [[ACC2]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC3:%r[0-9]+]], {{%r[0-9]+}}, [[MID1]], [[ACC3]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC0:%r[0-9]+]], {{%r[0-9]+}}, [[MID0]], [[ACC0]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC1:%r[0-9]+]], {{%r[0-9]+}}, [[MID0]], [[ACC1]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC2:%r[0-9]+]], {{%r[0-9]+}}, [[MID1]], [[ACC2]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC3:%r[0-9]+]], {{%r[0-9]+}}, [[MID1]], [[ACC3]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC0:%r[0-9]+]], {{%r[0-9]+}}, [[A0B1:%r[0-9]+]], [[ACC0]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC1:%r[0-9]+]], {{%r[0-9]+}}, [[A0B1]], [[ACC1]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC2:%r[0-9]+]], {{%r[0-9]+}}, [[A1B1:%r[0-9]+]], [[ACC2]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC3:%r[0-9]+]], {{%r[0-9]+}}, [[A1B1]], [[ACC3]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC0:%r[0-9]+]], {{%r[0-9]+}}, [[A0B1]], [[ACC0]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC1:%r[0-9]+]], {{%r[0-9]+}}, [[A0B1]], [[ACC1]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC2:%r[0-9]+]], {{%r[0-9]+}}, [[A1B1]], [[ACC2]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC3:%r[0-9]+]], {{%r[0-9]+}}, [[A1B1]], [[ACC3]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC0:%r[0-9]+]], {{%r[0-9]+}}, [[A0B1]], [[ACC0]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC1:%r[0-9]+]], {{%r[0-9]+}}, [[A0B1]], [[ACC1]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC2:%r[0-9]+]], {{%r[0-9]+}}, [[A1B1]], [[ACC2]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC3:%r[0-9]+]], {{%r[0-9]+}}, [[A1B1]], [[ACC3]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC0:%r[0-9]+]], {{%r[0-9]+}}, [[A0B1]], [[ACC0]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC1:%r[0-9]+]], {{%r[0-9]+}}, [[A0B1]], [[ACC1]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC2:%r[0-9]+]], {{%r[0-9]+}}, [[A1B1]], [[ACC2]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC3:%r[0-9]+]], {{%r[0-9]+}}, [[A1B1]], [[ACC3]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC0:%r[0-9]+]], {{%r[0-9]+}}, [[A0B1]], [[ACC0]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC1:%r[0-9]+]], {{%r[0-9]+}}, [[A0B1]], [[ACC1]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC2:%r[0-9]+]], {{%r[0-9]+}}, [[A1B1]], [[ACC2]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC3:%r[0-9]+]], {{%r[0-9]+}}, [[A1B1]], [[ACC3]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC0:%r[0-9]+]], {{%r[0-9]+}}, [[A0B1]], [[ACC0]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC1:%r[0-9]+]], {{%r[0-9]+}}, [[A0B1]], [[ACC1]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC2:%r[0-9]+]], {{%r[0-9]+}}, [[A1B1]], [[ACC2]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC3:%r[0-9]+]], {{%r[0-9]+}}, [[A1B1]], [[ACC3]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC0:%r[0-9]+]], {{%r[0-9]+}}, [[A0B1]], [[ACC0]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC1:%r[0-9]+]], {{%r[0-9]+}}, [[A0B1]], [[ACC1]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC2:%r[0-9]+]], {{%r[0-9]+}}, [[A1B1]], [[ACC2]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC3:%r[0-9]+]], {{%r[0-9]+}}, [[A1B1]], [[ACC3]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC0:%r[0-9]+]], {{%r[0-9]+}}, [[A0B1]], [[ACC0]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC1:%r[0-9]+]], {{%r[0-9]+}}, [[A0B1]], [[ACC1]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC2:%r[0-9]+]], {{%r[0-9]+}}, [[A1B1]], [[ACC2]];
// BLOCKS-NEXT: fma.rn.f32 [[ACC3:%r[0-9]+]], {{%r[0-9]+}}, [[A1B1]], [[ACC3]];
// BLOCKS-NOT: fma.rn.f32
// A K tile: the next tile's two row scales of A and two block scales of B,
// loaded before the slot is waited for (one tile ahead); this tile's four
// factors once the wgmmas are done.
// BLOCKS-COUNT-4: ld.global.b32
// BLOCKS-NOT: ld.global
// BLOCKS: mbarrier.try_wait.parity
// BLOCKS-COUNT-4: wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3
// BLOCKS: wgmma.wait_group.sync.aligned 0;
// BLOCKS-NEXT: mul.rn.f32 [[A0B0]], [[ROW0:%r[0-9]+]], [[B0:%r[0-9]+]];
// BLOCKS-NEXT: mul.rn.f32 [[A0B1]], [[ROW0]], [[B1:%r[0-9]+]];
// BLOCKS-NEXT: selp.f32 [[MID0]], [[A0B0]], [[A0B1]], [[ALIGNED:%p[0-9]+]];
// BLOCKS-NEXT: mul.rn.f32 [[A1B0]], [[ROW1:%r[0-9]+]], [[B0]];
// BLOCKS-NEXT: mul.rn.f32 [[A1B1]], [[ROW1]], [[B1]];
// BLOCKS-NEXT: selp.f32 [[MID1]], [[A1B0]], [[A1B1]], [[ALIGNED]];
// BLOCKS-NOT: fma.rn.f32
// BLOCKS: .entry

// PTXAS-DAG: Compiling entry function 'fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_tma_128x192_s4'
// PTXAS-DAG: Compiling entry function 'fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32sq_tma_128x192_s4'
// PTXAS-DAG: Compiling entry function 'fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32_tma_128x192_s4'

// COLUMNS-LABEL: .entry fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32_tma_128x192_s4(
// COLUMNS: setmaxnreg.inc.sync.aligned.u32 232;
// COLUMNS-COUNT-4: ld.global.b32
// COLUMNS-NOT: mbarrier.try_wait
// COLUMNS-COUNT-4: ld.global.b32
// COLUMNS-NOT: ld.global
// COLUMNS: mbarrier.try_wait.parity
// COLUMNS-COUNT-4: wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3
// COLUMNS: st.shared.b32 [{{%rd[0-9]+}}+[[#BUFFER:]]]
// COLUMNS-NEXT: st.shared.b32 [{{%rd[0-9]+}}+[[#BUFFER + 512]]]
// COLUMNS-NEXT: bar.sync {{%r[0-9]+}}, 128;
// COLUMNS-NEXT: wgmma.wait_group.sync.aligned 0;
// COLUMNS-NOT: ld.global
// COLUMNS-COUNT-24: ld.shared.v2.b32
// COLUMNS-NOT: ld.global
// COLUMNS-COUNT-96: mul.rn.f32
// REGPTXAS-DAG: Compiling entry function 'fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_128x192_s5'

// Output tiles: 256 x 384 is 2 x 2 tiles of 128 x 192, 256 x 200 also
// (the second column of tiles ragged), DeepSeek's too, with square blocks
// or scales per column of B; the 256 x 128 product is 2 x 1 of 128 x 128.
// GRID: tensor 4 ragged 4 deepseek 4 deepseek_columns 4 narrow 2 bf16 4

// INVALID: error: convert-fp8-to-gpu: sm90-tile-n is auto, 128 or 192, got '160'
// SMS: error: convert-fp8-to-gpu: num-sms is the chip's multiprocessor count (132 on an H100 SXM), at least 1; got 0

func.func @tensor(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @ragged(%a: tensor<256x512xf8E4M3FN>, %b: tensor<200x512xf8E4M3FN>, %sa: tensor<256x1xf32>, %sb: tensor<200x1xf32>) -> tensor<256x200xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x*>, <1x*>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<200x512xf8E4M3FN>, tensor<256x1xf32>, tensor<200x1xf32> -> tensor<256x200xbf16>
  return %c : tensor<256x200xbf16>
}

func.func @deepseek(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x4xf32>, %sb: tensor<3x4xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x4xf32>, tensor<3x4xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @deepseek_columns(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x4xf32>, %sb: tensor<384x4xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <1x128>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x4xf32>, tensor<384x4xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @narrow(%a: tensor<256x512xf8E4M3FN>, %b: tensor<128x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x128xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<128x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x128xbf16>
  return %c : tensor<256x128xbf16>
}

func.func @bf16(%a: tensor<256x128xbf16>, %b: tensor<384x128xbf16>) -> tensor<256x384xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x384xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<256x384xf32>) -> tensor<256x384xf32>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<256x128xbf16>, tensor<384x128xbf16>) outs(%init : tensor<256x384xf32>) -> tensor<256x384xf32>
  return %c : tensor<256x384xf32>
}
