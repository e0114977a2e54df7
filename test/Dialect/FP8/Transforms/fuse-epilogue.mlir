// RUN: fp8-opt %s -split-input-file --fp8-fuse-epilogue | FileCheck %s
// RUN: fp8-opt %s -split-input-file --fp8-fuse-epilogue \
// RUN:   --remarks-filter=fp8-gpu --remark-format=emitRemark -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK

// A bias (row vector) + ReLU chain after the GEMM becomes its epilogue: the
// product's type (f32) is the region's first argument, the bias an input
// read through the chain's broadcast map, the chain's body unchanged.
// CHECK: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @bias_relu
// CHECK-SAME: (%[[A:.*]]: tensor<64x128xf8E4M3FN>, %[[B:.*]]: tensor<32x128xf8E4M3FN>, %[[S:.*]]: tensor<1x1xf32>, %[[BIAS:.*]]: tensor<32xf32>)
// CHECK: %[[Y:.*]] = fp8.scaled_matmul %[[A]], %[[B]] scales(%[[S]], %[[S]]) by(<tensor>, <tensor>) transpose_rhs
// CHECK-SAME: epilogue_ins(%[[BIAS]] : tensor<32xf32>) epilogue_maps([#[[ROW]]])
// CHECK-SAME: {fp8.name = "fc1"}
// CHECK-SAME: -> tensor<64x32xbf16> epilogue {
// CHECK-NEXT: ^bb0(%[[P:.*]]: f32, %[[BV:.*]]: f32):
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[P]], %[[BV]] : f32
// CHECK-NEXT: %[[M:.*]] = arith.maximumf %[[SUM]], %{{.*}} : f32
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[M]] : f32 to bf16
// CHECK-NEXT: fp8.yield %[[T]] : bf16
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
// REMARK-DAG: remark: [Passed] epilogue-fused | Category:fp8-gpu | Function=bias_relu | Remark="linalg.generic fused into the epilogue of fp8.scaled_matmul 'fc1'"
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @bias_relu(%a: tensor<64x128xf8E4M3FN>, %b: tensor<32x128xf8E4M3FN>, %s: tensor<1x1xf32>, %bias: tensor<32xf32>) -> tensor<64x32xbf16> {
  %zero = arith.constant 0.0 : f32
  %p = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs {fp8.name = "fc1"} : tensor<64x128xf8E4M3FN>, tensor<32x128xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x32xf32>
  %e = tensor.empty() : tensor<64x32xbf16>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %bias : tensor<64x32xf32>, tensor<32xf32>) outs(%e : tensor<64x32xbf16>) {
  ^bb0(%in: f32, %bv: f32, %out: bf16):
    %sum = arith.addf %in, %bv : f32
    %m = arith.maximumf %sum, %zero : f32
    %t = arith.truncf %m : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<64x32xbf16>
  return %r : tensor<64x32xbf16>
}

// -----

// A residual add (a named op, same shape) after a bf16 product: the
// epilogue rounds the product to bf16 first, as the GEMM stored it. The
// residual is defined after the GEMM: the fused op takes the consumer's
// place.
// CHECK: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @residual
// CHECK: %[[R:.*]] = math.tanh
// CHECK: %[[Y:.*]] = fp8.scaled_matmul
// CHECK-SAME: epilogue_ins(%[[R]] : tensor<64x32xbf16>) epilogue_maps([#[[ID]]])
// CHECK-SAME: -> tensor<64x32xbf16> epilogue {
// CHECK-NEXT: ^bb0(%[[P:.*]]: bf16, %[[X:.*]]: bf16):
// CHECK-NEXT: arith.addf %[[P]], %[[X]] : bf16
// CHECK: return %[[Y]]
// REMARK-DAG: remark: [Passed] epilogue-fused | Category:fp8-gpu | Function=residual | Remark="linalg.generic fused into the epilogue of fp8.scaled_matmul"
func.func @residual(%a: tensor<64x128xf8E4M3FN>, %b: tensor<32x128xf8E4M3FN>, %s: tensor<1x1xf32>, %x: tensor<64x32xbf16>) -> tensor<64x32xbf16> {
  %p = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs : tensor<64x128xf8E4M3FN>, tensor<32x128xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x32xbf16>
  %t = math.tanh %x : tensor<64x32xbf16>
  %e = tensor.empty() : tensor<64x32xbf16>
  %y = linalg.add ins(%p, %t : tensor<64x32xbf16>, tensor<64x32xbf16>) outs(%e : tensor<64x32xbf16>) -> tensor<64x32xbf16>
  return %y : tensor<64x32xbf16>
}

