// RUN: fp8-opt %s -split-input-file --fp8-assign-scale-layouts=chip=sm_100a | FileCheck %s
// RUN: fp8-opt %s -split-input-file --fp8-assign-scale-layouts=chip=sm_90a | FileCheck %s --check-prefix=SM90

// SM90-NOT: scale_layout

// MXFP8 activations and weights read only by one block-scaled GEMM, both
// K-major: their E8M0 scales are [rows, k-blocks] in stages of 4.
// CHECK-LABEL: func.func @mxfp8
// CHECK: fp8.dynamic_quantize %arg0 by <1x32> rule <e8m0_rceil> {scale_layout = #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 4>}
// CHECK: fp8.dynamic_quantize %arg1 by <1x32> rule <e8m0_rceil> {scale_layout = #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 4>}
func.func @mxfp8(%x: tensor<128x256xbf16>, %w: tensor<96x256xbf16>) -> tensor<128x96xf32> {
  %qx, %sx = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil> : tensor<128x256xbf16> -> tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>
  %qw, %sw = fp8.dynamic_quantize %w by <1x32> rule <e8m0_rceil> : tensor<96x256xbf16> -> tensor<96x256xf8E4M3FN>, tensor<96x8xf8E8M0FNU>
  %c = fp8.scaled_matmul %qx, %qw scales(%sx, %sw) by(<1x32>, <1x32>) transpose_rhs : tensor<128x256xf8E4M3FN>, tensor<96x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>, tensor<96x8xf8E8M0FNU> -> tensor<128x96xf32>
  return %c : tensor<128x96xf32>
}

// -----

// The transposed column-wise copy of a [K, N] weight: its scales are stored
// [N, k-blocks], the frame of the stored copy, whatever the input's.
// CHECK-LABEL: func.func @colwise_transposed
// CHECK: fp8.dynamic_quantize %arg1 by <1x32> colwise <32x1> transposed rule <e8m0_rceil> {col_scale_layout = #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 4>}
func.func @colwise_transposed(%x: tensor<128x256xbf16>, %w: tensor<256x96xbf16>) -> tensor<128x96xf32> {
  %qx, %sx = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil> : tensor<128x256xbf16> -> tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>
  %qw, %sw, %qt, %st = fp8.dynamic_quantize %w by <1x32> colwise <32x1> transposed rule <e8m0_rceil> : tensor<256x96xbf16> -> tensor<256x96xf8E4M3FN>, tensor<256x3xf8E8M0FNU> colwise tensor<96x256xf8E4M3FN>, tensor<96x8xf8E8M0FNU>
  %c = fp8.scaled_matmul %qx, %qt scales(%sx, %st) by(<1x32>, <1x32>) transpose_rhs : tensor<128x256xf8E4M3FN>, tensor<96x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>, tensor<96x8xf8E8M0FNU> -> tensor<128x96xf32>
  return %c : tensor<128x96xf32>
}

// -----

// Scales reached through a transpose (which a quantization stores): K runs
// along the stored scales' rows.
// CHECK-LABEL: func.func @through_transpose
// CHECK: fp8.dynamic_quantize %arg1 by <32x1> rule <e8m0_rceil> {scale_layout = #fp8.tcgen05_scale_layout<k_dim = 0, stage_k_blocks = 4>}
func.func @through_transpose(%x: tensor<128x256xbf16>, %w: tensor<256x96xbf16>) -> tensor<128x96xf32> {
  %qx, %sx = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil> : tensor<128x256xbf16> -> tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>
  %qw, %sw = fp8.dynamic_quantize %w by <32x1> rule <e8m0_rceil> : tensor<256x96xbf16> -> tensor<256x96xf8E4M3FN>, tensor<8x96xf8E8M0FNU>
  %e = tensor.empty() : tensor<96x256xf8E4M3FN>
  %qt = linalg.transpose ins(%qw : tensor<256x96xf8E4M3FN>) outs(%e : tensor<96x256xf8E4M3FN>) permutation = [1, 0]
  %es = tensor.empty() : tensor<96x8xf8E8M0FNU>
  %st = linalg.transpose ins(%sw : tensor<8x96xf8E8M0FNU>) outs(%es : tensor<96x8xf8E8M0FNU>) permutation = [1, 0]
  %c = fp8.scaled_matmul %qx, %qt scales(%sx, %st) by(<1x32>, <1x32>) transpose_rhs : tensor<128x256xf8E4M3FN>, tensor<96x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>, tensor<96x8xf8E8M0FNU> -> tensor<128x96xf32>
  return %c : tensor<128x96xf32>
}

