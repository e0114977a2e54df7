// Row groups: a reduction of the last dimension and the ops over the same
// rows around it run as one kernel that reads each tensor of the row once
// and writes only what others read, a warp per row (four rows per CTA)
// where a warp's threads hold the row, else a CTA per row: a softmax
// (maximum, exp(x - max), sum, division), a softmax in bf16 over rows of
// 1024, a LayerNorm with CTA-wide reductions through shared memory whose
// statistics the function returns,
// a softmax gradient (the product it sums is computed in the kernel), and
// ragged rows. Refused: rows too long for registers, a result read before
// the group's last op. The fills of the reductions' initial values have no
// kernel; fuse-rows=false keeps a kernel per op (the reduction kernels take
// the filled constants too).
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t ptxas=none" \
// RUN:   -remarks-filter=fp8-gpu -o /dev/null 2> %t.remarks
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: not grep __nv_ %t/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=REMARK --input-file=%t.remarks
// RUN: FileCheck %s --check-prefix=SOFTMAX --input-file=%t/softmax.json
// RUN: FileCheck %s --check-prefix=SCORES --input-file=%t/scores_softmax.json
// RUN: FileCheck %s --check-prefix=NORM --input-file=%t/layernorm.json
// RUN: FileCheck %s --check-prefix=GRAD --input-file=%t/softmax_grad.json
// RUN: FileCheck %s --check-prefix=RAGGED --input-file=%t/ragged.json
// RUN: FileCheck %s --check-prefix=LONG --input-file=%t/long_rows.json
// RUN: FileCheck %s --check-prefix=EARLY --input-file=%t/read_early.json
// RUN: rm -rf %t.off && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t.off ptxas=none fuse-rows=false" \
// RUN:   -remarks-filter=fp8-gpu -o /dev/null 2> %t.off.remarks
// RUN: FileCheck %s --check-prefix=OFF --input-file=%t.off/softmax.json
// RUN: not grep rows-fused %t.off.remarks

// REMARK: remark: [Passed] rows-fused | Category:fp8-gpu | Function=softmax | Remark="4 ops over rows of 64 elements in one kernel of 32 threads per row (4 rows per CTA), reading 1 tensors and writing 1"
// REMARK: remark: [Passed] rows-fused | Category:fp8-gpu | Function=scores_softmax | Remark="4 ops over rows of 1024 elements in one kernel of 32 threads per row (4 rows per CTA), reading 1 tensors and writing 1"
// REMARK: remark: [Passed] rows-fused | Category:fp8-gpu | Function=layernorm | Remark="6 ops over rows of 4096 elements in one kernel of 512 threads per row (one row per CTA), reading 3 tensors and writing 3"
// REMARK: remark: [Passed] rows-fused | Category:fp8-gpu | Function=softmax_grad | Remark="3 ops over rows of 64 elements in one kernel of 32 threads per row (4 rows per CTA), reading 2 tensors and writing 1"
// REMARK: remark: [Passed] rows-fused | Category:fp8-gpu | Function=ragged | Remark="4 ops over rows of 102 elements in one kernel of 32 threads per row (4 rows per CTA), reading 1 tensors and writing 1"
// REMARK: remark: [Missed] rows-not-fused | Category:fp8-gpu | Function=long_rows | Remark="linalg.generic and 3 other ops over its rows: kernels of their own: its rows of 16384 elements need more than 16 registers per tensor in each of 512 threads"
// REMARK-NOT: rows-not-fused | Category:fp8-gpu | Function=long_rows
// REMARK: remark: [Missed] rows-not-fused | Category:fp8-gpu | Function=read_early | Remark="linalg.reduce and 3 other ops over its rows: kernels of their own: linalg.transpose reads a result before its last op"