// -----

// Left alone, with the reason: a product read twice, a product quantized, a
// transposed input, a consumer reading loop indices, a batched GEMM. A
// product that is returned needs no remark.
// CHECK-LABEL: func.func @not_fused
// CHECK-COUNT-5: fp8.scaled_matmul
// CHECK-NOT: epilogue
// REMARK-DAG: remark: [Missed] epilogue-not-fused | Category:fp8-gpu | Function=not_fused | Remark="fp8.scaled_matmul 'twice': nothing fused into its epilogue: its product has several users"
// REMARK-DAG: remark: [Missed] block-codes-not-in-epilogue | Category:fp8-gpu | Function=not_fused | Remark="fp8.dynamic_quantize reads the result of fp8.scaled_matmul 'quantized': blocks of 16 elements: the GEMM tiles hold whole blocks of 32 or 128"
// REMARK-DAG: remark: [Missed] epilogue-not-fused | Category:fp8-gpu | Function=not_fused | Remark="fp8.scaled_matmul 'transposed': nothing fused into its epilogue: the consumer reads an input transposed"
// REMARK-DAG: remark: [Missed] epilogue-not-fused | Category:fp8-gpu | Function=not_fused | Remark="fp8.scaled_matmul 'indices': nothing fused into its epilogue: the consumer reads loop indices"
// REMARK-DAG: remark: [Missed] epilogue-not-fused | Category:fp8-gpu | Function=not_fused | Remark="fp8.scaled_matmul 'batched': nothing fused into its epilogue: batched GEMMs keep their elementwise consumers as kernels"
// REMARK-NOT: returned
#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @not_fused(%a: tensor<32x128xf8E4M3FN>, %b: tensor<32x128xf8E4M3FN>, %s: tensor<1x1xf32>, %x: tensor<32x32xf32>,
                     %a3: tensor<2x32x128xf8E4M3FN>, %s3: tensor<1x1x1xf32>)
    -> (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf8E4M3FN>, tensor<32x2xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<2x32x32xf32>, tensor<32x32xf32>) {
  %e = tensor.empty() : tensor<32x32xf32>
  %p0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs {fp8.name = "twice"} : tensor<32x128xf8E4M3FN>, tensor<32x128xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<32x32xf32>
  %y0 = linalg.exp ins(%p0 : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %p1 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs {fp8.name = "quantized"} : tensor<32x128xf8E4M3FN>, tensor<32x128xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<32x32xf32>
  %q, %qs = fp8.dynamic_quantize %p1 by <1x16> rule <ratio> : tensor<32x32xf32> -> tensor<32x32xf8E4M3FN>, tensor<32x2xf32>
  %p2 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs {fp8.name = "transposed"} : tensor<32x128xf8E4M3FN>, tensor<32x128xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<32x32xf32>
  %y2 = linalg.generic {indexing_maps = [#id, #t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p2, %x : tensor<32x32xf32>, tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%in: f32, %xv: f32, %out: f32):
    %sum = arith.addf %in, %xv : f32
    linalg.yield %sum : f32
  } -> tensor<32x32xf32>
  %p3 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs {fp8.name = "indices"} : tensor<32x128xf8E4M3FN>, tensor<32x128xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<32x32xf32>
  %y3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p3 : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c = arith.cmpi ult, %i, %j : index
    %zero = arith.constant 0.0 : f32
    %m = arith.select %c, %zero, %in : f32
    linalg.yield %m : f32
  } -> tensor<32x32xf32>
  %p4 = fp8.scaled_matmul %a3, %a3 scales(%s3, %s3) by(<tensor>, <tensor>) transpose_rhs {fp8.name = "batched"} : tensor<2x32x128xf8E4M3FN>, tensor<2x32x128xf8E4M3FN>, tensor<1x1x1xf32>, tensor<1x1x1xf32> -> tensor<2x32x32xf32>
  %e3 = tensor.empty() : tensor<2x32x32xf32>
  %y4 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p4 : tensor<2x32x32xf32>) outs(%e3 : tensor<2x32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<2x32x32xf32>
  %p5 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs {fp8.name = "returned"} : tensor<32x128xf8E4M3FN>, tensor<32x128xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<32x32xf32>
  return %p0, %y0, %q, %qs, %y2, %y3, %y4, %p5 : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf8E4M3FN>, tensor<32x2xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<2x32x32xf32>, tensor<32x32xf32>
}

// -----

// A per-tensor quantization of a GEMM's result (after its chain moved into
// the epilogue) takes its amax from the GEMM: the GEMM returns the amax of
// its results, and the quantization becomes the scale computation and the
// quantization by that scale. A GEMM without an epilogue gets the identity
// one, so that the amax is that of the values it stores (bf16 here).
// CHECK-LABEL: func.func @amax_in_epilogue
// CHECK: %[[Y:.*]], %[[AMAX:.*]] = fp8.scaled_matmul
// CHECK-SAME: epilogue_ins
// CHECK-SAME: -> tensor<64x32xf32>, amax tensor<1x1xf32> epilogue {
// CHECK: %[[S:.*]], %[[SINV:.*]] = fp8.compute_scale %[[AMAX]] rule <ratio, margin = 1> for <e4m3>
// CHECK: %[[Q:.*]] = fp8.quantize %[[Y]], %[[S]] by <tensor>
// CHECK: %[[P2:.*]], %[[AMAX2:.*]] = fp8.scaled_matmul
// CHECK-SAME: -> tensor<64x32xbf16>, amax tensor<1x1xf32> epilogue {
// CHECK-NEXT: ^bb0(%[[C:.*]]: bf16):
// CHECK-NEXT: fp8.yield %[[C]] : bf16
// CHECK: %[[S2:.*]], %[[SINV2:.*]] = fp8.compute_scale %[[AMAX2]] rule <ratio> for <e5m2>
// CHECK: %[[Q2:.*]] = fp8.quantize %[[P2]], %[[S2]] by <tensor> overflow <nonfinite>
// CHECK-NOT: fp8.dynamic_quantize
// CHECK: return %[[Q]], %[[SINV]], %[[Q2]], %[[SINV2]]
// REMARK-DAG: remark: [Passed] amax-in-epilogue | Category:fp8-gpu | Function=amax_in_epilogue | Remark="the amax of fp8.dynamic_quantize 'h' comes from the epilogue of fp8.scaled_matmul 'fc1'"
// REMARK-DAG: remark: [Passed] amax-in-epilogue | Category:fp8-gpu | Function=amax_in_epilogue | Remark="the amax of fp8.dynamic_quantize comes from the epilogue of fp8.scaled_matmul 'fc2'"
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @amax_in_epilogue(%a: tensor<64x128xf8E4M3FN>, %b: tensor<32x128xf8E4M3FN>, %s: tensor<1x1xf32>, %bias: tensor<32xf32>)
    -> (tensor<64x32xf8E4M3FN>, tensor<1x1xf32>, tensor<64x32xf8E5M2>, tensor<1x1xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs {fp8.name = "fc1"} : tensor<64x128xf8E4M3FN>, tensor<32x128xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x32xf32>
  %e = tensor.empty() : tensor<64x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %bias : tensor<64x32xf32>, tensor<32xf32>) outs(%e : tensor<64x32xf32>) {
  ^bb0(%in: f32, %bv: f32, %out: f32):
    %sum = arith.addf %in, %bv : f32
    %m = arith.maximumf %sum, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x32xf32>
  %q, %qs = fp8.dynamic_quantize %r by <tensor> rule <ratio, margin = 1> {fp8.name = "h"} : tensor<64x32xf32> -> tensor<64x32xf8E4M3FN>, tensor<1x1xf32>
  %p2 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs {fp8.name = "fc2"} : tensor<64x128xf8E4M3FN>, tensor<32x128xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x32xbf16>
  %q2, %qs2 = fp8.dynamic_quantize %p2 by <tensor> rule <ratio> overflow <nonfinite> : tensor<64x32xbf16> -> tensor<64x32xf8E5M2>, tensor<1x1xf32>
  return %q, %qs, %q2, %qs2 : tensor<64x32xf8E4M3FN>, tensor<1x1xf32>, tensor<64x32xf8E5M2>, tensor<1x1xf32>
}

// -----

// The quantization computes its amax itself when it also writes a
// column-wise copy or propagates NaN; blocks of a row narrower than 32 stay
// a quantization of their own (block-codes-not-in-epilogue).
// CHECK-LABEL: func.func @amax_not_in_epilogue
// CHECK-NOT: amax tensor
// CHECK-COUNT-3: fp8.dynamic_quantize
// REMARK-DAG: remark: [Missed] amax-not-in-epilogue | Category:fp8-gpu | Function=amax_not_in_epilogue | Remark="fp8.dynamic_quantize computes the amax of fp8.scaled_matmul 'colwise' itself: it also writes a column-wise copy"
// REMARK-DAG: remark: [Missed] amax-not-in-epilogue | Category:fp8-gpu | Function=amax_not_in_epilogue | Remark="fp8.dynamic_quantize computes the amax of fp8.scaled_matmul 'nan' itself: it propagates NaN, which the GEMM's amax ignores"
// REMARK-DAG: remark: [Missed] block-codes-not-in-epilogue | Category:fp8-gpu | Function=amax_not_in_epilogue | Remark="fp8.dynamic_quantize reads the result of fp8.scaled_matmul 'blocks': blocks of 16 elements: the GEMM tiles hold whole blocks of 32 or 128"
// REMARK-NOT: amax-in-epilogue
func.func @amax_not_in_epilogue(%a: tensor<64x128xf8E4M3FN>, %b: tensor<32x128xf8E4M3FN>, %s: tensor<1x1xf32>)
    -> (tensor<64x32xf8E4M3FN>, tensor<1x1xf32>, tensor<32x64xf8E4M3FN>, tensor<1x1xf32>, tensor<64x32xf8E4M3FN>, tensor<1x1xf32>, tensor<64x32xf8E4M3FN>, tensor<64x2xf32>) {
  %p0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs {fp8.name = "colwise"} : tensor<64x128xf8E4M3FN>, tensor<32x128xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x32xf32>
  %q0, %s0, %c0, %cs0 = fp8.dynamic_quantize %p0 by <tensor> colwise <tensor> transposed rule <ratio> : tensor<64x32xf32> -> tensor<64x32xf8E4M3FN>, tensor<1x1xf32> colwise tensor<32x64xf8E4M3FN>, tensor<1x1xf32>
  %p1 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs {fp8.name = "nan"} : tensor<64x128xf8E4M3FN>, tensor<32x128xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x32xf32>
  %q1, %s1 = fp8.dynamic_quantize %p1 by <tensor> rule <ratio> nan <propagate> : tensor<64x32xf32> -> tensor<64x32xf8E4M3FN>, tensor<1x1xf32>
  %p2 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs {fp8.name = "blocks"} : tensor<64x128xf8E4M3FN>, tensor<32x128xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x32xf32>
  %q2, %s2 = fp8.dynamic_quantize %p2 by <1x16> rule <ratio> : tensor<64x32xf32> -> tensor<64x32xf8E4M3FN>, tensor<64x2xf32>
  return %q0, %s0, %c0, %cs0, %q1, %s1, %q2, %s2 : tensor<64x32xf8E4M3FN>, tensor<1x1xf32>, tensor<32x64xf8E4M3FN>, tensor<1x1xf32>, tensor<64x32xf8E4M3FN>, tensor<1x1xf32>, tensor<64x32xf8E4M3FN>, tensor<64x2xf32>
}

// -----

// Delayed scaling: the codes of a per-tensor quantization by a given scale,
// and the amax of the same result, come from the GEMM: its epilogue yields
// the values, out_scale encodes them. The high-precision result is gone.
// CHECK-LABEL: func.func @codes_in_epilogue
// CHECK-SAME: %[[SCALE:[a-z0-9]*]]: tensor<1x1xf32>)
// CHECK: %[[CODES:.*]], %[[AMAX:.*]] = fp8.scaled_matmul
// CHECK-SAME: out_scale(%[[SCALE]] : tensor<1x1xf32>)
// CHECK-SAME: -> tensor<64x32xf8E4M3FN>, amax tensor<1x1xf32> epilogue {
// CHECK: arith.maximumf
// CHECK: fp8.yield %{{.*}} : f32
// CHECK-NOT: fp8.quantize
// CHECK-NOT: fp8.amax
// CHECK: return %[[CODES]], %[[AMAX]]
// REMARK-DAG: remark: [Passed] codes-in-epilogue | Category:fp8-gpu | Function=codes_in_epilogue | Remark="fp8.quantize and its amax fused into the epilogue of fp8.scaled_matmul: the GEMM writes the codes"
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @codes_in_epilogue(%a: tensor<64x128xf8E4M3FN>, %b: tensor<32x128xf8E4M3FN>, %s: tensor<1x1xf32>, %scale: tensor<1x1xf32>)
    -> (tensor<64x32xf8E4M3FN>, tensor<1x1xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs : tensor<64x128xf8E4M3FN>, tensor<32x128xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x32xf32>
  %e = tensor.empty() : tensor<64x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<64x32xf32>) outs(%e : tensor<64x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x32xf32>
  %q = fp8.quantize %r, %scale by <tensor> : tensor<64x32xf32>, tensor<1x1xf32> -> tensor<64x32xf8E4M3FN>
  %amax = fp8.amax %r by <tensor> : tensor<64x32xf32> -> tensor<1x1xf32>
  return %q, %amax : tensor<64x32xf8E4M3FN>, tensor<1x1xf32>
}

// -----

// The result is needed in high precision too, or encoded otherwise: the
// quantization stays.
// CHECK-LABEL: func.func @codes_not_in_epilogue
// CHECK-COUNT-2: fp8.quantize
// REMARK-DAG: remark: [Missed] codes-not-in-epilogue | Category:fp8-gpu | Function=codes_not_in_epilogue | Remark="fp8.quantize reads the result of fp8.scaled_matmul 'returned': the result is also read by 'func.return'"
// REMARK-DAG: remark: [Missed] codes-not-in-epilogue | Category:fp8-gpu | Function=codes_not_in_epilogue | Remark="fp8.quantize reads the result of fp8.scaled_matmul 'stochastic': the GEMM encodes with round-to-nearest-even and saturation only"
func.func @codes_not_in_epilogue(%a: tensor<64x128xf8E4M3FN>, %b: tensor<32x128xf8E4M3FN>, %s: tensor<1x1xf32>, %scale: tensor<1x1xf32>, %bits: tensor<64x32xi32>)
    -> (tensor<64x32xf8E4M3FN>, tensor<64x32xf32>, tensor<64x32xf8E4M3FN>) {
  %p = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs {fp8.name = "returned"} : tensor<64x128xf8E4M3FN>, tensor<32x128xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x32xf32>
  %q = fp8.quantize %p, %scale by <tensor> : tensor<64x32xf32>, tensor<1x1xf32> -> tensor<64x32xf8E4M3FN>
  %p2 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs {fp8.name = "stochastic"} : tensor<64x128xf8E4M3FN>, tensor<32x128xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x32xf32>
  %q2 = fp8.quantize %p2, %scale by <tensor> rounding <stochastic> rbits(%bits : tensor<64x32xi32>) : tensor<64x32xf32>, tensor<1x1xf32> -> tensor<64x32xf8E4M3FN>
  return %q, %p, %q2 : tensor<64x32xf8E4M3FN>, tensor<64x32xf32>, tensor<64x32xf8E4M3FN>
}

// -----

// Row-wise scaling: the GEMM returns the amax of each row of its result.
// CHECK-LABEL: func.func @row_amax_in_epilogue
// CHECK: %[[Y:.*]], %[[AMAX:.*]] = fp8.scaled_matmul
// CHECK-SAME: -> tensor<64x32xbf16>, amax tensor<64x1xf32> epilogue {
// CHECK: %[[S:.*]], %[[SINV:.*]] = fp8.compute_scale %[[AMAX]] rule <ratio> for <e4m3> : tensor<64x1xf32> -> tensor<64x1xf32>, tensor<64x1xf32>
// CHECK: %[[Q:.*]] = fp8.quantize %[[Y]], %[[S]] by <1x*>
// CHECK: return %[[Q]], %[[SINV]]
// REMARK-DAG: remark: [Passed] amax-in-epilogue | Category:fp8-gpu | Function=row_amax_in_epilogue | Remark="the amax of fp8.dynamic_quantize comes from the epilogue of fp8.scaled_matmul"
func.func @row_amax_in_epilogue(%a: tensor<64x128xf8E4M3FN>, %b: tensor<32x128xf8E4M3FN>, %s: tensor<1x1xf32>)
    -> (tensor<64x32xf8E4M3FN>, tensor<64x1xf32>) {
  %p = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs : tensor<64x128xf8E4M3FN>, tensor<32x128xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x32xbf16>
  %q, %qs = fp8.dynamic_quantize %p by <1x*> rule <ratio> : tensor<64x32xbf16> -> tensor<64x32xf8E4M3FN>, tensor<64x1xf32>
  return %q, %qs : tensor<64x32xf8E4M3FN>, tensor<64x1xf32>
}

// -----

// A quantization by blocks of a row of a GEMM's result (DeepSeek's 1x128
// activations, MXFP8's 1x32) moves into the GEMM: its epilogue yields the
// values and the GEMM returns the codes and the block scales; the result
// is never stored in high precision. Not when the result has other readers
// or a column-wise copy is written too.
// CHECK-LABEL: func.func @block_codes
// CHECK: %[[Q:.*]], %[[QS:.*]] = fp8.scaled_matmul {{.*}} by(<1x128>, <128x128>) quantize by <1x128> rule <pow2> transpose_rhs
// CHECK-SAME: epilogue_ins
// CHECK-SAME: -> tensor<64x256xf8E4M3FN>, scale tensor<64x2xf32> epilogue {
// CHECK: arith.maximumf
// CHECK: fp8.yield %{{.*}} : bf16
// CHECK: fp8.scaled_matmul {{.*}} -> tensor<64x256xbf16>
// CHECK: fp8.dynamic_quantize
// CHECK: fp8.scaled_matmul {{.*}} -> tensor<64x256xbf16>
// CHECK: fp8.dynamic_quantize {{.*}} colwise
// CHECK: return %[[Q]], %[[QS]]
// REMARK-DAG: remark: [Passed] block-codes-in-epilogue | Category:fp8-gpu | Function=block_codes | Remark="fp8.dynamic_quantize 'h' fused into the epilogue of fp8.scaled_matmul 'fc1': the GEMM writes the codes and the scales of blocks of 128"
// REMARK-DAG: remark: [Missed] block-codes-not-in-epilogue | Category:fp8-gpu | Function=block_codes | Remark="fp8.dynamic_quantize reads the result of fp8.scaled_matmul 'read-twice': the result has other readers, which need it in high precision"
// REMARK-DAG: remark: [Missed] block-codes-not-in-epilogue | Category:fp8-gpu | Function=block_codes | Remark="fp8.dynamic_quantize reads the result of fp8.scaled_matmul 'both-copies': it also writes a column-wise copy"
#row = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @block_codes(%a: tensor<64x128xf8E4M3FN>, %b: tensor<256x128xf8E4M3FN>,
                       %sa: tensor<64x1xf32>, %sb: tensor<2x1xf32>,
                       %bias: tensor<256xbf16>)
    -> (tensor<64x256xf8E4M3FN>, tensor<64x2xf32>, tensor<64x256xbf16>,
        tensor<64x256xf8E4M3FN>, tensor<64x2xf32>, tensor<64x256xf8E4M3FN>,
        tensor<64x2xf32>, tensor<256x64xf8E4M3FN>, tensor<256x1xf32>) {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<64x256xbf16>
  %p = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs {fp8.name = "fc1"} : tensor<64x128xf8E4M3FN>, tensor<256x128xf8E4M3FN>, tensor<64x1xf32>, tensor<2x1xf32> -> tensor<64x256xbf16>
  %h = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %bias : tensor<64x256xbf16>, tensor<256xbf16>) outs(%e : tensor<64x256xbf16>) {
  ^bb0(%in: bf16, %bv: bf16, %out: bf16):
    %sum = arith.addf %in, %bv : bf16
    %relu = arith.maximumf %sum, %zero : bf16
    linalg.yield %relu : bf16
  } -> tensor<64x256xbf16>
  %q, %qs = fp8.dynamic_quantize %h by <1x128> rule <pow2> {fp8.name = "h"} : tensor<64x256xbf16> -> tensor<64x256xf8E4M3FN>, tensor<64x2xf32>
  %p2 = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs {fp8.name = "read-twice"} : tensor<64x128xf8E4M3FN>, tensor<256x128xf8E4M3FN>, tensor<64x1xf32>, tensor<2x1xf32> -> tensor<64x256xbf16>
  %q2, %qs2 = fp8.dynamic_quantize %p2 by <1x128> rule <pow2> : tensor<64x256xbf16> -> tensor<64x256xf8E4M3FN>, tensor<64x2xf32>
  %p3 = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>) transpose_rhs {fp8.name = "both-copies"} : tensor<64x128xf8E4M3FN>, tensor<256x128xf8E4M3FN>, tensor<64x1xf32>, tensor<2x1xf32> -> tensor<64x256xbf16>
  %q3, %qs3, %qc, %qcs = fp8.dynamic_quantize %p3 by <1x128> colwise <128x1> transposed rule <pow2> : tensor<64x256xbf16> -> tensor<64x256xf8E4M3FN>, tensor<64x2xf32> colwise tensor<256x64xf8E4M3FN>, tensor<256x1xf32>
  return %q, %qs, %p2, %q2, %qs2, %q3, %qs3, %qc, %qcs : tensor<64x256xf8E4M3FN>, tensor<64x2xf32>, tensor<64x256xbf16>, tensor<64x256xf8E4M3FN>, tensor<64x2xf32>, tensor<64x256xf8E4M3FN>, tensor<64x2xf32>, tensor<256x64xf8E4M3FN>, tensor<256x1xf32>
}
