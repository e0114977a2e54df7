// RUN: fp8-opt %s -split-input-file -verify-diagnostics

func.func @static_rule(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{the static rule is a compile-time constant scale; materialize it with arith.constant instead of computing it}}
  %q, %s = fp8.dynamic_quantize %x by <tensor> rule <static> : tensor<4x8xf32> -> tensor<4x8xf8E4M3FN>, tensor<1x1xf32>
  return
}

// -----

func.func @nvfp4_on_fp8(%x: tensor<4x16xf32>) {
  // expected-error@+1 {{the nvfp4 rule quantizes e2m1 (f4E2M1FN) data only, not e4m3}}
  %q, %s, %g = fp8.dynamic_quantize %x by <1x16> rule <nvfp4> : tensor<4x16xf32> -> tensor<4x16xf8E4M3FN>, tensor<4x1xf8E4M3FN> global tensor<1x1xf32>
  return
}

// -----

func.func @data_shape(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{data shape [8, 4] must equal [4, 8]}}
  %q, %s = fp8.dynamic_quantize %x by <tensor> rule <ratio> : tensor<4x8xf32> -> tensor<8x4xf8E4M3FN>, tensor<1x1xf32>
  return
}

// -----

func.func @rule_scale_type(%x: tensor<4x64xf32>) {
  // expected-error@+1 {{rule e8m0_rceil produces 'f8E8M0FNU' scales, not 'f32'}}
  %q, %s = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil> : tensor<4x64xf32> -> tensor<4x64xf8E4M3FN>, tensor<4x2xf32>
  return
}

// -----

func.func @scale_shape(%x: tensor<4x64xf32>) {
  // expected-error@+1 {{scale shape [4, 1] of the input does not match granularity #fp8.granularity<1x32> on data of shape [4, 64]: expected [4, 2] (ceil(shape / block))}}
  %q, %s = fp8.dynamic_quantize %x by <1x32> rule <e8m0_floor> : tensor<4x64xf32> -> tensor<4x64xf8E4M3FN>, tensor<4x1xf8E8M0FNU>
  return
}

// -----

func.func @nvfp4_missing_global(%x: tensor<4x16xf32>) {
  // expected-error@+1 {{the nvfp4 rule also returns the global decode scale: add a `global tensor<1x1xf32>` result type}}
  %q, %s = fp8.dynamic_quantize %x by <1x16> rule <nvfp4> : tensor<4x16xf32> -> tensor<4x16xf4E2M1FN>, tensor<4x1xf8E4M3FN>
  return
}

// -----

func.func @global_without_nvfp4(%x: tensor<4x16xf32>) {
  // expected-error@+1 {{only the nvfp4 rule returns a global scale}}
  %q, %s, %g = fp8.dynamic_quantize %x by <tensor> rule <ratio> : tensor<4x16xf32> -> tensor<4x16xf8E4M3FN>, tensor<1x1xf32> global tensor<1x1xf32>
  return
}

// -----

func.func @global_not_scalar(%x: tensor<4x16xf32>) {
  // expected-error@+1 {{global scale must hold exactly one element (e.g. tensor<1x1xf32>), got 'tensor<4x1xf32>'}}
  %q, %s, %g = fp8.dynamic_quantize %x by <1x16> rule <nvfp4> : tensor<4x16xf32> -> tensor<4x16xf4E2M1FN>, tensor<4x1xf8E4M3FN> global tensor<4x1xf32>
  return
}

// -----

