// Reductions on the GPU: rows by a warp (or a CTA when the rows are few and
// long), columns by 8 row lanes x 32 column groups per CTA, split over the
// grid into f32 partials when the columns alone would not fill the GPU;
// 16-byte loads where rows are 16-byte multiples, scalar loads otherwise;
// f32 accumulation; the op's initial value combined last (a filled constant
// as a constant); a body's ops before the combiner run on every element, an
// elementwise reader of the result before it is stored; softmax as its
// decomposition.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t ptxas=none fuse-rows=false" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: not grep __nv_ %t/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=ROWS --input-file=%t/row_sum.json
// RUN: FileCheck %s --check-prefix=CTA --input-file=%t/row_max_long.json
// RUN: FileCheck %s --check-prefix=SPLIT --input-file=%t/bias_grad.json
// RUN: FileCheck %s --check-prefix=SMALL --input-file=%t/bias_grad_small.json
// RUN: FileCheck %s --check-prefix=ROUNDED --input-file=%t/bias_grad_rounded.json
// RUN: FileCheck %s --check-prefix=SOFTMAX --input-file=%t/softmax.json

// A warp per bf16 row into f32 sums: 16-byte loads, a butterfly of shuffles,
// the init added last.
// CHECK-LABEL: .entry fp8_reduce_rows_bf16_f32_add_warp_vl(
// CHECK-NOT: .entry
// CHECK: ld.global.v4.b32
// CHECK: cvt.f32.bf16
// CHECK: add.rn.f32
// CHECK: shfl.sync.bfly.b32
// CHECK-NOT: bar.sync
// CHECK: ld.global.b32
// CHECK: add.rn.f32
// CHECK: st.global.b32
// CHECK: ret;

// The maximum of few long rows, by a CTA each: warps in order through shared
// memory, max.f32 (NaN loses) without libdevice; the filled init, the lowest
// f32, is a constant of the kernel (named by its bits), combined last.
// CHECK-LABEL: .entry fp8_reduce_rows_f32_f32_maxnum_cta_vl_iff7fffff(
// CHECK-NOT: .entry
// CHECK: ld.global.v4.b32
// CHECK: max.f32
// CHECK: shfl.sync.bfly.b32
// CHECK: st.shared.b32
// CHECK: bar.sync 0;
// CHECK: ld.shared.v4.b32
// CHECK-NOT: ld.global
// CHECK: max.f32 {{.*}}, 0fFF7FFFFF;
// CHECK: st.global.b32
// CHECK: ret;

// Column sums of a bf16 matrix split over the rows: f32 partials, then a
// column reduction of those into bf16 results.
// CHECK-LABEL: .entry fp8_reduce_cols_bf16_add_partial_vl(
// CHECK-NOT: .entry
// CHECK: ld.global.v4.b32
// CHECK: st.shared.v4.b32
// CHECK: bar.sync 0;
// CHECK: ld.shared.v4.b32
// CHECK: st.global.v4.b32
// CHECK: ret;
// CHECK-LABEL: .entry fp8_reduce_cols_f32_bf16_add_vl(
// CHECK-NOT: .entry
// CHECK: ld.global.v4.b32
// CHECK: bar.sync 0;
// CHECK: ld.global.v4.b16
// CHECK: cvt.rn.bf16x2.f32
// CHECK: st.global.v2.b32
// CHECK: ret;

// Small f32 column sums: one launch, the filled zeros added last as a
// constant.
// CHECK-LABEL: .entry fp8_reduce_cols_f32_f32_add_vl_i00000000(

// Column sums in f32 rounded to bf16 by the generic that reads them: the
// kernel finishing the partials (named by the f32 sums and the generic's
// body) rounds before it stores (no kernel for the generic, no buffer for
// the f32 sums).
// CHECK-LABEL: .entry fp8_reduce_cols_f32_f32_add_vl_i00000000_e{{[0-9a-f]+}}(
// CHECK-NOT: .entry
// CHECK: bar.sync 0;
// CHECK-NOT: ld.global
// CHECK: cvt.rn.bf16x2.f32
// CHECK: st.global.v2.b32
// CHECK: ret;


