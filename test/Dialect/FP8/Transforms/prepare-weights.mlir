// RUN: fp8-opt %s -split-input-file --fp8-prepare-weights | FileCheck %s
// RUN: fp8-opt %s -split-input-file --fp8-prepare-weights \
// RUN:   --remarks-filter=fp8-prepare-weights --remark-format=emitRemark -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK

// A weight's quantization and its K-major copy move; the activation's
// quantization and the GEMM stay. The constant the transpose's destination
// needs is cloned, and erased from @linear, which no longer reads it.

// CHECK-LABEL: func.func @linear_prepare(
// CHECK-SAME:      %[[W:.*]]: tensor<128x256xbf16> {fp8.weight})
// CHECK-SAME:      -> (tensor<1x1xf32>, tensor<256x128xf8E4M3FN>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<256x128xf8E4M3FN>
// CHECK:         %[[Q:.*]], %[[S:.*]] = fp8.dynamic_quantize %[[W]]
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[Q]] : {{.*}}) outs(%[[E]] :
// CHECK:         return %[[S]], %[[T]]
// CHECK-LABEL: func.func @linear(
// CHECK-SAME:      %[[X:.*]]: tensor<64x128xbf16>,
// CHECK-SAME:      %{{.*}}: tensor<128x256xbf16> {fp8.weight},
// CHECK-SAME:      %[[PS:.*]]: tensor<1x1xf32> {fp8.prepared = 0 : i64},
// CHECK-SAME:      %[[PT:.*]]: tensor<256x128xf8E4M3FN> {fp8.prepared = 1 : i64})
// CHECK-NOT:     tensor.empty
// CHECK:         %[[QX:.*]], %[[SX:.*]] = fp8.dynamic_quantize %[[X]]
// CHECK-NOT:     tensor.empty
// CHECK:         fp8.scaled_matmul %[[QX]], %[[PT]] scales(%[[SX]], %[[PS]])
// REMARK: remark: [Passed] weights-prepared | Category:fp8-prepare-weights | Remark="@linear: 2 ops that read only weights (1 arguments) run in @linear_prepare, whose 2 results (32772 bytes) @linear takes as arguments"
func.func @linear(%x: tensor<64x128xbf16>, %w: tensor<128x256xbf16> {fp8.weight}) -> tensor<64x256xbf16> {
  %qw, %sw = fp8.dynamic_quantize %w by <tensor> rule <ratio> : tensor<128x256xbf16> -> tensor<128x256xf8E4M3FN>, tensor<1x1xf32>
  %qx, %sx = fp8.dynamic_quantize %x by <tensor> rule <ratio> : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<1x1xf32>
  %e = tensor.empty() : tensor<256x128xf8E4M3FN>
  %t = linalg.transpose ins(%qw : tensor<128x256xf8E4M3FN>) outs(%e : tensor<256x128xf8E4M3FN>) permutation = [1, 0]
  %y = fp8.scaled_matmul %qx, %t scales(%sx, %sw) by(<tensor>, <tensor>) transpose_rhs : tensor<64x128xf8E4M3FN>, tensor<256x128xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x256xbf16>
  return %y : tensor<64x256xbf16>
}

// -----

// What is not worth passing stays: the broadcast of a bias to the shape of
// the product (larger than the vector it reads), and a transpose that only
// reinterprets bytes (a row of amaxes as a column and back), which @bias
// then computes from the prepared row. The weight's own cast moves, and the bias, which
// @bias still reads, stays an argument. A weight that the moved ops do not
// read is still an argument of the prepare function.

// CHECK-LABEL: func.func @bias_prepare(
// CHECK-SAME:      %[[W:.*]]: tensor<32x16xf32> {fp8.weight}, %{{.*}}: tensor<16xf32> {fp8.weight}, %{{.*}}: tensor<4xf32> {fp8.weight})
// CHECK-SAME:      -> (tensor<32x16xbf16>, tensor<1x16xf32>)
// CHECK:         arith.truncf
// CHECK:         fp8.amax
// CHECK-NOT:     linalg.broadcast
// CHECK-NOT:     linalg.transpose
// CHECK:         return
// CHECK-LABEL: func.func @bias(
// CHECK-SAME:      %[[B:[^:]*]]: tensor<16xf32> {fp8.weight}, %{{.*}}: tensor<4xf32> {fp8.weight},
// CHECK-SAME:      %{{.*}}: tensor<32x16xbf16> {fp8.prepared = 0 : i64}, %[[A:.*]]: tensor<1x16xf32> {fp8.prepared = 1 : i64})
// CHECK:         linalg.broadcast ins(%[[B]]
// CHECK:         linalg.transpose ins(%[[A]]
// REMARK: remark: [Passed] weights-prepared | Category:fp8-prepare-weights | Remark="@bias: 2 ops that read only weights (3 arguments) run in @bias_prepare, whose 2 results (1088 bytes) @bias takes as arguments"
func.func @bias(%x: tensor<8x32xbf16>, %w: tensor<32x16xf32> {fp8.weight}, %b: tensor<16xf32> {fp8.weight}, %unused: tensor<4xf32> {fp8.weight})
    -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<1x16xf32>, tensor<16xf32>) {
  %e16 = tensor.empty() : tensor<32x16xbf16>
  %wb = arith.truncf %w : tensor<32x16xf32> to tensor<32x16xbf16>
  %e = tensor.empty() : tensor<8x16xf32>
  %zero = arith.constant 0.0 : f32
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %p = linalg.matmul ins(%x, %wb : tensor<8x32xbf16>, tensor<32x16xbf16>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  %bb = linalg.broadcast ins(%b : tensor<16xf32>) outs(%e : tensor<8x16xf32>) dimensions = [0]
  %a = fp8.amax %w by <32x1> : tensor<32x16xf32> -> tensor<1x16xf32>
  %ec = tensor.empty() : tensor<16x1xf32>
  %ac = linalg.transpose ins(%a : tensor<1x16xf32>) outs(%ec : tensor<16x1xf32>) permutation = [1, 0]
  %er = tensor.empty() : tensor<1x16xf32>
  %ar = linalg.transpose ins(%ac : tensor<16x1xf32>) outs(%er : tensor<1x16xf32>) permutation = [1, 0]
  return %p, %bb, %ar, %b : tensor<8x16xf32>, tensor<8x16xf32>, tensor<1x16xf32>, tensor<16xf32>
}

// -----

// Delayed scaling: the scale is state, read from a global (a memory
// effect), so the weight's quantization stays; its amax, which each call
// reads, moves.

// CHECK-LABEL: func.func @delayed_prepare(
// CHECK-SAME:      -> tensor<1x1xf32>
// CHECK:         fp8.amax
// CHECK-NOT:     ml_program
// CHECK:         return
// CHECK-LABEL: func.func @delayed(
// CHECK-SAME:      %{{.*}}: tensor<1x1xf32> {fp8.prepared = 0 : i64})
// CHECK:         ml_program.global_load @scale
// CHECK:         fp8.quantize
ml_program.global private mutable @scale(dense<1.0> : tensor<1x1xf32>) : tensor<1x1xf32>
func.func @delayed(%w: tensor<16x32xbf16> {fp8.weight}) -> (tensor<16x32xf8E4M3FN>, tensor<1x1xf32>) {
  %a = fp8.amax %w by <tensor> : tensor<16x32xbf16> -> tensor<1x1xf32>
  %s = ml_program.global_load @scale : tensor<1x1xf32>
  %q = fp8.quantize %w, %s by <tensor> : tensor<16x32xbf16>, tensor<1x1xf32> -> tensor<16x32xf8E4M3FN>
  %r = arith.mulf %a, %s : tensor<1x1xf32>
  return %q, %r : tensor<16x32xf8E4M3FN>, tensor<1x1xf32>
}

// -----

// Left alone: a function without weights, a private one, one called in the
// module (its signature stays), one whose weights nothing reads alone, and
// one that returns what its weights alone determine (a GPU entry point
// returns computed values, never its arguments).

// CHECK-NOT: _prepare
// REMARK: remark: [Missed] weights-not-prepared | Category:fp8-prepare-weights | Remark="@hidden computes from its weights on every call: it is not public"
// REMARK: remark: [Missed] weights-not-prepared | Category:fp8-prepare-weights | Remark="@called computes from its weights on every call: it is called in this module, so its signature stays"
// REMARK: remark: [Missed] weights-not-prepared | Category:fp8-prepare-weights | Remark="@mixed computes from its weights on every call: no op that reads only weights and constants is worth moving"
// REMARK: remark: [Missed] weights-not-prepared | Category:fp8-prepare-weights | Remark="@returned computes from its weights on every call: no op that reads only weights and constants is worth moving"
func.func @plain(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %y = arith.addf %x, %x : tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}
func.func private @hidden(%w: tensor<4x4xf32> {fp8.weight}) -> tensor<4x4xf32> {
  %y = arith.addf %w, %w : tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}
func.func @called(%w: tensor<4x4xf32> {fp8.weight}) -> tensor<4x4xf32> {
  %y = arith.addf %w, %w : tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}
func.func @caller(%w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %y = func.call @called(%w) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %z = func.call @hidden(%y) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %z : tensor<4x4xf32>
}
func.func @mixed(%x: tensor<4x4xf32>, %w: tensor<4x4xf32> {fp8.weight}) -> tensor<4x4xf32> {
  %y = arith.addf %x, %w : tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}
func.func @returned(%w: tensor<4x4xf32> {fp8.weight}) -> tensor<1x1xf32> {
  %a = fp8.amax %w by <tensor> : tensor<4x4xf32> -> tensor<1x1xf32>
  return %a : tensor<1x1xf32>
}

// -----

// A prepare group: @fwd and @bwd read the same weight, and @grp_prepare
// computes what only it determines once for both. The per-tensor
// quantization both functions make becomes one op; @fwd takes its scale and
// the transposed (K-major) codes, @bwd the scale and the codes as they are:
// each function takes the results it reads, marked with their numbers, and
// names the prepare function.

// CHECK-LABEL: func.func @grp_prepare(
// CHECK-SAME:      %[[W:.*]]: tensor<128x256xbf16> {fp8.weight})
// CHECK-SAME:      -> (tensor<1x1xf32>, tensor<256x128xf8E4M3FN>, tensor<128x256xf8E4M3FN>)
// CHECK:         %[[Q:.*]], %[[S:.*]] = fp8.dynamic_quantize %[[W]]
// CHECK-NOT:     fp8.dynamic_quantize
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[Q]]
// CHECK:         return %[[S]], %[[T]], %[[Q]]
// CHECK-LABEL: func.func @fwd(
// CHECK-SAME:      %{{.*}}: tensor<1x1xf32> {fp8.prepared = 0 : i64}, %{{.*}}: tensor<256x128xf8E4M3FN> {fp8.prepared = 1 : i64})
// CHECK-SAME:      attributes {fp8.prepare = @grp_prepare, fp8.prepare_group = "grp"}
// CHECK-LABEL: func.func @bwd(
// CHECK-SAME:      %{{.*}}: tensor<1x1xf32> {fp8.prepared = 0 : i64}, %{{.*}}: tensor<128x256xf8E4M3FN> {fp8.prepared = 2 : i64})
// CHECK-SAME:      attributes {fp8.prepare = @grp_prepare, fp8.prepare_group = "grp"}
// CHECK-NOT:     fp8.dynamic_quantize %{{.*}} : tensor<128x256xbf16>
// REMARK: remark: [Passed] weights-prepared | Category:fp8-prepare-weights | Remark="@fwd: 2 ops that read only weights (1 arguments) run in @grp_prepare, whose 2 results (32772 bytes) @fwd takes as arguments"
// REMARK: remark: [Passed] weights-prepared | Category:fp8-prepare-weights | Remark="@bwd: 1 ops that read only weights (1 arguments) run in @grp_prepare, whose 2 results (32772 bytes) @bwd takes as arguments"
// REMARK: remark: [Passed] weights-prepared-once | Category:fp8-prepare-weights | Remark="@grp_prepare prepares the weights of 2 functions once: 3 results for the 4 values the functions take"
func.func @fwd(%x: tensor<64x128xbf16>, %w: tensor<128x256xbf16> {fp8.weight}) -> tensor<64x256xbf16> attributes {fp8.prepare_group = "grp"} {
  %qw, %sw = fp8.dynamic_quantize %w by <tensor> rule <ratio> : tensor<128x256xbf16> -> tensor<128x256xf8E4M3FN>, tensor<1x1xf32>
  %qx, %sx = fp8.dynamic_quantize %x by <tensor> rule <ratio> : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<1x1xf32>
  %e = tensor.empty() : tensor<256x128xf8E4M3FN>
  %t = linalg.transpose ins(%qw : tensor<128x256xf8E4M3FN>) outs(%e : tensor<256x128xf8E4M3FN>) permutation = [1, 0]
  %y = fp8.scaled_matmul %qx, %t scales(%sx, %sw) by(<tensor>, <tensor>) transpose_rhs : tensor<64x128xf8E4M3FN>, tensor<256x128xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x256xbf16>
  return %y : tensor<64x256xbf16>
}
func.func @bwd(%dy: tensor<64x256xbf16>, %w: tensor<128x256xbf16> {fp8.weight}) -> tensor<64x128xbf16> attributes {fp8.prepare_group = "grp"} {
  %qd, %sd = fp8.dynamic_quantize %dy by <tensor> rule <ratio> : tensor<64x256xbf16> -> tensor<64x256xf8E5M2>, tensor<1x1xf32>
  %qw, %sw = fp8.dynamic_quantize %w by <tensor> rule <ratio> : tensor<128x256xbf16> -> tensor<128x256xf8E4M3FN>, tensor<1x1xf32>
  %dx = fp8.scaled_matmul %qd, %qw scales(%sd, %sw) by(<tensor>, <tensor>) transpose_rhs : tensor<64x256xf8E5M2>, tensor<128x256xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x128xbf16>
  return %dx : tensor<64x128xbf16>
}

