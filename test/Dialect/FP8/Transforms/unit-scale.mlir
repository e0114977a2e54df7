// RUN: fp8-opt %s -split-input-file --fp8-unit-scale | FileCheck %s
// Running the pass twice changes nothing more.
// RUN: fp8-opt %s -split-input-file --fp8-unit-scale --fp8-unit-scale | FileCheck %s
// RUN: fp8-opt %s -split-input-file --fp8-unit-scale=residual-tau=0.5 | FileCheck %s --check-prefix=TAU

// A matmul [M,K]x[K,N] into zeros: the result times K^-1/2.
// CHECK-LABEL: func.func @matmul
// CHECK: %[[MM:.*]] = linalg.matmul {fp8.unit_scaled}
// CHECK: %[[F:.*]] = arith.constant 0.0441941731 : f32
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[MM]] : tensor<64x64xf32>) {{.*}} attrs = {fp8.unit_scaled}
// CHECK:   arith.mulf %{{.*}}, %[[F]] : f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[S]]
func.func @matmul(%x: tensor<64x512xf32>, %w: tensor<512x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %y = linalg.matmul ins(%x, %w : tensor<64x512xf32>, tensor<512x64xf32>) outs(%init : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}

// -----

// Batch matmul in bf16: the factor of K = 16 applied in f32.
// CHECK-LABEL: func.func @batch
// CHECK: %[[MM:.*]] = linalg.batch_matmul {fp8.unit_scaled}
// CHECK: %[[F:.*]] = arith.constant 2.500000e-01 : f32
// CHECK: linalg.generic {{.*}} ins(%[[MM]] : tensor<2x8x4xbf16>)
// CHECK:   %[[E:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK:   %[[M:.*]] = arith.mulf %[[E]], %[[F]] : f32
// CHECK:   arith.truncf %[[M]] : f32 to bf16
func.func @batch(%x: tensor<2x8x16xbf16>, %w: tensor<2x16x4xbf16>) -> tensor<2x8x4xbf16> {
  %e = tensor.empty() : tensor<2x8x4xbf16>
  %y = linalg.batch_matmul ins(%x, %w : tensor<2x8x16xbf16>, tensor<2x16x4xbf16>) outs(%e : tensor<2x8x4xbf16>) -> tensor<2x8x4xbf16>
  return %y : tensor<2x8x4xbf16>
}

// -----

// A backward GEMM written out: dgrad dX = dY W^T contracts N (here 256),
// whatever the op is called.
// CHECK-LABEL: func.func @dgrad
// CHECK: linalg.matmul {{.*}}fp8.unit_scaled
// CHECK: arith.constant 6.250000e-02 : f32
func.func @dgrad(%dy: tensor<32x256xf32>, %w: tensor<64x256xf32>) -> tensor<32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %dx = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%dy, %w : tensor<32x256xf32>, tensor<64x256xf32>) outs(%init : tensor<32x64xf32>) -> tensor<32x64xf32>
  return %dx : tensor<32x64xf32>
}

// -----

