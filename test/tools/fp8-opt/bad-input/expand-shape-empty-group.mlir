// tensor.expand_shape with an empty group in its reassociation: upstream's
// verifier builds one affine map per group and dereferences the missing
// expression of the empty one. fp8-opt rejects it before parsing, in the
// custom and the generic form; an empty reassociation (a rank-0 source) is
// not a group and passes.
// RUN: rm -rf %t && split-file %s %t
// RUN: not fp8-opt %t/custom.mlir 2>&1 | FileCheck %s --check-prefix=CUSTOM --implicit-check-not="internal error"
// RUN: not fp8-opt %t/generic.mlir 2>&1 | FileCheck %s --check-prefix=GENERIC --implicit-check-not="internal error"
// RUN: fp8-opt %t/scalar.mlir | FileCheck %s --check-prefix=SCALAR
// CUSTOM: custom.mlir:2:43: error: 'tensor.expand_shape' with an empty reassociation group: every group lists at least one dimension (the upstream verifier crashes on an empty one)
// GENERIC: generic.mlir:2:64: error: 'tensor.expand_shape' with an empty reassociation group
// SCALAR: tensor.expand_shape %{{.*}} [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>

//--- custom.mlir
func.func @f(%a: tensor<16x1xf32>) -> tensor<1x8x2xf32> {
  %0 = tensor.expand_shape %a [[0, 1, 2], []] output_shape [1, 8, 2] : tensor<16x1xf32> into tensor<1x8x2xf32>
  return %0 : tensor<1x8x2xf32>
}
//--- generic.mlir
func.func @f(%a: tensor<16x1xf32>) -> tensor<1x8x2xf32> {
  %0 = "tensor.expand_shape"(%a) <{reassociation = [[0, 1, 2], []], static_output_shape = array<i64: 1, 8, 2>}> : (tensor<16x1xf32>) -> tensor<1x8x2xf32>
  return %0 : tensor<1x8x2xf32>
}
//--- scalar.mlir
func.func @f(%a: tensor<f32>) -> tensor<1x1xf32> {
  %0 = tensor.expand_shape %a [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}
