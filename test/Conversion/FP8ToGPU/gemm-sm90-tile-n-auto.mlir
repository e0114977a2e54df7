// convert-fp8-to-gpu's default, sm90-tile-n=auto: an FP8 GEMM whose scaling
// allows 128 x 192 tiles takes them where they are estimated to finish its
// product sooner on the chip's multiprocessors (132 by default): a wave of
// wide tiles takes 1.5 times as long as one of 128 x 128 tiles over 1.12,
// the gain measured at 8192^3 on an H100, and each persistent CTA runs
// ceil(tiles / 132) of them.
//   * 8192 x 8192: 4096 narrow tiles (32 waves) against 2752 wide ones (21
//     waves): 32 * 1.12 / (1.5 * 21) = 1.14, wide tiles;
//   * 4096 x 4096: 8 waves against 6: 0.996, narrow tiles (the H100 ran
//     both at the same speed);
//   * 2048 x 2048: 2 waves against 2: 0.75, narrow tiles;
//   * 8192 x 8192 with DeepSeek's 1x128 / 128x128 blocks: wide tiles, each
//     straddling two of B's 128-row blocks (estimated as the per-tensor
//     tiles are);
//   * 8192 x 8192 with 1x128 blocks on both operands (a scale per column
//     of B, staged in shared memory): narrow tiles (an H100 ran the wide
//     ones no faster at 8192^3 and slower at 4096^3);
//   * 8192 x 8192 whose epilogue adds a bf16 residual of the result's
//     shape, which the wide tiles stage in shared memory: wide tiles (an
//     H200 ran the MLP block's residual GEMMs 6 to 8% faster so);
//   * the same with an f32 residual, which 128 x 192 tiles cannot stage
//     (3 stages would be left), and with a tanh of the residual sum: narrow
//     tiles (an H100 ran the MLP block's GELU-derivative GEMM, whose
//     epilogue reads the pre-activation, slower with wide tiles);
//   * high-precision GEMMs keep 128 columns (no GPU has timed their wide
//     tiles): no remark.
// Each automatic choice is a `tiles` remark; 128 or 192 forces the tiles.
// The five kernels checked below store their results by TMA by default
// (tma in their names: the result tile takes a pipeline stage), from
// registers with sm90-tma-store=0 (REG); the choice of tiles is the same.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-graph-pipeline=chip=sm_90a --convert-fp8-to-gpu="chip=sm_90a" -remarks-filter=fp8-gpu -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK --implicit-check-not="] tiles |"
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: fp8-opt %s --fp8-gpu-graph-pipeline=chip=sm_90a --convert-fp8-to-gpu="chip=sm_90a sm90-tma-store=0" | FileCheck %s --check-prefix=REG
// RUN: fp8-opt %s --convert-fp8-to-gpu="chip=sm_90a sm90-tile-n=128" -remarks-filter=fp8-gpu -o - 2>&1 | FileCheck %s --check-prefix=NARROW --implicit-check-not="] tiles |"
// RUN: fp8-opt %s --convert-fp8-to-gpu="chip=sm_90a num-sms=264" -remarks-filter=fp8-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=SMS

// REMARK-DAG: remark: [Passed] tiles | Category:fp8-gpu | Function=big | Remark="fp8.scaled_matmul (8192 x 8192 product) takes 128 x 192 tiles: 128 x 192 tiles estimated at 1.14x the speed of 128 x 128 ones on 132 multiprocessors (sm90-tile-n=auto; 192 or 128 forces)"
// REMARK-DAG: remark: [Analysis] tiles | Category:fp8-gpu | Function=tie | Remark="fp8.scaled_matmul (4096 x 4096 product) takes 128 x 128 tiles: 128 x 192 tiles estimated at 1.00x the speed
// REMARK-DAG: remark: [Passed] tiles | Category:fp8-gpu | Function=residual | Remark="fp8.scaled_matmul (8192 x 8192 product) takes 128 x 192 tiles: 128 x 192 tiles estimated at 1.14x the speed of 128 x 128 ones on 132 multiprocessors (sm90-tile-n=auto; 192 or 128 forces)"
// REMARK-DAG: remark: [Analysis] tiles | Category:fp8-gpu | Function=residual_f32 | Remark="fp8.scaled_matmul (8192 x 8192 product) takes 128 x 128 tiles: 128 x 192 tiles estimated at 1.14x the speed of 128 x 128 ones on 132 multiprocessors, but its epilogue reads a tensor of the result's shape and computes a transcendental function, or cannot stage it in shared memory with them
// REMARK-DAG: remark: [Analysis] tiles | Category:fp8-gpu | Function=residual_gelu | Remark="fp8.scaled_matmul (8192 x 8192 product) takes 128 x 128 tiles: 128 x 192 tiles estimated at 1.14x the speed of 128 x 128 ones on 132 multiprocessors, but its epilogue reads a tensor of the result's shape and computes a transcendental function
// REMARK-DAG: remark: [Passed] tiles | Category:fp8-gpu | Function=deepseek | Remark="fp8.scaled_matmul (8192 x 8192 product) takes 128 x 192 tiles: 128 x 192 tiles estimated at 1.14x
// REMARK-DAG: remark: [Analysis] tiles | Category:fp8-gpu | Function=deepseek_columns | Remark="fp8.scaled_matmul (8192 x 8192 product) takes 128 x 128 tiles: 128 x 192 tiles estimated at 1.14x the speed of 128 x 128 ones on 132 multiprocessors, but B's scales are per column, staged in shared memory for each K tile (sm90-tile-n=auto; 192 or 128 forces)"
// REMARK-DAG: remark: [Analysis] tiles | Category:fp8-gpu | Function=small | Remark="fp8.scaled_matmul (2048 x 2048 product) takes 128 x 128 tiles: 128 x 192 tiles estimated at 0.75x

