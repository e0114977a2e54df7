// Every contraction gets a remark: converted (with formats and
// granularities) or left alone (with the reason).
// RUN: fp8-opt %s --fp8-autocast="recipe=rowwise exclude=^skip_me$ min-size=1000" \
// RUN:   --remarks-filter=fp8-autocast --remark-format=emitRemark -split-input-file -verify-diagnostics

func.func @convert(%a: tensor<16x64xf32>, %b: tensor<64x8xf32>) -> tensor<16x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  // expected-remark@+1 {{converted to fp8.scaled_matmul (rowwise fprop): A e4m3 <1x*>, B e4m3 <*x1>, rule pow2}}
  %c = linalg.matmul ins(%a, %b : tensor<16x64xf32>, tensor<64x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %c : tensor<16x8xf32>
}

// -----

func.func @skip_me(%a: tensor<16x64xf32>, %b: tensor<64x8xf32>) -> tensor<16x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  // expected-remark@+1 {{linalg.matmul left in high precision: excluded by the exclude option}}
  %c = linalg.matmul ins(%a, %b : tensor<16x64xf32>, tensor<64x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %c : tensor<16x8xf32>
}

// -----

func.func @small(%a: tensor<2x4xf32>, %b: tensor<4x8xf32>) -> tensor<2x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  // expected-remark@+1 {{linalg.matmul left in high precision: 64 multiply-adds, below min-size 1000}}
  %c = linalg.matmul ins(%a, %b : tensor<2x4xf32>, tensor<4x8xf32>) outs(%f : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %c : tensor<2x8xf32>
}

// -----

func.func @integers(%a: tensor<16x64xi32>, %b: tensor<64x8xi32>, %f: tensor<16x8xi32>) -> tensor<16x8xi32> {
  // expected-remark@+1 {{linalg.matmul left in high precision: element types are not f32, bf16 or f16}}
  %c = linalg.matmul ins(%a, %b : tensor<16x64xi32>, tensor<64x8xi32>) outs(%f : tensor<16x8xi32>) -> tensor<16x8xi32>
  return %c : tensor<16x8xi32>
}

// -----

func.func @named(%a: tensor<16x64xf32>, %b: tensor<64x8xf32>, %f: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // Excluded by name: fp8.name matches nothing here, so it is converted and
  // accumulates into its init.
  // expected-remark@+1 {{converted to fp8.scaled_matmul (rowwise fprop): A e4m3 <1x*>, B e4m3 <*x1>, rule pow2, accumulating into the init}}
  %c = linalg.matmul {fp8.name = "proj"} ins(%a, %b : tensor<16x64xf32>, tensor<64x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %c : tensor<16x8xf32>
}

// -----

// Contractions fp8.scaled_matmul does not express get a remark too, matrix-
// vector and dot products included.
func.func @not_matmuls(%a: tensor<4x16x64xf32>, %b: tensor<4x64x8xf32>, %c: tensor<16x8xf32>,
                       %m: tensor<16x64xf32>, %v: tensor<64xf32>, %y: tensor<16xf32>,
                       %s: tensor<f32>) -> (tensor<16x8xf32>, tensor<16xf32>, tensor<f32>) {
  // expected-remark@+1 {{linalg.batch_reduce_matmul left in high precision: not one M, one N, one K and at most one batch dimension}}
  %r = linalg.batch_reduce_matmul ins(%a, %b : tensor<4x16x64xf32>, tensor<4x64x8xf32>) outs(%c : tensor<16x8xf32>) -> tensor<16x8xf32>
  // expected-remark@+1 {{linalg.matvec left in high precision: not one M, one N, one K and at most one batch dimension}}
  %mv = linalg.matvec ins(%m, %v : tensor<16x64xf32>, tensor<64xf32>) outs(%y : tensor<16xf32>) -> tensor<16xf32>
  // expected-remark@+1 {{linalg.dot left in high precision: not one M, one N, one K and at most one batch dimension}}
  %d = linalg.dot ins(%v, %v : tensor<64xf32>, tensor<64xf32>) outs(%s : tensor<f32>) -> tensor<f32>
  return %r, %mv, %d : tensor<16x8xf32>, tensor<16xf32>, tensor<f32>
}