// linalg.softmax of f32 rows of 64: a warp per row, 16-byte loads (the
// second half of the warp has no chunk and reads the last one), the maximum
// (NaN loses: max.f32) and the sum by butterflies without shared memory,
// exp by its polynomial, the division, one 16-byte store per chunk.
// CHECK-LABEL: .entry fp8_rows_4x64x64_
// CHECK-NOT: .entry
// CHECK: ld.global.v4.b32
// CHECK-NOT: ld.global
// CHECK: max.f32
// CHECK: shfl.sync.bfly.b32
// CHECK-NOT: bar.sync
// CHECK: fma.rn.f32
// CHECK: add.rn.f32
// CHECK: shfl.sync.bfly.b32
// CHECK-NOT: ld.global
// CHECK: div.rn.f32
// CHECK-NOT: ld.global
// CHECK: st.global.v4.b32
// CHECK: ret;
// SOFTMAX-NOT:  "kernel":
// SOFTMAX:      "block": [
// SOFTMAX-NEXT:   128,
// SOFTMAX:      "grid": [
// SOFTMAX-NEXT:   64,
// SOFTMAX:      "kernel": "fp8_rows_4x64x64_{{[0-9a-f]+}}",
// SOFTMAX:      "shared_bytes": 0
// SOFTMAX-NOT:  "kernel":
// OFF-NOT: "kernel":
// OFF:     "kernel": "fp8_reduce_rows_f32_f32_maxnum_warp_vl_iffc00000",
// OFF:     "kernel": "fp8_elementwise_4x64x64_{{[0-9a-f]+}}",
// OFF:     "kernel": "fp8_reduce_rows_f32_f32_add_warp_vl_i00000000",
// OFF:     "kernel": "fp8_elementwise_4x64x64_{{[0-9a-f]+}}",
// OFF-NOT: "kernel":
func.func @softmax(%x: tensor<4x64x64xf32>) -> tensor<4x64x64xf32> {
  %e = tensor.empty() : tensor<4x64x64xf32>
  %r = linalg.softmax dimension(2) ins(%x : tensor<4x64x64xf32>) outs(%e : tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  return %r : tensor<4x64x64xf32>
}

// Attention's scores in bf16, rows of 1024 (the GPT-2 layer's softmax as
// examples/generate.py --storage bf16 writes it): a warp per row, each
// thread four 16-byte chunks (four loads in flight), four rows per CTA of
// 128 threads; both reductions by butterflies of the warp, no shared
// memory and no barrier; exp(x - max) rounded to bf16 is summed in f32 and
// divided.
// CHECK-LABEL: .entry fp8_rows_8x1024_
// CHECK-NOT: .entry
// CHECK: .maxntid 128, 1, 1
// CHECK-COUNT-4: ld.global.v4.b32
// CHECK-NOT: ld.global
// CHECK-COUNT-5: shfl.sync.bfly.b32
// CHECK-NOT: bar.sync
// CHECK: cvt.rn.bf16.f32
// CHECK-COUNT-5: shfl.sync.bfly.b32
// CHECK-NOT: bar.sync
// CHECK: div.rn.f32
// CHECK-NOT: ld.global
// CHECK-COUNT-4: st.global.v4.b32
// CHECK-NOT: bar.sync
// CHECK: ret;
// SCORES-NOT:  "kernel":
// SCORES:      "block": [
// SCORES-NEXT:   128,
// SCORES:      "grid": [
// SCORES-NEXT:   2,
// SCORES:      "kernel": "fp8_rows_8x1024_{{[0-9a-f]+}}",
// SCORES:      "shared_bytes": 0
// SCORES-NOT:  "kernel":
#rows3 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @scores_softmax(%s: tensor<8x1024xbf16>) -> tensor<8x1024xbf16> {
  %ninf = arith.constant 0xFF80 : bf16
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x1024xbf16>
  %mi = tensor.empty() : tensor<8xbf16>
  %minit = linalg.fill ins(%ninf : bf16) outs(%mi : tensor<8xbf16>) -> tensor<8xbf16>
  %m = linalg.reduce ins(%s : tensor<8x1024xbf16>) outs(%minit : tensor<8xbf16>) dimensions = [1]
    (%in: bf16, %acc: bf16) {
      %r = arith.maximumf %in, %acc : bf16
      linalg.yield %r : bf16
    }
  %p = linalg.generic {indexing_maps = [#rows3, #row, #rows3], iterator_types = ["parallel", "parallel"]}
      ins(%s, %m : tensor<8x1024xbf16>, tensor<8xbf16>) outs(%e : tensor<8x1024xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %a32 = arith.extf %a : bf16 to f32
    %b32 = arith.extf %b : bf16 to f32
    %d = arith.subf %a32, %b32 : f32
    %x = math.exp %d : f32
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8x1024xbf16>
  %si = tensor.empty() : tensor<8xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%si : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [#rows3, #row], iterator_types = ["parallel", "reduction"]}
      ins(%p : tensor<8x1024xbf16>) outs(%sinit : tensor<8xf32>) {
  ^bb0(%a: bf16, %acc: f32):
    %a32 = arith.extf %a : bf16 to f32
    %r = arith.addf %acc, %a32 : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#rows3, #row, #rows3], iterator_types = ["parallel", "parallel"]}
      ins(%p, %sum : tensor<8x1024xbf16>, tensor<8xf32>) outs(%e : tensor<8x1024xbf16>) {
  ^bb0(%a: bf16, %b: f32, %o: bf16):
    %a32 = arith.extf %a : bf16 to f32
    %q = arith.divf %a32, %b : f32
    %t = arith.truncf %q : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8x1024xbf16>
  return %y : tensor<8x1024xbf16>
}

// A LayerNorm of f32 rows of 4096 that returns its mean and 1/sigma (saved
// for the backward pass): 512 threads of two 16-byte chunks each; the
// mean and 1/sigma are ops over the rows, computed by every thread and
// stored by the first; gamma and beta are read per column.
// CHECK-LABEL: .entry fp8_rows_16x4096_
// CHECK-NOT: .entry
// CHECK-COUNT-2: ld.global.v4.b32
// CHECK: bar.sync 0;
// CHECK: bar.sync 0;
// CHECK: sqrt.rn.f32
// CHECK-DAG: st.global.b32
// CHECK-DAG: st.global.b32
// CHECK-DAG: st.global.v4.b32
// CHECK-DAG: st.global.v4.b32
// CHECK: ret;
// NORM-NOT:  "kernel":
// NORM:      "block": [
// NORM-NEXT:   512,
// NORM:      "grid": [
// NORM-NEXT:   16,
// NORM:      "kernel": "fp8_rows_16x4096_{{[0-9a-f]+}}",
// NORM-NEXT: "kind": "kernel",
// NORM-NEXT: "params": [
// NORM-NEXT:   {
// NORM-NEXT:     "buffer": 0,
// NORM:          "buffer": 1,
// NORM:          "buffer": 2,
// NORM:          "buffer": [[Y:[0-9]+]],
// NORM:          "buffer": [[MEAN:[0-9]+]],
// NORM:          "buffer": [[RSTD:[0-9]+]],
// NORM:      "shared_bytes": 128
// NORM-NOT:  "kernel":
func.func @layernorm(%x: tensor<16x4096xf32>, %gamma: tensor<4096xf32>, %beta: tensor<4096xf32>)
    -> (tensor<16x4096xf32>, tensor<16xf32>, tensor<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 2.44140625e-04 : f32
  %eps = arith.constant 1.0e-05 : f32
  %e = tensor.empty() : tensor<16x4096xf32>
  %ri = tensor.empty() : tensor<16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%ri : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.reduce ins(%x : tensor<16x4096xf32>) outs(%init : tensor<16xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  %mean = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%sum : tensor<16xf32>) outs(%ri : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %inv : f32
    linalg.yield %m : f32
  } -> tensor<16xf32>
  %c = linalg.generic {indexing_maps = [#rows3, #row, #rows3], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean : tensor<16x4096xf32>, tensor<16xf32>) outs(%e : tensor<16x4096xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    linalg.yield %d : f32
  } -> tensor<16x4096xf32>
  %var = linalg.generic {indexing_maps = [#rows3, #row], iterator_types = ["parallel", "reduction"]}
      ins(%c : tensor<16x4096xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %r = arith.addf %acc, %sq : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %rstd = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%var : tensor<16xf32>) outs(%ri : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.mulf %a, %inv : f32
    %ve = arith.addf %v, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %y = linalg.generic {indexing_maps = [#rows3, #row, #col, #col, #rows3], iterator_types = ["parallel", "parallel"]}
      ins(%c, %rstd, %gamma, %beta : tensor<16x4096xf32>, tensor<16xf32>, tensor<4096xf32>, tensor<4096xf32>)
      outs(%e : tensor<16x4096xf32>) {
  ^bb0(%a: f32, %r: f32, %g: f32, %b: f32, %o: f32):
    %n = arith.mulf %a, %r : f32
    %s = arith.mulf %n, %g : f32
    %t = arith.addf %s, %b : f32
    linalg.yield %t : f32
  } -> tensor<16x4096xf32>
  return %y, %mean, %rstd : tensor<16x4096xf32>, tensor<16xf32>, tensor<16xf32>
}

// The softmax gradient dS = P * (dP - sum(dP * P)): the product that only
// the sum reads joins the group, so the kernel reads P and dP once.
// GRAD-NOT:  "kernel":
// GRAD:      "kernel": "fp8_rows_4x64x64_{{[0-9a-f]+}}",
// GRAD-NEXT: "kind": "kernel",
// GRAD-NEXT: "params": [
// GRAD-NEXT:   {
// GRAD-NEXT:     "buffer": 1,
// GRAD:          "buffer": 0,
// GRAD:          "buffer": [[DS:[0-9]+]],
// GRAD-NOT:  "kernel":
#b3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#b2 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @softmax_grad(%p: tensor<4x64x64xbf16>, %dp: tensor<4x64x64xbf16>) -> tensor<4x64x64xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x64x64xbf16>
  %ri = tensor.empty() : tensor<4x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%ri : tensor<4x64xf32>) -> tensor<4x64xf32>
  %t = linalg.generic {indexing_maps = [#b3, #b3, #b3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%dp, %p : tensor<4x64x64xbf16>, tensor<4x64x64xbf16>) outs(%e : tensor<4x64x64xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %a32 = arith.extf %a : bf16 to f32
    %b32 = arith.extf %b : bf16 to f32
    %m = arith.mulf %a32, %b32 : f32
    %r = arith.truncf %m : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<4x64x64xbf16>
  %s = linalg.reduce ins(%t : tensor<4x64x64xbf16>) outs(%init : tensor<4x64xf32>) dimensions = [2]
    (%in: bf16, %acc: f32) {
      %in32 = arith.extf %in : bf16 to f32
      %r = arith.addf %in32, %acc : f32
      linalg.yield %r : f32
    }
  %ds = linalg.generic {indexing_maps = [#b3, #b3, #b2, #b3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %dp, %s : tensor<4x64x64xbf16>, tensor<4x64x64xbf16>, tensor<4x64xf32>) outs(%e : tensor<4x64x64xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %c: f32, %o: bf16):
    %a32 = arith.extf %a : bf16 to f32
    %b32 = arith.extf %b : bf16 to f32
    %d = arith.subf %b32, %c : f32
    %m = arith.mulf %a32, %d : f32
    %r = arith.truncf %m : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<4x64x64xbf16>
  return %ds : tensor<4x64x64xbf16>
}

// f32 rows of 102: 8-byte chunks (102 is no multiple of 4), 51 for a warp,
// two per thread; the threads past the last read it, add the combiners'
// identities and store nothing. 50 rows in CTAs of four: the last CTA's
// last two warps compute row 49 again (the row index clamped) and store
// nothing.
// RAGGED-NOT: "kernel":
// RAGGED:     "block": [
// RAGGED-NEXT:  128,
// RAGGED:     "grid": [
// RAGGED-NEXT:  13,
// RAGGED:     "kernel": "fp8_rows_50x102_{{[0-9a-f]+}}",
// RAGGED:     "shared_bytes": 0
// RAGGED-NOT: "kernel":
func.func @ragged(%x: tensor<50x102xf32>) -> tensor<50x102xf32> {
  %e = tensor.empty() : tensor<50x102xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<50x102xf32>) outs(%e : tensor<50x102xf32>) -> tensor<50x102xf32>
  return %r : tensor<50x102xf32>
}
// CHECK-LABEL: .entry fp8_rows_50x102_
// CHECK-NOT: .entry
// CHECK: setp.gt.u32 [[PAST:%p[0-9]+]], [[ROW:%r[0-9]+]], 49;
// CHECK: min.u32 {{%r[0-9]+}}, [[ROW]], 49;
// CHECK: setp.lt.u32 {{%p[0-9]+}}, {{%r[0-9]+}}, 51;
// CHECK: ld.global.v2.b32
// CHECK: selp.f32
// CHECK-NOT: bar.sync
// CHECK: @{{%p[0-9]+}} bra
// CHECK: st.global.v2.b32
// CHECK: ret;

// f32 rows of 16384 would need 32 registers per thread of 512: the
// reductions and elementwise ops keep kernels of their own.
// LONG-NOT: "kernel":
// LONG:     "kernel": "fp8_reduce_rows_f32_f32_maxnum_cta_vl_iffc00000",
// LONG:     "kernel": "fp8_elementwise_4x16384_{{[0-9a-f]+}}",
// LONG:     "kernel": "fp8_reduce_rows_f32_f32_add_cta_vl_i00000000",
// LONG:     "kernel": "fp8_elementwise_4x16384_{{[0-9a-f]+}}",
// LONG-NOT: "kernel":
func.func @long_rows(%x: tensor<4x16384xf32>) -> tensor<4x16384xf32> {
  %e = tensor.empty() : tensor<4x16384xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<4x16384xf32>) outs(%e : tensor<4x16384xf32>) -> tensor<4x16384xf32>
  return %r : tensor<4x16384xf32>
}

// exp(x - max) is also read, through a transpose, before the division (the
// group's last op): the kernel, launched at the division, would come too
// late for it, so nothing is fused.
// EARLY: "kernel": "fp8_reduce_rows_f32_f32_maximum_warp_vl_iff800000",
// EARLY-NOT: "kernel": "fp8_rows
func.func @read_early(%x: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %ri = tensor.empty() : tensor<64xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%ri : tensor<64xf32>) -> tensor<64xf32>
  %m = linalg.reduce ins(%x : tensor<64x64xf32>) outs(%minit : tensor<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.maximumf %in, %acc : f32
      linalg.yield %r : f32
    }
  %p = linalg.generic {indexing_maps = [#rows3, #row, #rows3], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<64x64xf32>, tensor<64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<64x64xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%ri : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.reduce ins(%p : tensor<64x64xf32>) outs(%sinit : tensor<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  %pt = linalg.transpose ins(%p : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) permutation = [1, 0]
  %y = linalg.generic {indexing_maps = [#rows3, #row, #rows3], iterator_types = ["parallel", "parallel"]}
      ins(%p, %sum : tensor<64x64xf32>, tensor<64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %q = arith.divf %a, %b : f32
    linalg.yield %q : f32
  } -> tensor<64x64xf32>
  return %y, %pt : tensor<64x64xf32>, tensor<64x64xf32>
}
