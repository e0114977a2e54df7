// The epilogue warpgroup's consumers keep 152 registers: GEMMs whose
// consumers need more (several partial sums of a tile, a scale per column
// of B staged each K tile) or whose epilogue reads a matrix besides the
// hand-over spilled 28 to 336 bytes, and are refused with an
// `epilogue-warpgroup` remark (sm_90a); so is the option with forced
// 192-column tiles. The kernels assemble without spills.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a sm90-epilogue-warpgroup=1 artifacts=%t" \
// RUN:   --remarks-filter=fp8-gpu --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s
// RUN: not grep -E "[1-9][0-9]* bytes spill" %t/fp8_kernels.ptxas.log
// RUN: not grep _ewg %t/fp8_kernels.ptx
// RUN: fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a sm90-epilogue-warpgroup=1 sm90-tile-n=192 ptxas=none" \
// RUN:   --remarks-filter=fp8-gpu --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=WIDE

// CHECK-DAG: remark: [Missed] epilogue-warpgroup | Category:fp8-gpu | Function=mx | Remark="fp8.scaled_matmul runs its epilogue between tiles: an epilogue warpgroup's consumers keep 152 registers: not 4 partial sums of a tile
// CHECK-DAG: remark: [Missed] epilogue-warpgroup | Category:fp8-gpu | Function=residual | Remark="fp8.scaled_matmul runs its epilogue between tiles: an epilogue warpgroup takes epilogues reading vectors, not a matrix
// CHECK-DAG: remark: [Missed] epilogue-warpgroup | Category:fp8-gpu | Function=columns | Remark="fp8.scaled_matmul runs its epilogue between tiles: an epilogue warpgroup's consumers keep 152 registers: not with a scale per column of B staged each K tile"
// WIDE: remark: [Missed] epilogue-warpgroup | Category:fp8-gpu | Function=mx | Remark="fp8.scaled_matmul runs its epilogue between tiles: sm90-tile-n=192 asks for tiles of 192 columns, and an epilogue warpgroup takes 64 or 128"

func.func @mx(%a: tensor<128x128xf8E4M3FN>, %b: tensor<256x128xf8E4M3FN>, %sa: tensor<128x4xf8E8M0FNU>, %sb: tensor<256x4xf8E8M0FNU>) -> tensor<128x256xbf16> {
  %r = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) transpose_rhs : tensor<128x128xf8E4M3FN>, tensor<256x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>, tensor<256x4xf8E8M0FNU> -> tensor<128x256xbf16> epilogue {
  ^bb0(%x: f32):
    %t = math.tanh %x : f32
    %y = arith.truncf %t : f32 to bf16
    fp8.yield %y : bf16
  }
  return %r : tensor<128x256xbf16>
}

func.func @residual(%a: tensor<256x512xf8E5M2>, %b: tensor<256x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>, %m: tensor<256x256xf32>, %bias: tensor<256xf32>) -> tensor<256x256xbf16> {
  %r = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs epilogue_ins(%m, %bias : tensor<256x256xf32>, tensor<256xf32>) epilogue_maps([affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>]) : tensor<256x512xf8E5M2>, tensor<256x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x256xbf16> epilogue {
  ^bb0(%x: f32, %mv: f32, %bv: f32):
    %t1 = arith.addf %x, %bv : f32
    %t2 = math.tanh %t1 : f32
    %t3 = arith.addf %t2, %mv : f32
    %t4 = arith.truncf %t3 : f32 to bf16
    fp8.yield %t4 : bf16
  }
  return %r : tensor<256x256xbf16>
}

func.func @columns(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x4xf32>, %sb: tensor<384x4xf32>) -> tensor<256x384xbf16> {
  %r = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <1x128>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x4xf32>, tensor<384x4xf32> -> tensor<256x384xbf16> epilogue {
  ^bb0(%x: f32):
    %t = math.tanh %x : f32
    %y = arith.truncf %t : f32 to bf16
    fp8.yield %y : bf16
  }
  return %r : tensor<256x384xbf16>
}