// -----

// A function of a group that is called in the module keeps its signature
// and stays out of the group; the others share the prepare function.
// CHECK-LABEL: func.func @pair_prepare(
// CHECK-LABEL: func.func @solo(
// CHECK-SAME:      attributes {fp8.prepare = @pair_prepare, fp8.prepare_group = "pair"}
// CHECK-LABEL: func.func @called(
// CHECK-SAME:      %{{.*}}: tensor<4x4xf32> {fp8.weight}) -> tensor<4x4xf32> attributes {fp8.prepare_group = "pair"}
// REMARK: remark: [Missed] weights-not-prepared | Category:fp8-prepare-weights | Remark="@called computes from its weights on every call: it is called in this module, so its signature stays (it stays out of prepare group "pair")"
func.func @solo(%x: tensor<4x4xf32>, %w: tensor<4x4xf32> {fp8.weight}) -> tensor<4x4xf32> attributes {fp8.prepare_group = "pair"} {
  %y = arith.mulf %w, %w : tensor<4x4xf32>
  %z = arith.addf %x, %y : tensor<4x4xf32>
  return %z : tensor<4x4xf32>
}
func.func @called(%w: tensor<4x4xf32> {fp8.weight}) -> tensor<4x4xf32> attributes {fp8.prepare_group = "pair"} {
  %y = arith.mulf %w, %w : tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}