// -----

// NVFP4: 256 E2M1 elements of K per stage, one E4M3 scale per 16: 16
// k-blocks a stage; the weight's 16x16 blocks repeat for 16 rows.
// CHECK-LABEL: func.func @nvfp4
// CHECK: fp8.dynamic_quantize %arg0 by <1x16> rule <nvfp4> {scale_layout = #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 16>}
// CHECK: fp8.dynamic_quantize %arg1 by <16x16> rule <nvfp4> {scale_layout = #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 16>}
func.func @nvfp4(%x: tensor<128x256xbf16>, %w: tensor<96x256xbf16>) -> tensor<128x96xf32> {
  %qx, %sx, %gx = fp8.dynamic_quantize %x by <1x16> rule <nvfp4> : tensor<128x256xbf16> -> tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN> global tensor<1x1xf32>
  %qw, %sw, %gw = fp8.dynamic_quantize %w by <16x16> rule <nvfp4> : tensor<96x256xbf16> -> tensor<96x256xf4E2M1FN>, tensor<6x16xf8E4M3FN> global tensor<1x1xf32>
  %c = fp8.scaled_matmul %qx, %qw scales(%sx, %sw) by(<1x16>, <16x16>) lhs_global(%gx : tensor<1x1xf32>) rhs_global(%gw : tensor<1x1xf32>) transpose_rhs : tensor<128x256xf4E2M1FN>, tensor<96x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>, tensor<6x16xf8E4M3FN> -> tensor<128x96xf32>
  return %c : tensor<128x96xf32>
}

// -----

// Scales that something else reads too (here the function's result) stay
// row-major; so do f32 scales, which no tensor core applies per block.
// CHECK-LABEL: func.func @other_readers
// CHECK: fp8.dynamic_quantize %arg0 by <1x32> rule <e8m0_rceil> : tensor<128x256xbf16>
// CHECK: fp8.dynamic_quantize %arg1 by <1x32> rule <e8m0_rceil> {scale_layout
// CHECK: fp8.dynamic_quantize %arg0 by <1x*> rule <pow2> : tensor<128x256xbf16>
// CHECK: fp8.dynamic_quantize %arg1 by <1x*> rule <pow2> : tensor<96x256xbf16>
func.func @other_readers(%x: tensor<128x256xbf16>, %w: tensor<96x256xbf16>) -> (tensor<128x96xf32>, tensor<128x8xf8E8M0FNU>, tensor<128x96xf32>) {
  %qx, %sx = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil> : tensor<128x256xbf16> -> tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>
  %qw, %sw = fp8.dynamic_quantize %w by <1x32> rule <e8m0_rceil> : tensor<96x256xbf16> -> tensor<96x256xf8E4M3FN>, tensor<96x8xf8E8M0FNU>
  %c = fp8.scaled_matmul %qx, %qw scales(%sx, %sw) by(<1x32>, <1x32>) transpose_rhs : tensor<128x256xf8E4M3FN>, tensor<96x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>, tensor<96x8xf8E8M0FNU> -> tensor<128x96xf32>
  %fx, %tx = fp8.dynamic_quantize %x by <1x*> rule <pow2> : tensor<128x256xbf16> -> tensor<128x256xf8E4M3FN>, tensor<128x1xf32>
  %fw, %tw = fp8.dynamic_quantize %w by <1x*> rule <pow2> : tensor<96x256xbf16> -> tensor<96x256xf8E4M3FN>, tensor<96x1xf32>
  %d = fp8.scaled_matmul %fx, %fw scales(%tx, %tw) by(<1x*>, <1x*>) transpose_rhs : tensor<128x256xf8E4M3FN>, tensor<96x256xf8E4M3FN>, tensor<128x1xf32>, tensor<96x1xf32> -> tensor<128x96xf32>
  return %c, %sx, %d : tensor<128x96xf32>, tensor<128x8xf8E8M0FNU>, tensor<128x96xf32>
}

// -----

