// Codes in rows of 40 bytes (K = 40), read by a GEMM, whose TMA reads rows
// 16-byte multiples apart, and by an op that reads them dense: their
// decoding (an elementwise kernel, or a row sum's or an amax's fused
// prologue) or a store to a global. The quantization writes them dense
// (pitch 40), and a layout kernel copies them for the GEMM into rows padded
// to 48. Before, the quantization padded them and the dense readers read
// the padding as codes. Codes that only GEMMs and transposes read stay
// padded (a layout kernel reads them by their pitch): here a returned
// transpose, which the quantization writes itself, dense, beside the padded
// rows; it used to leave the rows unpadded, which the GEMM refused.
// REQUIRES: ptxas
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t/sm90" -o /dev/null
// RUN: not grep -E "[1-9][0-9]* bytes (spill|stack)" %t/sm90/fp8_kernels.ptxas.log
// RUN: fp8-opt %s --fp8-gpu-pipeline="chip=sm_100a artifacts=%t/sm100 ptxas=none" -o /dev/null
// RUN: for f in deq rowsum amax store; do for c in sm90 sm100; do \
// RUN:   fp8-run --check %t/$c/$f.json | FileCheck %s; done; done
// RUN: fp8-run --check %t/sm90/returned_transpose.json | FileCheck %s --check-prefix=KEPT
// RUN: fp8-run --check %t/sm100/returned_transpose.json | FileCheck %s --check-prefix=KEPT

// CHECK: temp: buffer [[CODES:[0-9]+]] f8e4m3 [64, 40] 2560 bytes at
// CHECK: kernel fp8_quantize_f32_e4m3_
// CHECK-NEXT: param 0: buffer 0
// CHECK-NEXT: param 1: buffer {{[0-9]+}}
// CHECK-NEXT: param 2: buffer [[CODES]]
// CHECK: param 6: i32 64
// CHECK-NEXT: param 7: i32 40
// CHECK-NEXT: param 8: i32 40
// CHECK: kernel fp8_layout_copy_
// CHECK-NEXT: param 0: buffer [[CODES]]
// CHECK-NEXT: param 1: buffer [[COPY:[0-9]+]]
// CHECK: param 6: i32 40
// CHECK-NEXT: param 7: i32 1
// CHECK-NEXT: param 8: i32 48
// CHECK-NEXT: param 9: i32 1
// CHECK-NEXT: launch {{[0-9]+}}: kernel fp8_gemm_sm{{90|100}}a
// CHECK-NEXT: param 0: tensor_map buffer [[COPY]] uint8 dims [40, 64] strides [48]
// CHECK: ok:

// KEPT: output 1: buffer {{[0-9]+}} f8e4m3 [40, 64] 2560 bytes
// KEPT: temp: buffer [[CODES:[0-9]+]] f8e4m3 [64, 40] 3072 bytes (rows of 48)
// KEPT-NOT: fp8_layout
// KEPT: kernel fp8_gemm_sm{{90|100}}a
// KEPT-NEXT: param 0: tensor_map buffer [[CODES]] uint8 dims [40, 64] strides [48]
// KEPT: ok:

func.func @deq(%x: tensor<64x40xf32>, %w: tensor<72x40xf32>) -> (tensor<64x72xf32>, tensor<64x40xf32>) {
  %q, %s = fp8.dynamic_quantize %x by <tensor> rule <ratio> : tensor<64x40xf32> -> tensor<64x40xf8E4M3FN>, tensor<1x1xf32>
  %qw, %sw = fp8.dynamic_quantize %w by <tensor> rule <ratio> : tensor<72x40xf32> -> tensor<72x40xf8E4M3FN>, tensor<1x1xf32>
  %p = fp8.scaled_matmul %q, %qw scales(%s, %sw) by(<tensor>, <tensor>) transpose_rhs : tensor<64x40xf8E4M3FN>, tensor<72x40xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x72xf32>
  %d = fp8.dequantize %q, %s by <tensor> : tensor<64x40xf8E4M3FN>, tensor<1x1xf32> -> tensor<64x40xf32>
  return %p, %d : tensor<64x72xf32>, tensor<64x40xf32>
}