func.func @caller(%w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %y = func.call @called(%w) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// K = 72: the K-major copy has rows of 72 codes, which a GEMM reads only
// when a kernel of the calling function pads them to 16 bytes (as a copy
// passed from the prepare function would not be). The weight's
// quantization moves; its transpose stays.
// CHECK-LABEL: func.func @short_rows_prepare(
// CHECK-SAME:      -> (tensor<72x256xf8E4M3FN>, tensor<1x1xf32>)
// CHECK-NOT:     linalg.transpose
// CHECK:         return
// CHECK-LABEL: func.func @short_rows(
// CHECK-SAME:      %[[PQ:[^:]*]]: tensor<72x256xf8E4M3FN> {fp8.prepared = 0 : i64},
// CHECK-SAME:      %[[PS:[^:]*]]: tensor<1x1xf32> {fp8.prepared = 1 : i64})
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[PQ]] :
// CHECK:         fp8.scaled_matmul %{{.*}}, %[[T]] scales(%{{.*}}, %[[PS]])
func.func @short_rows(%x: tensor<64x72xbf16>, %w: tensor<72x256xbf16> {fp8.weight}) -> tensor<64x256xbf16> {
  %qw, %sw = fp8.dynamic_quantize %w by <tensor> rule <ratio> : tensor<72x256xbf16> -> tensor<72x256xf8E4M3FN>, tensor<1x1xf32>
  %qx, %sx = fp8.dynamic_quantize %x by <tensor> rule <ratio> : tensor<64x72xbf16> -> tensor<64x72xf8E4M3FN>, tensor<1x1xf32>
  %e = tensor.empty() : tensor<256x72xf8E4M3FN>
  %t = linalg.transpose ins(%qw : tensor<72x256xf8E4M3FN>) outs(%e : tensor<256x72xf8E4M3FN>) permutation = [1, 0]
  %y = fp8.scaled_matmul %qx, %t scales(%sx, %sw) by(<tensor>, <tensor>) transpose_rhs : tensor<64x72xf8E4M3FN>, tensor<256x72xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x256xbf16>
  return %y : tensor<64x256xbf16>
}
// REMARK: remark: [Missed] padded-rows | Category:fp8-prepare-weights | Remark="@short_rows computes tensor<256x72xf8E4M3FN> from its weights on every call: a GEMM reads its rows of 72 bytes, which are not whole 16-byte units; the kernel that writes it in the function pads them, and a prepared value is passed unpadded"
// REMARK: remark: [Passed] weights-prepared | Category:fp8-prepare-weights | Remark="@short_rows: 1 ops