// A prepare function's scales (fp8-prepare-weights) that only the GEMMs of
// the function taking them read, directly: the quantization writes the
// layout and the argument is marked with it. Scales returned by way of a
// transpose, or read through one, keep row-major.
// CHECK-LABEL: func.func @linear_prepare
// CHECK: fp8.dynamic_quantize %arg0 by <1x32> rule <e8m0_rceil> {scale_layout = #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 4>}
// CHECK: fp8.dynamic_quantize %arg1 by <32x1> rule <e8m0_rceil> :
// CHECK-LABEL: func.func @linear(
// CHECK-SAME: %{{.*}}: tensor<96x8xf8E8M0FNU> {fp8.prepared = 1 : i64, fp8.scale_layout = #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 4>}
// CHECK-SAME: %{{.*}}: tensor<96x8xf8E8M0FNU> {fp8.prepared = 3 : i64})
func.func @linear_prepare(%w: tensor<96x256xbf16> {fp8.weight}, %v: tensor<256x96xbf16> {fp8.weight})
    -> (tensor<96x256xf8E4M3FN>, tensor<96x8xf8E8M0FNU>, tensor<96x256xf8E4M3FN>, tensor<96x8xf8E8M0FNU>) {
  %qw, %sw = fp8.dynamic_quantize %w by <1x32> rule <e8m0_rceil> : tensor<96x256xbf16> -> tensor<96x256xf8E4M3FN>, tensor<96x8xf8E8M0FNU>
  %qv, %sv = fp8.dynamic_quantize %v by <32x1> rule <e8m0_rceil> : tensor<256x96xbf16> -> tensor<256x96xf8E4M3FN>, tensor<8x96xf8E8M0FNU>
  %e = tensor.empty() : tensor<96x256xf8E4M3FN>
  %qvt = linalg.transpose ins(%qv : tensor<256x96xf8E4M3FN>) outs(%e : tensor<96x256xf8E4M3FN>) permutation = [1, 0]
  %es = tensor.empty() : tensor<96x8xf8E8M0FNU>
  %svt = linalg.transpose ins(%sv : tensor<8x96xf8E8M0FNU>) outs(%es : tensor<96x8xf8E8M0FNU>) permutation = [1, 0]
  return %qw, %sw, %qvt, %svt : tensor<96x256xf8E4M3FN>, tensor<96x8xf8E8M0FNU>, tensor<96x256xf8E4M3FN>, tensor<96x8xf8E8M0FNU>
}
func.func @linear(%x: tensor<128x256xbf16>, %qw: tensor<96x256xf8E4M3FN> {fp8.prepared = 0 : i64}, %sw: tensor<96x8xf8E8M0FNU> {fp8.prepared = 1 : i64},
                  %qv: tensor<96x256xf8E4M3FN> {fp8.prepared = 2 : i64}, %sv: tensor<96x8xf8E8M0FNU> {fp8.prepared = 3 : i64}) -> (tensor<128x96xf32>, tensor<128x96xf32>)
    attributes {fp8.prepare = @linear_prepare} {
  %qx, %sx = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil> : tensor<128x256xbf16> -> tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>
  %c = fp8.scaled_matmul %qx, %qw scales(%sx, %sw) by(<1x32>, <1x32>) transpose_rhs : tensor<128x256xf8E4M3FN>, tensor<96x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>, tensor<96x8xf8E8M0FNU> -> tensor<128x96xf32>
  %d = fp8.scaled_matmul %qx, %qv scales(%sx, %sv) by(<1x32>, <1x32>) transpose_rhs : tensor<128x256xf8E4M3FN>, tensor<96x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>, tensor<96x8xf8E8M0FNU> -> tensor<128x96xf32>
  return %c, %d : tensor<128x96xf32>, tensor<128x96xf32>
}

// -----

