// A per-tensor quantization whose input a later column reduction reads
// whole (a bias gradient and the quantized gradient of the same dY) has no
// amax kernel: the reduction is launched at the quantization's place, and
// its kernel that reads the input (the partial one when the rows split, the
// only one otherwise) folds the magnitudes of what it reads into the
// quantization's zero-filled amax, by max.f32 (NaN does not count) or
// max.NaN.f32 (NaN wins) and one atomic max per warp. The amax is the same
// whatever the order, so the codes are those of the amax kernel.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t ptxas=none" --remarks-filter=fp8-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=SPLIT --input-file=%t/bias_grad_quantized.json
// RUN: FileCheck %s --check-prefix=PAIR --input-file=%t/bias_grad_pair.json
// RUN: FileCheck %s --check-prefix=ONE --input-file=%t/small_nan.json
// RUN: FileCheck %s --check-prefix=BEFORE --input-file=%t/reduced_before.json
// RUN: FileCheck %s --check-prefix=ROWS --input-file=%t/row_sums.json

// REMARK: remark: [Passed] amax-fused {{.*}} Function=bias_grad_quantized {{.*}}the per-tensor amax of fp8.dynamic_quantize measured by the kernel of the column reduction linalg.reduce that reads the same tensor, launched early: no amax kernel
// REMARK: remark: [Passed] amax-fused {{.*}} Function=bias_grad_pair
// REMARK: remark: [Passed] amax-fused {{.*}} Function=small_nan
// REMARK-NOT: amax-fused

// The partial column sums of bf16, measuring as they read: max.f32 of the
// magnitudes, a butterfly of max.f32, one atomic max by the first lane of
// each warp; then the sums as before.
// CHECK-LABEL: .entry fp8_reduce_cols_bf16_add_partial_vl_amax(
// CHECK-NOT: .entry
// CHECK: ld.global.v4.b32
// CHECK: cvt.f32.bf16
// CHECK: add.rn.f32
// CHECK: abs.f32
// CHECK: max.f32
// CHECK: shfl.sync.bfly.b32
// CHECK: max.f32
// CHECK: atom.global.max.u32
// CHECK: bar.sync 0;
// CHECK: st.global.v4.b32
// CHECK: ret;

// One launch of f32 column sums, NaN winning the amax.
// CHECK-LABEL: .entry fp8_reduce_cols_f32_f32_add_vl_amaxnan_i00000000(
// CHECK-NOT: .entry
// CHECK: abs.f32
// CHECK: max.NaN.f32
// CHECK: shfl.sync.bfly.b32
// CHECK: max.NaN.f32
// CHECK: atom.global.max.u32
// CHECK: ret;

// The amax buffer is filled, the partial kernel measures into it (its third
// argument), the partials are finished, and the quantize kernel reads the
// same buffer: no amax kernel.
// SPLIT:      "launches": [
// SPLIT-NEXT:   {
// SPLIT-NEXT:     "buffer": [[AMAX:[0-9]+]],
// SPLIT-NEXT:     "byte": 0,
// SPLIT-NEXT:     "kind": "fill"
// SPLIT-NOT:  fp8_amax
// SPLIT:      "kernel": "fp8_reduce_cols_bf16_add_partial_vl_amax",
// SPLIT:      "params": [
// SPLIT-NEXT:   {
// SPLIT-NEXT:     "buffer": 0,
// SPLIT:          "buffer": [[AMAX]],
// SPLIT:      "kernel": "fp8_reduce_cols_f32_f32_add_vl_i00000000",
// SPLIT-NOT:  fp8_amax
// SPLIT:      "kernel": "fp8_quantize_bf16_e5m2_b32x128_ratio_sat_vs_nanignore_vl",
// SPLIT:      "params": [
// SPLIT-NEXT:   {
// SPLIT-NEXT:     "buffer": 0,
// SPLIT-NEXT:     "kind": "buffer"
// SPLIT-NEXT:   },
// SPLIT-NEXT:   {
// SPLIT-NEXT:     "buffer": [[AMAX]],
// SPLIT-NOT:  "kernel":
func.func @bias_grad_quantized(%dy: tensor<1024x512xbf16>) -> (tensor<1024x512xf8E5M2>, tensor<1x1xf32>, tensor<512xf32>) {
  %q, %s = fp8.dynamic_quantize %dy by <tensor> rule <ratio> : tensor<1024x512xbf16> -> tensor<1024x512xf8E5M2>, tensor<1x1xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<512xf32>) -> tensor<512xf32>
  %r = linalg.reduce ins(%dy : tensor<1024x512xbf16>) outs(%init : tensor<512xf32>) dimensions = [0]
    (%in: bf16, %acc: f32) {
      %x = arith.extf %in : bf16 to f32
      %a = arith.addf %x, %acc : f32
      linalg.yield %a : f32
    }
  return %q, %s, %r : tensor<1024x512xf8E5M2>, tensor<1x1xf32>, tensor<512xf32>
}