func.func @colwise_without_results(%x: tensor<4x64xf32>) {
  // expected-error@+1 {{a column-wise copy needs all of `colwise <...>`, its data result and its scale result}}
  %q, %s = "fp8.dynamic_quantize"(%x) <{granularity = #fp8.granularity<1x32>, col_granularity = #fp8.granularity<32x1>, rule = #fp8.rule<e8m0_rceil>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0>}> : (tensor<4x64xf32>) -> (tensor<4x64xf8E4M3FN>, tensor<4x2xf8E8M0FNU>)
  return
}

// -----

func.func @transposed_without_colwise(%x: tensor<4x64xf32>) {
  // expected-error@+1 {{`transposed` applies to the column-wise copy; add `colwise <...>`}}
  %q, %s = "fp8.dynamic_quantize"(%x) <{granularity = #fp8.granularity<1x32>, transposed, rule = #fp8.rule<e8m0_rceil>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0>}> : (tensor<4x64xf32>) -> (tensor<4x64xf8E4M3FN>, tensor<4x2xf8E8M0FNU>)
  return
}

// -----

func.func @colwise_format(%x: tensor<16x16xf32>) {
  // expected-error@+1 {{column-wise copy: the nvfp4 rule quantizes e2m1 (f4E2M1FN) data only, not e5m2}}
  %q, %s, %g, %qc, %sc = fp8.dynamic_quantize %x by <1x16> colwise <16x1> rule <nvfp4> : tensor<16x16xf32> -> tensor<16x16xf4E2M1FN>, tensor<16x1xf8E4M3FN> global tensor<1x1xf32> colwise tensor<16x16xf8E5M2>, tensor<1x16xf8E4M3FN>
  return
}

// -----

func.func @colwise_scale_type(%x: tensor<64x64xf32>) {
  // expected-error@+1 {{column-wise copy: rule e8m0_rceil produces 'f8E8M0FNU' scales, not 'f32'}}
  %q, %s, %qc, %sc = fp8.dynamic_quantize %x by <1x32> colwise <32x1> rule <e8m0_rceil> : tensor<64x64xf32> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU> colwise tensor<64x64xf8E4M3FN>, tensor<2x64xf32>
  return
}

// -----

func.func @colwise_rank(%x: tensor<64xf32>) {
  // expected-error@+1 {{granularity #fp8.granularity<32x1> names 2 block dimensions but the input has rank 1}}
  %q, %s, %qc, %sc = fp8.dynamic_quantize %x by <32> colwise <32x1> rule <e8m0_rceil> : tensor<64xf32> -> tensor<64xf8E4M3FN>, tensor<2xf8E8M0FNU> colwise tensor<64xf8E4M3FN>, tensor<2xf8E8M0FNU>
  return
}

// -----

func.func @transposed_rank(%x: tensor<64xf32>) {
  // expected-error@+1 {{a transposed copy needs an input of rank >= 2}}
  %q, %s, %qc, %sc = fp8.dynamic_quantize %x by <32> colwise <32> transposed rule <e8m0_rceil> : tensor<64xf32> -> tensor<64xf8E4M3FN>, tensor<2xf8E8M0FNU> colwise tensor<64xf8E4M3FN>, tensor<2xf8E8M0FNU>
  return
}

// -----

func.func @colwise_data_shape(%x: tensor<32x64xf32>) {
  // expected-error@+1 {{column-wise data shape [32, 64] must be [64, 32] (the input transposed)}}
  %q, %s, %qc, %sc = fp8.dynamic_quantize %x by <1x32> colwise <32x1> transposed rule <e8m0_rceil> : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU> colwise tensor<32x64xf8E4M3FN>, tensor<1x64xf8E8M0FNU>
  return
}

// -----

func.func @colwise_scale_shape(%x: tensor<32x64xf32>) {
  // expected-error@+1 {{column-wise scale shape [1, 64] does not match granularity #fp8.granularity<32x1>: expected [64, 1] (transposed with the data)}}
  %q, %s, %qc, %sc = fp8.dynamic_quantize %x by <1x32> colwise <32x1> transposed rule <e8m0_rceil> : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU> colwise tensor<64x32xf8E4M3FN>, tensor<1x64xf8E8M0FNU>
  return
}

// -----

func.func @colwise_scale_shape_plain(%x: tensor<32x64xf32>) {
  // expected-error@+1 {{column-wise scale shape [64, 1] does not match granularity #fp8.granularity<32x1>: expected [1, 64]}}
  %q, %s, %qc, %sc = fp8.dynamic_quantize %x by <1x32> colwise <32x1> rule <e8m0_rceil> : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU> colwise tensor<32x64xf8E4M3FN>, tensor<64x1xf8E8M0FNU>
  return
}

// -----

// expected-error@+2 {{k_dim must be 0 or 1 (the scale dimension K runs along), got 2}}
func.func @scale_layout_k_dim(%x: tensor<32x64xf32>) {
  %q, %s = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil> {scale_layout = #fp8.tcgen05_scale_layout<k_dim = 2, stage_k_blocks = 4>} : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>
  return
}

// -----

// expected-error@+2 {{stage_k_blocks must be a positive multiple of 4 (whole 4-k-block chunks), got 6}}
func.func @scale_layout_stage(%x: tensor<32x64xf32>) {
  %q, %s = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil> {scale_layout = #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 6>} : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>
  return
}

// -----

func.func @scale_layout_f32_scales(%x: tensor<32x256xf32>) {
  // expected-error@+1 {{`scale_layout` stores e8m0 or e4m3 block scales of matrices (2-D) or batches of matrices (3-D) in the tcgen05 layout, not 'tensor<32x2xf32>'}}
  %q, %s = fp8.dynamic_quantize %x by <1x128> rule <pow2> {scale_layout = #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 4>} : tensor<32x256xf32> -> tensor<32x256xf8E4M3FN>, tensor<32x2xf32>
  return
}

// -----

// Scales of a rank-4 tensor: the layout covers matrices and batches of them.
func.func @scale_layout_rank4(%x: tensor<2x2x32x64xf32>) {
  // expected-error@+1 {{`scale_layout` stores e8m0 or e4m3 block scales of matrices (2-D) or batches of matrices (3-D) in the tcgen05 layout, not 'tensor<2x2x32x2xf8E8M0FNU>'}}
  %q, %s = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil> {scale_layout = #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 4>} : tensor<2x2x32x64xf32> -> tensor<2x2x32x64xf8E4M3FN>, tensor<2x2x32x2xf8E8M0FNU>
  return
}

// -----

func.func @col_scale_layout_without_colwise(%x: tensor<32x64xf32>) {
  // expected-error@+1 {{`col_scale_layout` describes the column-wise scales: add `colwise <...>`}}
  %q, %s = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil> {col_scale_layout = #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 4>} : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>
  return
}