// Ragged f16 rows (37 elements, 74 bytes): scalar loads only.
// CHECK-LABEL: .entry fp8_reduce_rows_f16_f16_add_warp(
// CHECK-NOT: .entry
// CHECK-NOT: ld.global.v4
// CHECK: ld.global.b16
// CHECK: cvt.f32.f16
// CHECK: cvt.rn.f16.f32
// CHECK: st.global.b16
// CHECK: ret;

// The middle dimension of [heads, tokens, width]: one launch, the init read
// and added last.
// CHECK-LABEL: .entry fp8_reduce_cols_f32_f32_add_vl(
// Sums of squares (RMSNorm): the body's multiply runs on every element.
// CHECK-LABEL: .entry fp8_reduce_rows_f32_f32_add_warp_vl_p
// CHECK-NOT: .entry
// CHECK: mul.rn.f32
// CHECK: add.rn.f32
// CHECK: ret;

// Ragged columns (37 bf16, 74 bytes): a column per thread, split into
// partials.
// CHECK-LABEL: .entry fp8_reduce_cols_bf16_add_partial(
// CHECK-NOT: .entry
// CHECK-NOT: ld.global.v4
// CHECK: ld.global.b16
// CHECK: st.global.b32
// CHECK: ret;
// CHECK-LABEL: .entry fp8_reduce_cols_f32_f32_add(
// CHECK-NOT: .entry
// CHECK-NOT: ld.global.v4
// CHECK: ret;

// The other combiners: products, minima and maxima that NaN wins
// (min.NaN, max.NaN), ragged rows by a CTA.
// CHECK-LABEL: .entry fp8_reduce_rows_f32_f32_mul_cta_vl(
// CHECK: mul.rn.f32
// CHECK-LABEL: .entry fp8_reduce_rows_f32_f32_minimum_warp_vl(
// CHECK: min.NaN.f32
// CHECK-LABEL: .entry fp8_reduce_rows_bf16_bf16_maximum_cta(
// CHECK-NOT: .entry
// CHECK-NOT: ld.global.v4
// CHECK: max.NaN.f32
// CHECK: bar.sync 0;
// CHECK: ret;
// CHECK-LABEL: .entry fp8_reduce_rows_f32_f32_minnum_warp_vl(
// CHECK: min.f32

// The decomposed softmax: a row maximum (NaN loses, from a NaN init),
// exp(x - max) whose polynomial rounds k as the last place of a sum with
// 1.5 * 2^23 (numerics.md section 17), a row sum from zeros, the division.
// CHECK-LABEL: .entry fp8_reduce_rows_f32_f32_maxnum_warp_vl_iffc00000(
// CHECK-LABEL: .entry fp8_elementwise_4x64x64_{{[0-9a-f]+}}(
// CHECK: add.rn.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, 0f4B400000;
// CHECK-LABEL: .entry fp8_reduce_rows_f32_f32_add_warp_vl_i00000000(