// Accumulating into values: the product alone is scaled, then the init added.
// CHECK-LABEL: func.func @accumulate
// CHECK-SAME: (%{{.*}}: tensor<4x16xf32>, %{{.*}}: tensor<16x4xf32>, %[[C:.*]]: tensor<4x4xf32>)
// CHECK: %[[Z:.*]] = linalg.fill
// CHECK: %[[P:.*]] = linalg.matmul {fp8.unit_scaled} ins({{.*}}) outs(%[[Z]] : tensor<4x4xf32>)
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<4x4xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[S]], %[[C]] : tensor<4x4xf32>, tensor<4x4xf32>)
// CHECK:   arith.addf
// CHECK: return %[[SUM]]
func.func @accumulate(%x: tensor<4x16xf32>, %w: tensor<16x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %y = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// Dynamic K: the factor is computed at run time.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[K:.*]] = tensor.dim %arg0, %c1
// CHECK: linalg.matmul {fp8.unit_scaled}
// CHECK: %[[I:.*]] = arith.index_castui %[[K]] : index to i64
// CHECK: %[[N:.*]] = arith.uitofp %[[I]] : i64 to f32
// CHECK: %[[F:.*]] = math.rsqrt %[[N]] : f32
// CHECK: arith.mulf %{{.*}}, %[[F]] : f32
func.func @dynamic(%x: tensor<?x?xf32>, %w: tensor<?x8xf32>, %init: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %zero = arith.constant 0.0 : f32
  %z = linalg.fill ins(%zero : f32) outs(%init : tensor<?x8xf32>) -> tensor<?x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x8xf32>) outs(%z : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

// GELU (erf form), softmax over 64, a plain residual add (2^-1/2) and a bias
// add (a broadcast: not a residual, left alone).
// CHECK-LABEL: func.func @block
// CHECK: %[[G:.*]] = linalg.generic {{.*}} attrs = {fp8.unit_scaled}
// CHECK:   math.erf
// CHECK: arith.constant 1.70068026 : f32
// CHECK: linalg.softmax {fp8.unit_scaled} dimension(1)
// CHECK: arith.constant 48.8549614 : f32
// CHECK: linalg.add {fp8.unit_scaled}
// CHECK: arith.constant 0.707106769 : f32
// CHECK: %[[B:.*]] = linalg.broadcast
// CHECK: linalg.add ins(%{{.*}}, %[[B]] : tensor<8x64xf32>, tensor<8x64xf32>)
// CHECK-NOT: fp8.unit_scaled
// CHECK: return
// TAU-LABEL: func.func @block
// TAU: linalg.add {fp8.unit_scaled}
// TAU-NOT: arith.constant 0.707106769
#id = affine_map<(i, j) -> (i, j)>
func.func @block(%x: tensor<8x64xf32>, %r: tensor<8x64xf32>, %bias: tensor<64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) {
  %e = tensor.empty() : tensor<8x64xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 0.70710678 : f32
    %h = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %s = arith.mulf %a, %c : f32
    %t = math.erf %s : f32
    %p = arith.addf %t, %one : f32
    %m = arith.mulf %a, %p : f32
    %q = arith.mulf %m, %h : f32
    linalg.yield %q : f32
  } -> tensor<8x64xf32>
  %sm = linalg.softmax dimension(1) ins(%g : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %res = linalg.add ins(%sm, %r : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %b = linalg.broadcast ins(%bias : tensor<64xf32>) outs(%e : tensor<8x64xf32>) dimensions = [0]
  %biased = linalg.add ins(%x, %b : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %res, %biased, %g : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// A weighted residual (tau = 0.5 on operand 1, the branch): each summand is
// scaled before the add. A plain tanh is not a GELU.
// CHECK-LABEL: func.func @weighted
// CHECK: %[[SKIP:.*]] = arith.constant 0.89442718 : f32
// CHECK: %[[S0:.*]] = linalg.generic {{.*}} ins(%arg0
// CHECK:   arith.mulf %{{.*}}, %[[SKIP]]
// CHECK: %[[BRANCH:.*]] = arith.constant 0.44721359 : f32
// CHECK: %[[S1:.*]] = linalg.generic {{.*}} ins(%arg1
// CHECK:   arith.mulf %{{.*}}, %[[BRANCH]]
// CHECK: arith.addf %[[S0]], %[[S1]] {fp8.residual_tau = 5.000000e-01 : f64, fp8.unit_scaled}
// CHECK: math.tanh
// CHECK-NOT: fp8.unit_scaled
// TAU-LABEL: func.func @weighted
// TAU: arith.constant 0.89442718 : f32
#id = affine_map<(i, j) -> (i, j)>
func.func @weighted(%skip: tensor<8x64xf32>, %branch: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %sum = arith.addf %skip, %branch {fp8.residual_tau = 0.5} : tensor<8x64xf32>
  %e = tensor.empty() : tensor<8x64xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%skip : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.tanh %a : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  return %sum, %t : tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// Gradients say what they are: gelu_grad (1/0.675), softmax_grad over
// dimension 0 (extent 8: 8/1.65), cross_entropy_grad over V = 64
// (64/sqrt(63)), and an explicit factor. `none` opts an add out.
// CHECK-LABEL: func.func @marked
// CHECK: arith.mulf %arg0, %arg1 {fp8.unit_op = "gelu_grad", fp8.unit_scaled}
// CHECK: arith.constant 1.48148143 : f32
// CHECK: arith.mulf %arg0, %arg0 {fp8.unit_dim = 0 : i64, fp8.unit_op = "softmax_grad", fp8.unit_scaled}
// CHECK: arith.constant 4.84848499 : f32
// CHECK: arith.subf %arg0, %arg1 {fp8.unit_op = "cross_entropy_grad", fp8.unit_scaled}
// CHECK: arith.constant 8.0632{{[0-9]+}} : f32
// CHECK: arith.divf %arg0, %arg1 {fp8.unit_scale = 3.000000e+00 : f64, fp8.unit_scaled}
// CHECK: arith.constant 3.000000e+00 : f32
// CHECK: arith.addf %arg0, %arg1 {fp8.unit_op = "none"}
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @marked(%a: tensor<8x64xf32>, %b: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) {
  %0 = arith.mulf %a, %b {fp8.unit_op = "gelu_grad"} : tensor<8x64xf32>
  %1 = arith.mulf %a, %a {fp8.unit_op = "softmax_grad", fp8.unit_dim = 0} : tensor<8x64xf32>
  %2 = arith.subf %a, %b {fp8.unit_op = "cross_entropy_grad"} : tensor<8x64xf32>
  %3 = arith.divf %a, %b {fp8.unit_scale = 3.0} : tensor<8x64xf32>
  %4 = arith.addf %a, %b {fp8.unit_op = "none"} : tensor<8x64xf32>
  return %0, %1, %2, %3, %4 : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
}
