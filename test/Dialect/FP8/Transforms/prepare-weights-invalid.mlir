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

// -----

func.func @first(%x: tensor<4x4xf32>, %w: tensor<4x4xf32> {fp8.weight}) -> tensor<4x4xf32> attributes {fp8.prepare_group = "g"} {
  %y = arith.addf %w, %w : tensor<4x4xf32>
  %z = arith.addf %x, %y : tensor<4x4xf32>
  return %z : tensor<4x4xf32>
}
// expected-error @below {{fp8-prepare-weights: @second in prepare group "g" takes weights of types (tensor<8x4xf32>) but @first takes (tensor<4x4xf32>); the functions of a group take the same weights, in the same order}}
func.func @second(%x: tensor<8x4xf32>, %w: tensor<8x4xf32> {fp8.weight}) -> tensor<8x4xf32> attributes {fp8.prepare_group = "g"} {
  %y = arith.addf %w, %w : tensor<8x4xf32>
  %z = arith.addf %x, %y : tensor<8x4xf32>
  return %z : tensor<8x4xf32>
}

// -----

// expected-error @below {{fp8-prepare-weights: @unweighted is in prepare group "g" but has no fp8.weight argument}}
func.func @unweighted(%x: tensor<4x4xf32>) -> tensor<4x4xf32> attributes {fp8.prepare_group = "g"} {
  return %x : tensor<4x4xf32>
}

// -----

func.func @g_prepare() {
  return
}
// expected-error @below {{fp8-prepare-weights: @g_prepare already exists; rename it to prepare the weights of @taken_by_group}}
func.func @taken_by_group(%x: tensor<4x4xf32>, %w: tensor<4x4xf32> {fp8.weight}) -> tensor<4x4xf32> attributes {fp8.prepare_group = "g"} {
  %y = arith.addf %w, %w : tensor<4x4xf32>
  %z = arith.addf %x, %y : tensor<4x4xf32>
  return %z : tensor<4x4xf32>
}