// Eight rows per CTA; the input, init and result, then the extents.
// ROWS:      "grid": [
// ROWS-NEXT:   64,
// ROWS:      "kernel": "fp8_reduce_rows_bf16_f32_add_warp_vl",
// ROWS:      "buffer": 0,
// ROWS:      "buffer": 1,
// ROWS:      "buffer": 2,
// ROWS:      "value": 512
// ROWS:      "value": 1024
// ROWS:      "shared_bytes": 0
func.func @row_sum(%x: tensor<512x1024xbf16>, %init: tensor<512xf32>) -> tensor<512xf32> {
  %r = linalg.reduce ins(%x : tensor<512x1024xbf16>) outs(%init : tensor<512xf32>) dimensions = [1]
    (%in: bf16, %acc: f32) {
      %e = arith.extf %in : bf16 to f32
      %s = arith.addf %e, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<512xf32>
}

// One CTA per row; no fill, no init buffer: the input and the result, then
// the extents.
// CTA-NOT:  "kernel":
// CTA:      "block": [
// CTA-NEXT:   256,
// CTA:      "grid": [
// CTA-NEXT:   64,
// CTA:      "kernel": "fp8_reduce_rows_f32_f32_maxnum_cta_vl_iff7fffff",
// CTA-NEXT: "kind": "kernel",
// CTA-NEXT: "params": [
// CTA-NEXT:   {
// CTA-NEXT:     "buffer": 0,
// CTA-NEXT:     "kind": "buffer"
// CTA-NEXT:   },
// CTA-NEXT:   {
// CTA-NEXT:     "buffer": [[OUT:[0-9]+]],
// CTA-NEXT:     "kind": "buffer"
// CTA-NEXT:   },
// CTA-NEXT:   {
// CTA-NEXT:     "kind": "i32",
// CTA-NEXT:     "value": 64
// CTA:      "shared_bytes": 32
// CTA-NOT:  "kernel":
func.func @row_max_long(%x: tensor<64x8192xf32>) -> tensor<64xf32> {
  %lowest = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<64xf32>
  %init = linalg.fill ins(%lowest : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x8192xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maxnumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// 16 CTAs of 256 columns; 66 splits of 125 rows fill 132 SMs 8 times; then
// the 66 partial rows.
// SPLIT:      "bytes": 1081344,
// SPLIT:      "kind": "temp",
// SPLIT-NEXT: "offset": 0,
// SPLIT-NEXT: "shape": [
// SPLIT-NEXT:   1,
// SPLIT-NEXT:   66,
// SPLIT-NEXT:   4096
// SPLIT:      "grid": [
// SPLIT-NEXT:   16,
// SPLIT-NEXT:   66,
// SPLIT-NEXT:   1
// SPLIT:      "kernel": "fp8_reduce_cols_bf16_add_partial_vl",
// SPLIT:      "buffer": 0,
// SPLIT:      "buffer": 3,
// SPLIT:      "value": 1
// SPLIT:      "value": 8192
// SPLIT:      "value": 4096
// SPLIT:      "value": 125
// SPLIT:      "shared_bytes": 8192
// SPLIT:      "grid": [
// SPLIT-NEXT:   32,
// SPLIT-NEXT:   1,
// SPLIT-NEXT:   1
// SPLIT:      "kernel": "fp8_reduce_cols_f32_bf16_add_vl",
// SPLIT:      "buffer": 3,
// SPLIT:      "buffer": 1,
// SPLIT:      "buffer": 2,
// SPLIT:      "value": 1
// SPLIT:      "value": 66
// SPLIT:      "value": 4096
// SPLIT:      "value": 66
// SPLIT:      "shared_bytes": 4096
func.func @bias_grad(%dy: tensor<8192x4096xbf16>, %init: tensor<4096xbf16>) -> tensor<4096xbf16> {
  %r = linalg.reduce ins(%dy : tensor<8192x4096xbf16>) outs(%init : tensor<4096xbf16>) dimensions = [0]
    (%in: bf16, %acc: bf16) {
      %s = arith.addf %in, %acc : bf16
      linalg.yield %s : bf16
    }
  return %r : tensor<4096xbf16>
}

// One reduction: the filled zeros need no kernel.
// SMALL-NOT: "kernel":
// SMALL:     "grid": [
// SMALL-NEXT:  1,
// SMALL-NEXT:  1,
// SMALL-NEXT:  1
// SMALL:     "kernel": "fp8_reduce_cols_f32_f32_add_vl_i00000000",
// SMALL-NOT: "kernel":
func.func @bias_grad_small(%dy: tensor<64x128xf32>) -> tensor<128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<128xf32>) -> tensor<128xf32>
  %r = linalg.reduce ins(%dy : tensor<64x128xf32>) outs(%init : tensor<128xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<128xf32>
}

// bf16 column sums accumulated in f32 and rounded by a generic, as a bf16
// model's bias gradient: the partials, then their reduction, which rounds;
// no fill, no kernel for the rounding.
// ROUNDED-NOT: "kernel":
// ROUNDED:     "kernel": "fp8_reduce_cols_bf16_add_partial_vl",
// ROUNDED:     "kernel": "fp8_reduce_cols_f32_f32_add_vl_i00000000_e{{[0-9a-f]+}}",
// ROUNDED-NOT: "kernel":
func.func @bias_grad_rounded(%dy: tensor<8192x4096xbf16>) -> tensor<4096xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4096xf32>) -> tensor<4096xf32>
  %r = linalg.reduce ins(%dy : tensor<8192x4096xbf16>) outs(%init : tensor<4096xf32>) dimensions = [0]
    (%in: bf16, %acc: f32) {
      %x = arith.extf %in : bf16 to f32
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  %b = tensor.empty() : tensor<4096xbf16>
  %t = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%r : tensor<4096xf32>) outs(%b : tensor<4096xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %c = arith.truncf %a : f32 to bf16
    linalg.yield %c : bf16
  } -> tensor<4096xbf16>
  return %t : tensor<4096xbf16>
}