// CHECK-DAG: llvm.func @fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_tma_128x192_s4(
// CHECK-DAG: llvm.func @fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_tma_128x128_s6(
// CHECK-DAG: llvm.func @fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32sq_tma_128x192_s4(
// CHECK-DAG: llvm.func @fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32_tma_128x128_s6(
// CHECK-DAG: llvm.func @gemm_sm90a_bf16_f32_tma_128x128_s5(
// REG-DAG: llvm.func @fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_128x192_s5(
// REG-DAG: llvm.func @fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_p4_128x128_s7(
// REG-DAG: llvm.func @fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32sq_128x192_s5(
// REG-DAG: llvm.func @fp8_gemm_sm90a_e4m3e4m3_bf16_block128f32_128x128_s7(
// REG-DAG: llvm.func @gemm_sm90a_bf16_f32_128x128_s7(

// sm90-tile-n=128: no choice to remark on.
// NARROW-NOT: 128x192

// Twice the multiprocessors: 8192 x 8192 is 16 waves against 11 (1.09x).
// SMS: Function=big | Remark="fp8.scaled_matmul (8192 x 8192 product) takes 128 x 192 tiles: 128 x 192 tiles estimated at 1.09x the speed of 128 x 128 ones on 264 multiprocessors

func.func @big(%a: tensor<8192x256xf8E4M3FN>, %b: tensor<8192x256xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<8192x8192xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<8192x256xf8E4M3FN>, tensor<8192x256xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<8192x8192xbf16>
  return %c : tensor<8192x8192xbf16>
}

func.func @tie(%a: tensor<4096x256xf8E4M3FN>, %b: tensor<4096x256xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<4096x4096xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<4096x256xf8E4M3FN>, tensor<4096x256xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<4096x4096xbf16>
  return %c : tensor<4096x4096xbf16>
}

func.func @small(%a: tensor<2048x256xf8E4M3FN>, %b: tensor<2048x256xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<2048x2048xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<2048x256xf8E4M3FN>, tensor<2048x256xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<2048x2048xbf16>
  return %c : tensor<2048x2048xbf16>
}

func.func @deepseek(%a: tensor<8192x256xf8E4M3FN>, %b: tensor<8192x256xf8E4M3FN>, %sa: tensor<8192x2xf32>, %sb: tensor<64x2xf32>) -> tensor<8192x8192xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs : tensor<8192x256xf8E4M3FN>, tensor<8192x256xf8E4M3FN>, tensor<8192x2xf32>, tensor<64x2xf32> -> tensor<8192x8192xbf16>
  return %c : tensor<8192x8192xbf16>
}

func.func @deepseek_columns(%a: tensor<8192x256xf8E4M3FN>, %b: tensor<8192x256xf8E4M3FN>, %sa: tensor<8192x2xf32>, %sb: tensor<8192x2xf32>) -> tensor<8192x8192xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <1x128>) transpose_rhs : tensor<8192x256xf8E4M3FN>, tensor<8192x256xf8E4M3FN>, tensor<8192x2xf32>, tensor<8192x2xf32> -> tensor<8192x8192xbf16>
  return %c : tensor<8192x8192xbf16>
}

func.func @bf16(%a: tensor<8192x128xbf16>, %b: tensor<8192x128xbf16>) -> tensor<8192x8192xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8192x8192xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8192x8192xf32>) -> tensor<8192x8192xf32>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<8192x128xbf16>, tensor<8192x128xbf16>) outs(%init : tensor<8192x8192xf32>) -> tensor<8192x8192xf32>
  return %c : tensor<8192x8192xf32>
}

func.func @residual(%a: tensor<8192x256xf8E4M3FN>, %b: tensor<8192x256xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>, %res: tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> {
  %p = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<8192x256xf8E4M3FN>, tensor<8192x256xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<8192x8192xbf16>
  %e = tensor.empty() : tensor<8192x8192xbf16>
  %s = linalg.add ins(%p, %res : tensor<8192x8192xbf16>, tensor<8192x8192xbf16>) outs(%e : tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16>
  return %s : tensor<8192x8192xbf16>
}

func.func @residual_f32(%a: tensor<8192x256xf8E4M3FN>, %b: tensor<8192x256xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>, %res: tensor<8192x8192xf32>) -> tensor<8192x8192xf32> {
  %p = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<8192x256xf8E4M3FN>, tensor<8192x256xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<8192x8192xf32>
  %e = tensor.empty() : tensor<8192x8192xf32>
  %s = linalg.add ins(%p, %res : tensor<8192x8192xf32>, tensor<8192x8192xf32>) outs(%e : tensor<8192x8192xf32>) -> tensor<8192x8192xf32>
  return %s : tensor<8192x8192xf32>
}

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @residual_gelu(%a: tensor<8192x256xf8E4M3FN>, %b: tensor<8192x256xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>, %res: tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> {
  %p = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<8192x256xf8E4M3FN>, tensor<8192x256xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<8192x8192xf32>
  %e = tensor.empty() : tensor<8192x8192xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %res : tensor<8192x8192xf32>, tensor<8192x8192xbf16>) outs(%e : tensor<8192x8192xbf16>) {
  ^bb0(%x: f32, %r: bf16, %out: bf16):
    %w = arith.extf %r : bf16 to f32
    %s = arith.addf %x, %w : f32
    %t = math.tanh %s : f32
    %n = arith.truncf %t : f32 to bf16
    linalg.yield %n : bf16
  } -> tensor<8192x8192xbf16>
  return %y : tensor<8192x8192xbf16>
}
