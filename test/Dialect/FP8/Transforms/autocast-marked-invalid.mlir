// Contractions the user marked for FP8 (fp8.role, fp8.autocast) that the
// pass cannot convert are errors; unmarked ones only get a missed remark.
// RUN: fp8-opt %s -split-input-file --fp8-autocast=recipe=mxfp8 -verify-diagnostics

func.func @f64_dgrad(%a: tensor<8x16xf64>, %b: tensor<16x4xf64>, %c: tensor<8x4xf64>) -> tensor<8x4xf64> {
  // expected-error @below {{fp8-autocast: this op is marked for FP8 (fp8.role) but cannot be converted: element types are not f32, bf16 or f16}}
  %y = linalg.matmul {fp8.role = #fp8.gemm_role<dgrad>} ins(%a, %b : tensor<8x16xf64>, tensor<16x4xf64>) outs(%c : tensor<8x4xf64>) -> tensor<8x4xf64>
  return %y : tensor<8x4xf64>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
func.func @elementwise(%a: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @below {{fp8-autocast: this op is marked for FP8 (fp8.autocast) but cannot be converted: not a two-operand contraction}}
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x16xf32>) outs(%a : tensor<8x16xf32>) attrs = {fp8.autocast} {
  ^bb0(%x: f32, %o: f32):
    %z = arith.mulf %x, %x : f32
    linalg.yield %z : f32
  } -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// Unmarked, the same f64 contraction stays in f64 without an error.
func.func @f64_plain(%a: tensor<8x16xf64>, %b: tensor<16x4xf64>, %c: tensor<8x4xf64>) -> tensor<8x4xf64> {
  %y = linalg.matmul ins(%a, %b : tensor<8x16xf64>, tensor<16x4xf64>) outs(%c : tensor<8x4xf64>) -> tensor<8x4xf64>
  return %y : tensor<8x4xf64>
}
