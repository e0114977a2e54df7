// Option combinations whose kernels ptxas said spill registers, refused by
// GemmSM90Config::verify with a remark, so that no generated kernel spills:
// * B multicast to 192-column tiles that stage a scale per column of B each
//   K tile (1x128 blocks on both operands; sm90-tile-n=192 forces the wide
//   tile, which tile-n=auto does not choose for such scales): the tile stays
//   192 columns wide, without multicast;
// * consumers in turn (sm90-alternate-consumers) over several partial sums a
//   tile (MXFP8's blocks of 32 along K) with a staged epilogue matrix and a
//   TMA store: the consumers stay in step.
// Each alone is taken (the remarks and kernel names say so).
// REQUIRES: ptxas
// RUN: rm -rf %t
// RUN: fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a sm90-tile-n=192 sm90-multicast=1 sm90-alternate-consumers=1 artifacts=%t" \
// RUN:   --remarks-filter=fp8-gpu -o /dev/null 2>&1 | FileCheck %s
// RUN: not grep -E "[1-9][0-9]* bytes (spill|stack)" %t/fp8_kernels.ptxas.log
// RUN: FileCheck %s --check-prefix=KERNELS --input-file=%t/fp8_kernels.ptxas.log

// CHECK-DAG: remark: [Missed] multicast | Category:fp8-gpu | Function=columns | Remark="fp8.scaled_matmul runs one CTA per cluster: the consumers of a multicast 192-column tile that stage a scale per column of B each K tile keep too many registers"
// CHECK-DAG: remark: [Passed] multicast | Category:fp8-gpu | Function=rows | Remark=
// CHECK-DAG: remark: [Missed] alternate-consumers | Category:fp8-gpu | Function=mxfp8_staged | Remark="fp8.scaled_matmul keeps its consumer warpgroups in step: consumers taking turns over 4 partial sums of a tile (blocks of 32 along K), with a staged epilogue matrix and a TMA store, keep too many registers"
// CHECK-DAG: remark: [Passed] alternate-consumers | Category:fp8-gpu | Function=mxfp8 | Remark=
// CHECK-NOT: warning: kernel
// KERNELS-DAG: Function properties for fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32_epif32_{{[0-9a-f]+}}_tma_alt_128x192_s{{[0-9]+}}
// KERNELS-DAG: Function properties for fp8_gemm_sm90a_e4m3e4m3_bf16_block32e8m0_epif32_{{[0-9a-f]+}}_stg_tma_mc_128x64_s{{[0-9]+}}

// A scale per column of B, forced to 192-column tiles.
func.func @columns(%a: tensor<256x256xf8E4M3FN>, %b: tensor<192x256xf8E4M3FN>, %sa: tensor<256x2xf32>, %sb: tensor<192x2xf32>) -> tensor<256x192xbf16> {
  %r = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <1x128>) transpose_rhs : tensor<256x256xf8E4M3FN>, tensor<192x256xf8E4M3FN>, tensor<256x2xf32>, tensor<192x2xf32> -> tensor<256x192xbf16> epilogue {
  ^bb0(%x: f32):
    %t = math.tanh %x : f32
    %y = arith.truncf %t : f32 to bf16
    fp8.yield %y : bf16
  }
  return %r : tensor<256x192xbf16>
}

// DeepSeek's forward scaling (128x128 blocks of B): multicast.
func.func @rows(%a: tensor<256x256xf8E4M3FN>, %b: tensor<192x256xf8E4M3FN>, %sa: tensor<256x2xf32>, %sb: tensor<2x2xf32>) -> tensor<256x192xbf16> {
  %r = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs : tensor<256x256xf8E4M3FN>, tensor<192x256xf8E4M3FN>, tensor<256x2xf32>, tensor<2x2xf32> -> tensor<256x192xbf16> epilogue {
  ^bb0(%x: f32):
    %t = math.tanh %x : f32
    %y = arith.truncf %t : f32 to bf16
    fp8.yield %y : bf16
  }
  return %r : tensor<256x192xbf16>
}

// MXFP8 with a GELU's derivative of a staged matrix.
func.func @mxfp8_staged(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x16xf8E8M0FNU>, %sb: tensor<384x16xf8E8M0FNU>, %m: tensor<256x384xbf16>) -> tensor<256x384xbf16> {
  %r = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) transpose_rhs epilogue_ins(%m : tensor<256x384xbf16>) epilogue_maps([affine_map<(d0, d1) -> (d0, d1)>]) : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>, tensor<384x16xf8E8M0FNU> -> tensor<256x384xbf16> epilogue {
  ^bb0(%x: f32, %mb: bf16):
    %mv = arith.extf %mb : bf16 to f32
    %c = arith.constant 0.7978846 : f32
    %c2 = arith.constant 0.044715 : f32
    %x2 = arith.mulf %mv, %mv : f32
    %x3 = arith.mulf %x2, %mv : f32
    %i = arith.mulf %x3, %c2 : f32
    %i2 = arith.addf %i, %mv : f32
    %i3 = arith.mulf %i2, %c : f32
    %t = math.tanh %i3 : f32
    %y = arith.mulf %t, %x : f32
    %z = arith.truncf %y : f32 to bf16
    fp8.yield %z : bf16
  }
  return %r : tensor<256x384xbf16>
}

// MXFP8 without an epilogue matrix: in turn.
func.func @mxfp8(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<256x16xf8E8M0FNU>, %sb: tensor<384x16xf8E8M0FNU>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>, tensor<384x16xf8E8M0FNU> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}