// A row-wise and transposed pair of the same dY (a linear layer's dgrad
// and wgrad operands), its columns summed through a reshape into heads
// (planned before the quantization: a view of the same buffer): the paired
// kernel reads the amax the column sums measured.
// PAIR-NOT:  fp8_amax
// PAIR:      "kernel": "fp8_reduce_cols_bf16_add_partial_vl_amax",
// PAIR-NOT:  fp8_amax
// PAIR:      "kernel": "fp8_quantize_bf16_e4m3_b32x128_ratio_sat_vs_pair_b32x128_t
// PAIR-NOT:  fp8_amax
func.func @bias_grad_pair(%dy: tensor<1024x512xbf16>) -> (tensor<1024x512xf8E4M3FN>, tensor<512x1024xf8E4M3FN>, tensor<1x1xf32>, tensor<4x128xf32>) {
  %heads = tensor.expand_shape %dy [[0], [1, 2]] output_shape [1024, 4, 128] : tensor<1024x512xbf16> into tensor<1024x4x128xbf16>
  %q, %s, %qt, %st = fp8.dynamic_quantize %dy by <tensor> colwise <tensor> transposed rule <ratio> : tensor<1024x512xbf16> -> tensor<1024x512xf8E4M3FN>, tensor<1x1xf32> colwise tensor<512x1024xf8E4M3FN>, tensor<1x1xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x128xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x128xf32>) -> tensor<4x128xf32>
  %r = linalg.reduce ins(%heads : tensor<1024x4x128xbf16>) outs(%init : tensor<4x128xf32>) dimensions = [0]
    (%in: bf16, %acc: f32) {
      %x = arith.extf %in : bf16 to f32
      %a = arith.addf %x, %acc : f32
      linalg.yield %a : f32
    }
  return %q, %qt, %s, %r : tensor<1024x512xf8E4M3FN>, tensor<512x1024xf8E4M3FN>, tensor<1x1xf32>, tensor<4x128xf32>
}

// Too few rows to split: the one kernel of the sums measures, NaN winning.
// ONE-NOT: fp8_amax
// ONE:     "kernel": "fp8_reduce_cols_f32_f32_add_vl_amaxnan_i00000000",
// ONE-NOT: fp8_amax
// ONE:     "kernel": "fp8_quantize_f32_e4m3
// ONE-NOT: "kernel":
func.func @small_nan(%x: tensor<64x128xf32>) -> (tensor<64x128xf8E4M3FN>, tensor<1x1xf32>, tensor<128xf32>) {
  %q, %s = fp8.dynamic_quantize %x by <tensor> rule <ratio> nan <propagate> : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<1x1xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<128xf32>) -> tensor<128xf32>
  %r = linalg.reduce ins(%x : tensor<64x128xf32>) outs(%init : tensor<128xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return %q, %s, %r : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>, tensor<128xf32>
}

// Left to the amax kernel: a reduction planned before the quantization (it
// has its launches already), and a reduction of rows.
// BEFORE:     "kernel": "fp8_reduce_cols_f32_f32_add_vl_i00000000",
// BEFORE:     "kernel": "fp8_amax_f32_
// BEFORE:     "kernel": "fp8_quantize_f32_e4m3
func.func @reduced_before(%x: tensor<64x128xf32>) -> (tensor<128xf32>, tensor<64x128xf8E4M3FN>, tensor<1x1xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<128xf32>) -> tensor<128xf32>
  %r = linalg.reduce ins(%x : tensor<64x128xf32>) outs(%init : tensor<128xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  %q, %s = fp8.dynamic_quantize %x by <tensor> rule <ratio> : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<1x1xf32>
  return %r, %q, %s : tensor<128xf32>, tensor<64x128xf8E4M3FN>, tensor<1x1xf32>
}

// ROWS:     "kernel": "fp8_amax_f32_
// ROWS:     "kernel": "fp8_quantize_f32_e4m3
// ROWS:     "kernel": "fp8_reduce_rows_
func.func @row_sums(%x: tensor<64x128xf32>) -> (tensor<64x128xf8E4M3FN>, tensor<1x1xf32>, tensor<64xf32>) {
  %q, %s = fp8.dynamic_quantize %x by <tensor> rule <ratio> : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<1x1xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.reduce ins(%x : tensor<64x128xf32>) outs(%init : tensor<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return %q, %s, %r : tensor<64x128xf8E4M3FN>, tensor<1x1xf32>, tensor<64xf32>
}