// -----

// NVFP4 with K = 40: the K-major copy has rows of 20 bytes. No layout kernel
// copies FP4 codes, so the quantization that writes the copy (padded) stays
// with it, and with it everything the weight determines: nothing is
// prepared, and the remarks say why.
// CHECK-NOT:     func.func @short_rows_fp4_prepare
// CHECK-LABEL: func.func @short_rows_fp4(
// CHECK-SAME:      %{{[^:]*}}: tensor<64x40xbf16>, %[[W:[^:]*]]: tensor<40x64xbf16> {fp8.weight}) -> tensor<64x64xbf16> {
// CHECK:         %[[QW:.*]], %[[SW:.*]], %[[GW:.*]] = fp8.dynamic_quantize %[[W]]
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[QW]] :
// CHECK:         fp8.scaled_matmul %{{.*}}, %[[T]]
// REMARK: remark: [Missed] padded-rows | Category:fp8-prepare-weights | Remark="@short_rows_fp4 computes tensor<64x40xf4E2M1FN> from its weights on every call: a GEMM reads its rows of 20 bytes, which are not whole 16-byte units; the kernel that writes it in the function pads them, and a prepared value is passed unpadded (its quantization stays too: no layout kernel copies codes narrower than a byte)"
// REMARK: remark: [Missed] weights-not-prepared | Category:fp8-prepare-weights | Remark="@short_rows_fp4 computes from its weights on every call: what is worth moving, GEMMs read in rows that are not whole 16-byte units (padded-rows)"
func.func @short_rows_fp4(%x: tensor<64x40xbf16>, %w: tensor<40x64xbf16> {fp8.weight}) -> tensor<64x64xbf16> {
  %qw, %sw, %gw = fp8.dynamic_quantize %w by <16x16> rule <nvfp4> : tensor<40x64xbf16> -> tensor<40x64xf4E2M1FN>, tensor<3x4xf8E4M3FN> global tensor<1x1xf32>
  %qx, %sx, %gx = fp8.dynamic_quantize %x by <1x16> rule <nvfp4> : tensor<64x40xbf16> -> tensor<64x40xf4E2M1FN>, tensor<64x3xf8E4M3FN> global tensor<1x1xf32>
  %e = tensor.empty() : tensor<64x40xf4E2M1FN>
  %t = linalg.transpose ins(%qw : tensor<40x64xf4E2M1FN>) outs(%e : tensor<64x40xf4E2M1FN>) permutation = [1, 0]
  %es = tensor.empty() : tensor<4x3xf8E4M3FN>
  %ts = linalg.transpose ins(%sw : tensor<3x4xf8E4M3FN>) outs(%es : tensor<4x3xf8E4M3FN>) permutation = [1, 0]
  %y = fp8.scaled_matmul %qx, %t scales(%sx, %ts) by(<1x16>, <16x16>) lhs_global(%gx : tensor<1x1xf32>) rhs_global(%gw : tensor<1x1xf32>) transpose_rhs {recipe = #fp8.recipe<nvfp4>} : tensor<64x40xf4E2M1FN>, tensor<64x40xf4E2M1FN>, tensor<64x3xf8E4M3FN>, tensor<4x3xf8E4M3FN> -> tensor<64x64xbf16>
  return %y : tensor<64x64xbf16>
}
