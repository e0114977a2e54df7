// RUN: rm -rf %t && split-file %s %t
// The upstream parser of these ops (and their verifier, in the generic form)
// lists one type per element before it checks the operands: fp8-opt refuses
// types of more than --max-materialized-elements elements (2^24 by default)
// first, so the memory stays bounded.
// RUN: not fp8-opt %t/from-elements.mlir 2>&1 | FileCheck %s --check-prefix=FROM
// RUN: not fp8-opt %t/from-elements-generic.mlir 2>&1 | FileCheck %s --check-prefix=GENERIC
// RUN: not fp8-opt %t/to-elements.mlir 2>&1 | FileCheck %s --check-prefix=TO
// RUN: not fp8-opt %t/type-on-next-line.mlir 2>&1 | FileCheck %s --check-prefix=NEXT
// RUN: not fp8-opt %t/small.mlir --max-materialized-elements=3 2>&1 | FileCheck %s --check-prefix=LIMIT
// Within the limit, and with no limit, the op reaches the parser.
// RUN: fp8-opt %t/small.mlir | FileCheck %s --check-prefix=SMALL
// RUN: fp8-opt %t/small.mlir --max-materialized-elements=0 | FileCheck %s --check-prefix=SMALL
// The name in a comment, and other ops with large types, are left alone.
// RUN: fp8-opt %t/unrelated.mlir | FileCheck %s --check-prefix=UNRELATED

// FROM: from-elements.mlir:2:34: error: 'tensor.from_elements' of 2147483647 elements exceeds the 16777216 elements materialized for one op; raise --max-materialized-elements to allow it
// GENERIC: from-elements-generic.mlir:2:46: error: 'tensor.from_elements' of 4294967296 elements exceeds
// TO: to-elements.mlir:2:32: error: 'vector.to_elements' of 18446744073709551615 elements exceeds
// NEXT: type-on-next-line.mlir:3:8: error: 'vector.from_elements' of 33554432 elements exceeds
// LIMIT: small.mlir:2:46: error: 'tensor.from_elements' of 4 elements exceeds the 3 elements
// SMALL: tensor.from_elements %{{.*}} : tensor<2x2xf32>
// UNRELATED: func.func @f

//--- from-elements.mlir
func.func @f(%a: f32) {
  %0 = tensor.from_elements %a : tensor<2147483647xf32>
  return
}
//--- from-elements-generic.mlir
func.func @f(%a: f32) {
  %0 = "tensor.from_elements"(%a) : (f32) -> tensor<65536x65536xf32>
  return
}
//--- to-elements.mlir
func.func @f(%v: vector<4xf32>) {
  %0 = vector.to_elements %v : vector<4294967296x4294967296x[4]xf32>
  return
}
//--- type-on-next-line.mlir
func.func @f(%a: f32) {
  %0 = vector.from_elements %a, %a
     : vector<2x4096x4096xf32>
  return
}
//--- small.mlir
func.func @f(%a: f32) -> tensor<2x2xf32> {
  %0 = tensor.from_elements %a, %a, %a, %a : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
//--- unrelated.mlir
// tensor.from_elements : tensor<2147483647xf32>
func.func @f(%a: tensor<2147483647xf32>) -> tensor<2147483647xf32> {
  %0 = tensor.empty() : tensor<2147483647xf32>
  return %a : tensor<2147483647xf32>
}