func.func @rowsum(%x: tensor<64x40xf32>, %w: tensor<72x40xf32>) -> (tensor<64x72xf32>, tensor<64xf32>) {
  %q, %s = fp8.dynamic_quantize %x by <tensor> rule <ratio> : tensor<64x40xf32> -> tensor<64x40xf8E4M3FN>, tensor<1x1xf32>
  %qw, %sw = fp8.dynamic_quantize %w by <tensor> rule <ratio> : tensor<72x40xf32> -> tensor<72x40xf8E4M3FN>, tensor<1x1xf32>
  %p = fp8.scaled_matmul %q, %qw scales(%s, %sw) by(<tensor>, <tensor>) transpose_rhs : tensor<64x40xf8E4M3FN>, tensor<72x40xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x72xf32>
  %d = fp8.dequantize %q, %s by <tensor> : tensor<64x40xf8E4M3FN>, tensor<1x1xf32> -> tensor<64x40xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.reduce ins(%d : tensor<64x40xf32>) outs(%f : tensor<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return %p, %r : tensor<64x72xf32>, tensor<64xf32>
}

func.func @amax(%x: tensor<64x40xf32>, %w: tensor<72x40xf32>) -> (tensor<64x72xf32>, tensor<1x1xf32>) {
  %q, %s = fp8.dynamic_quantize %x by <tensor> rule <ratio> : tensor<64x40xf32> -> tensor<64x40xf8E4M3FN>, tensor<1x1xf32>
  %qw, %sw = fp8.dynamic_quantize %w by <tensor> rule <ratio> : tensor<72x40xf32> -> tensor<72x40xf8E4M3FN>, tensor<1x1xf32>
  %p = fp8.scaled_matmul %q, %qw scales(%s, %sw) by(<tensor>, <tensor>) transpose_rhs : tensor<64x40xf8E4M3FN>, tensor<72x40xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x72xf32>
  %d = fp8.dequantize %q, %s by <tensor> : tensor<64x40xf8E4M3FN>, tensor<1x1xf32> -> tensor<64x40xf32>
  %a = fp8.amax %d by <tensor> : tensor<64x40xf32> -> tensor<1x1xf32>
  return %p, %a : tensor<64x72xf32>, tensor<1x1xf32>
}

ml_program.global private mutable @codes(dense<0.0> : tensor<64x40xf8E4M3FN>) : tensor<64x40xf8E4M3FN>
func.func @store(%x: tensor<64x40xf32>, %w: tensor<72x40xf32>) -> tensor<64x72xf32> {
  %q, %s = fp8.dynamic_quantize %x by <tensor> rule <ratio> : tensor<64x40xf32> -> tensor<64x40xf8E4M3FN>, tensor<1x1xf32>
  %qw, %sw = fp8.dynamic_quantize %w by <tensor> rule <ratio> : tensor<72x40xf32> -> tensor<72x40xf8E4M3FN>, tensor<1x1xf32>
  %p = fp8.scaled_matmul %q, %qw scales(%s, %sw) by(<tensor>, <tensor>) transpose_rhs : tensor<64x40xf8E4M3FN>, tensor<72x40xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x72xf32>
  ml_program.global_store @codes = %q : tensor<64x40xf8E4M3FN>
  return %p : tensor<64x72xf32>
}

func.func @returned_transpose(%x: tensor<64x40xf32>, %w: tensor<72x40xf32>) -> (tensor<64x72xf32>, tensor<40x64xf8E4M3FN>) {
  %q, %s = fp8.dynamic_quantize %x by <tensor> rule <ratio> : tensor<64x40xf32> -> tensor<64x40xf8E4M3FN>, tensor<1x1xf32>
  %qw, %sw = fp8.dynamic_quantize %w by <tensor> rule <ratio> : tensor<72x40xf32> -> tensor<72x40xf8E4M3FN>, tensor<1x1xf32>
  %p = fp8.scaled_matmul %q, %qw scales(%s, %sw) by(<tensor>, <tensor>) transpose_rhs : tensor<64x40xf8E4M3FN>, tensor<72x40xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x72xf32>
  %e = tensor.empty() : tensor<40x64xf8E4M3FN>
  %t = linalg.transpose ins(%q : tensor<64x40xf8E4M3FN>) outs(%e : tensor<40x64xf8E4M3FN>) permutation = [1, 0]
  return %p, %t : tensor<64x72xf32>, tensor<40x64xf8E4M3FN>
}
