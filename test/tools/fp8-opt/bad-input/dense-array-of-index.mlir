// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// The upstream parser crashes on dense arrays of index; fp8-opt says why.
// CHECK: error: dense arrays of `index` are not supported; use array<i64: ...>
func.func @f(%x: tensor<4x8xf32>, %s: tensor<1x1xf32>) {
  %0 = "fp8.quantize"(%x, %s) <{granularity = #fp8.granularity<tensor>, operandSegmentSizes = array<index: 1, 1, 0, 0>}> : (tensor<4x8xf32>, tensor<1x1xf32>) -> tensor<4x8xf8E4M3FN>
  return
}