// A prepare group's functions (fp8-prepare-weights) may each take a scale:
// the layout is written when every GEMM of every function reads it alike,
// directly, and then each function's argument is marked.
// CHECK-LABEL: func.func @group_prepare
// CHECK: fp8.dynamic_quantize %arg0 by <1x32> rule <e8m0_rceil> {scale_layout = #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 4>}
// CHECK: fp8.dynamic_quantize %arg1 by <1x32> rule <e8m0_rceil> :
// CHECK-LABEL: func.func @group_forward(
// CHECK-SAME: %{{.*}}: tensor<96x8xf8E8M0FNU> {fp8.prepared = 1 : i64, fp8.scale_layout = #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 4>}
// CHECK-SAME: %{{.*}}: tensor<96x8xf8E8M0FNU> {fp8.prepared = 3 : i64})
// CHECK-LABEL: func.func @group_backward(
// CHECK-SAME: %{{.*}}: tensor<96x8xf8E8M0FNU> {fp8.prepared = 1 : i64, fp8.scale_layout = #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 4>}
// CHECK-SAME: %{{.*}}: tensor<96x8xf8E8M0FNU> {fp8.prepared = 3 : i64})
// Result 3 is read directly by @group_forward but through a transpose by
// @group_backward: it stays row-major in both.
func.func @group_prepare(%w: tensor<96x256xbf16> {fp8.weight}, %v: tensor<96x256xbf16> {fp8.weight})
    -> (tensor<96x256xf8E4M3FN>, tensor<96x8xf8E8M0FNU>, tensor<96x256xf8E4M3FN>, tensor<96x8xf8E8M0FNU>) {
  %qw, %sw = fp8.dynamic_quantize %w by <1x32> rule <e8m0_rceil> : tensor<96x256xbf16> -> tensor<96x256xf8E4M3FN>, tensor<96x8xf8E8M0FNU>
  %qv, %sv = fp8.dynamic_quantize %v by <1x32> rule <e8m0_rceil> : tensor<96x256xbf16> -> tensor<96x256xf8E4M3FN>, tensor<96x8xf8E8M0FNU>
  return %qw, %sw, %qv, %sv : tensor<96x256xf8E4M3FN>, tensor<96x8xf8E8M0FNU>, tensor<96x256xf8E4M3FN>, tensor<96x8xf8E8M0FNU>
}
func.func @group_forward(%x: tensor<128x256xbf16>, %qw: tensor<96x256xf8E4M3FN> {fp8.prepared = 0 : i64}, %sw: tensor<96x8xf8E8M0FNU> {fp8.prepared = 1 : i64},
                         %qv: tensor<96x256xf8E4M3FN> {fp8.prepared = 2 : i64}, %sv: tensor<96x8xf8E8M0FNU> {fp8.prepared = 3 : i64}) -> (tensor<128x96xf32>, tensor<128x96xf32>)
    attributes {fp8.prepare = @group_prepare} {
  %qx, %sx = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil> : tensor<128x256xbf16> -> tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>
  %c = fp8.scaled_matmul %qx, %qw scales(%sx, %sw) by(<1x32>, <1x32>) transpose_rhs : tensor<128x256xf8E4M3FN>, tensor<96x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>, tensor<96x8xf8E8M0FNU> -> tensor<128x96xf32>
  %d = fp8.scaled_matmul %qx, %qv scales(%sx, %sv) by(<1x32>, <1x32>) transpose_rhs : tensor<128x256xf8E4M3FN>, tensor<96x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>, tensor<96x8xf8E8M0FNU> -> tensor<128x96xf32>
  return %c, %d : tensor<128x96xf32>, tensor<128x96xf32>
}
func.func @group_backward(%y: tensor<64x256xbf16>, %qw: tensor<96x256xf8E4M3FN> {fp8.prepared = 0 : i64}, %sw: tensor<96x8xf8E8M0FNU> {fp8.prepared = 1 : i64},
                          %sv: tensor<96x8xf8E8M0FNU> {fp8.prepared = 3 : i64}) -> (tensor<64x96xf32>, tensor<8x96xf8E8M0FNU>)
    attributes {fp8.prepare = @group_prepare} {
  %qy, %sy = fp8.dynamic_quantize %y by <1x32> rule <e8m0_rceil> : tensor<64x256xbf16> -> tensor<64x256xf8E4M3FN>, tensor<64x8xf8E8M0FNU>
  %c = fp8.scaled_matmul %qy, %qw scales(%sy, %sw) by(<1x32>, <1x32>) transpose_rhs : tensor<64x256xf8E4M3FN>, tensor<96x256xf8E4M3FN>, tensor<64x8xf8E8M0FNU>, tensor<96x8xf8E8M0FNU> -> tensor<64x96xf32>
  %e = tensor.empty() : tensor<8x96xf8E8M0FNU>
  %t = linalg.transpose ins(%sv : tensor<96x8xf8E8M0FNU>) outs(%e : tensor<8x96xf8E8M0FNU>) permutation = [1, 0]
  return %c, %t : tensor<64x96xf32>, tensor<8x96xf8E8M0FNU>
}
