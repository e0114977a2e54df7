// Checks shared by every fp8 op: required operand and result groups, and
// tensor sizes a 64-bit integer can count.
// RUN: fp8-opt %s -split-input-file -verify-diagnostics

func.func @quantize_groups(%x: tensor<4x8xf32>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{requires exactly one `input` operand, got 2}}
  %0 = "fp8.quantize"(%x, %s) <{granularity = #fp8.granularity<tensor>, operandSegmentSizes = array<i32: 2, 0, 0, 0>}> : (tensor<4x8xf32>, tensor<1x1xf32>) -> tensor<4x8xf8E4M3FN>
  return
}

// -----

func.func @quantize_input_group(%x: tensor<4x8xf32>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{requires exactly one `input` operand, got 0}}
  %0 = "fp8.quantize"(%x, %s) <{granularity = #fp8.granularity<tensor>, operandSegmentSizes = array<i32: 0, 2, 0, 0>}> : (tensor<4x8xf32>, tensor<1x1xf32>) -> tensor<4x8xf8E4M3FN>
  return
}

// -----

func.func @matmul_groups(%a: tensor<4x4xf8E4M3FN>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{requires exactly one `rhs_scale` operand, got 0}}
  %0 = "fp8.scaled_matmul"(%a, %a, %s, %s) <{lhs_granularity = #fp8.granularity<tensor>, rhs_granularity = #fp8.granularity<tensor>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0>}> ({}) : (tensor<4x4xf8E4M3FN>, tensor<4x4xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @dynamic_quantize_groups(%x: tensor<4x8xbf16>) {
  // expected-error@+1 {{requires exactly one `data` result, got 0}}
  %0:2 = "fp8.dynamic_quantize"(%x) <{granularity = #fp8.granularity<tensor>, resultSegmentSizes = array<i32: 0, 2, 0, 0, 0>, rule = #fp8.rule<ratio>}> : (tensor<4x8xbf16>) -> (tensor<4x8xf8E4M3FN>, tensor<1x1xf32>)
  return
}

// -----

func.func @too_large(%x: tensor<4611686018427387904x4xf8E4M3FN>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{tensor type 'tensor<4611686018427387904x4xf8E4M3FN>' is too large: its size in bits overflows a 64-bit integer}}
  %0 = fp8.dequantize %x, %s by <tensor> : tensor<4611686018427387904x4xf8E4M3FN>, tensor<1x1xf32> -> tensor<4611686018427387904x4xf32>
  return
}

// -----

func.func @too_large_convert(%x: tensor<9223372036854775807xf32>) {
  // expected-error@+1 {{is too large: its size in bits overflows a 64-bit integer}}
  %0 = fp8.convert %x : tensor<9223372036854775807xf32> to tensor<9223372036854775807xf8E4M3FN>
  return
}
