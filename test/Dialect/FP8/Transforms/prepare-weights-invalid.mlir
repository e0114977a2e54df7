// RUN: fp8-opt %s -split-input-file --fp8-prepare-weights -verify-diagnostics

// expected-error @below {{fp8-prepare-weights: argument 0 of @marked has fp8.weight = true; the mark is a unit attribute}}
func.func @marked(%w: tensor<4x4xf32> {fp8.weight = true}) -> tensor<4x4xf32> {
  %y = arith.addf %w, %w : tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

func.func @taken_prepare() {
  return
}
// expected-error @below {{fp8-prepare-weights: @taken_prepare already exists; rename it to prepare the weights of @taken}}
func.func @taken(%x: tensor<4x4xf32>, %w: tensor<4x4xf32> {fp8.weight}) -> tensor<4x4xf32> {
  %y = arith.addf %w, %w : tensor<4x4xf32>
  %z = arith.addf %x, %y : tensor<4x4xf32>
  return %z : tensor<4x4xf32>
}