func.func @ragged(%x: tensor<100x37xf16>, %init: tensor<100xf16>) -> tensor<100xf16> {
  %r = linalg.reduce ins(%x : tensor<100x37xf16>) outs(%init : tensor<100xf16>) dimensions = [1]
    (%in: f16, %acc: f16) {
      %s = arith.addf %in, %acc : f16
      linalg.yield %s : f16
    }
  return %r : tensor<100xf16>
}

// The middle dimension of [heads, tokens, width]: columns in batches.
func.func @batched_columns(%x: tensor<4x64x32xf32>, %init: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %r = linalg.reduce ins(%x : tensor<4x64x32xf32>) outs(%init : tensor<4x32xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<4x32xf32>
}

func.func @sum_of_squares(%x: tensor<64x128xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.reduce ins(%x : tensor<64x128xf32>) outs(%init : tensor<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %sq = arith.mulf %in, %in : f32
      %s = arith.addf %sq, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<64xf32>
}

// The fills of the maximum's and the sum's inits, exp(x - max), the
// division.
func.func @ragged_columns(%x: tensor<200x37xbf16>, %init: tensor<37xf32>) -> tensor<37xf32> {
  %r = linalg.reduce ins(%x : tensor<200x37xbf16>) outs(%init : tensor<37xf32>) dimensions = [0]
    (%in: bf16, %acc: f32) {
      %e = arith.extf %in : bf16 to f32
      %s = arith.addf %e, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<37xf32>
}

func.func @combiners(%x: tensor<16x4096xf32>, %y: tensor<512x64xf32>, %z: tensor<8x3001xbf16>,
                     %i: tensor<16xf32>, %j: tensor<512xf32>, %k: tensor<8xbf16>)
    -> (tensor<16xf32>, tensor<512xf32>, tensor<8xbf16>, tensor<512xf32>) {
  %p = linalg.reduce ins(%x : tensor<16x4096xf32>) outs(%i : tensor<16xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.mulf %in, %acc : f32
      linalg.yield %r : f32
    }
  %m = linalg.reduce ins(%y : tensor<512x64xf32>) outs(%j : tensor<512xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.minimumf %in, %acc : f32
      linalg.yield %r : f32
    }
  %n = linalg.reduce ins(%z : tensor<8x3001xbf16>) outs(%k : tensor<8xbf16>) dimensions = [1]
    (%in: bf16, %acc: bf16) {
      %r = arith.maximumf %in, %acc : bf16
      linalg.yield %r : bf16
    }
  %q = linalg.reduce ins(%y : tensor<512x64xf32>) outs(%j : tensor<512xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.minnumf %acc, %in : f32
      linalg.yield %r : f32
    }
  return %p, %m, %n, %q : tensor<16xf32>, tensor<512xf32>, tensor<8xbf16>, tensor<512xf32>
}

// SOFTMAX-NOT: "kernel":
// SOFTMAX:     "kernel": "fp8_reduce_rows_f32_f32_maxnum_warp_vl_iffc00000",
// SOFTMAX:     "kernel": "fp8_elementwise_4x64x64_{{[0-9a-f]+}}",
// SOFTMAX:     "kernel": "fp8_reduce_rows_f32_f32_add_warp_vl_i00000000",
// SOFTMAX:     "kernel": "fp8_elementwise_4x64x64_{{[0-9a-f]+}}",
// SOFTMAX-NOT: "kernel":
func.func @softmax(%x: tensor<4x64x64xf32>) -> tensor<4x64x64xf32> {
  %e = tensor.empty() : tensor<4x64x64xf32>
  %r = linalg.softmax dimension(2) ins(%x : tensor<4x64x64xf32>) outs(%e : tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  return %r : tensor<4x64x64xf32>
}
