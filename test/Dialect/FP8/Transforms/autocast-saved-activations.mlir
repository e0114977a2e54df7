// RUN: fp8-opt %s --fp8-autocast="recipe=tensor-current saved-activations=e4m3" | FileCheck %s
// RUN: fp8-opt %s --fp8-autocast="recipe=tensor-current saved-activations=e5m2 saved-activation-group=32" \
// RUN:   | FileCheck %s --check-prefix=E5M2
// RUN: fp8-opt %s --fp8-autocast="recipe=tensor-current saved-activations=e4m3" \
// RUN:   --remarks-filter=fp8-autocast --remark-format=emitRemark -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK
// RUN: fp8-opt %s --fp8-autocast=recipe=tensor-current | FileCheck %s --check-prefix=OFF
// RUN: not fp8-opt %s --fp8-autocast="saved-activations=e2m1" 2>&1 | FileCheck %s --check-prefix=BADFORMAT
// RUN: not fp8-opt %s --fp8-autocast="saved-activations=e4m3 saved-activation-group=0" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADGROUP

// The backward of y = gelu(h) @ w: the GELU gradient reads the forward value
// %h (saved for the backward pass) and the gradient %dg, which comes from the
// dgrad contraction of the output gradient %dy. %h is stored in FP8 by groups
// of 128 along its last dimension and decoded where the gradient reads it;
// %dg is a gradient and is not touched. The forward GELU keeps reading %h.

// CHECK-LABEL: func.func @gelu_backward(
// CHECK-SAME: %[[H:[^:]*]]: tensor<64x256xf32>
// CHECK: %[[A:.*]] = fp8.amax %[[H]] by <128> : tensor<64x256xf32> -> tensor<64x2xf32>
// CHECK: %[[S:.*]], %[[SI:.*]] = fp8.compute_scale %[[A]] rule <pow2> for <e4m3>
// CHECK: %[[Q:.*]] = fp8.quantize %[[H]], %[[S]] by <128> : tensor<64x256xf32>, tensor<64x2xf32> -> tensor<64x256xf8E4M3FN>
// CHECK: %[[D:.*]] = fp8.dequantize %[[Q]], %[[SI]] by <128> : tensor<64x256xf8E4M3FN>, tensor<64x2xf32> -> tensor<64x256xf32>
// CHECK: linalg.generic {{.*}} ins(%[[H]] : tensor<64x256xf32>)
// CHECK: %[[DG:[a-z0-9_]+]] = fp8.scaled_matmul {{.*}}role = #fp8.gemm_role<dgrad>
// CHECK: linalg.generic {{.*}} ins(%[[D]], %[[DG]] : tensor<64x256xf32>, tensor<64x256xf32>) {{.*}}fp8.unit_op = "gelu_grad"

// E5M2-LABEL: func.func @gelu_backward(
// E5M2: fp8.amax %{{.*}} by <32> : tensor<64x256xf32> -> tensor<64x8xf32>
// E5M2: fp8.quantize {{.*}} -> tensor<64x256xf8E5M2>

// 64 x 256 f32 (65536 bytes) become 16384 bytes of codes and 512 of scales.
// REMARK: remark: [Passed] saved-activation | Category:fp8-autocast | Function=gelu_backward | Remark="argument 0 read by linalg.generic is saved in e4m3 by groups of 128: 16896 bytes instead of 65536"
// REMARK: remark: [Passed] saved-activations | Category:fp8-autocast | Function=gelu_backward | Remark="saved activations of non-linear layers in e4m3: 48640 bytes less"

// OFF-NOT: fp8.amax %arg0

// BADFORMAT: fp8-autocast: unknown saved-activations 'e2m1'; valid values are e4m3, e5m2
// BADGROUP: fp8-autocast: saved-activation-group must be positive, got 0

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @gelu_backward(%h: tensor<64x256xf32>, %w: tensor<256x128xf32>, %dy: tensor<64x128xf32>)
    -> (tensor<64x128xf32>, tensor<64x256xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) attrs = {fp8.unit_op = "gelu"} {
  ^bb0(%x: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %r = arith.constant 0.707106769 : f32
    %one = arith.constant 1.0 : f32
    %s = arith.mulf %x, %r : f32
    %erf = math.erf %s : f32
    %p = arith.addf %erf, %one : f32
    %c = arith.mulf %p, %half : f32
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<64x256xf32>
  %ey = tensor.empty() : tensor<64x128xf32>
  %zy = linalg.fill ins(%zero : f32) outs(%ey : tensor<64x128xf32>) -> tensor<64x128xf32>
  %y = linalg.matmul ins(%g, %w : tensor<64x256xf32>, tensor<256x128xf32>) outs(%zy : tensor<64x128xf32>) -> tensor<64x128xf32>
  %zg = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %dg = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      {fp8.role = #fp8.gemm_role<dgrad>, fp8.grad_operand = 0 : i64}
      ins(%dy, %w : tensor<64x128xf32>, tensor<256x128xf32>) outs(%zg : tensor<64x256xf32>) -> tensor<64x256xf32>
  %dh = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %dg : tensor<64x256xf32>, tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) attrs = {fp8.unit_op = "gelu_grad"} {
  ^bb0(%x: f32, %d: f32, %o: f32):
    %r = arith.constant 0.707106769 : f32
    %s = arith.mulf %x, %r : f32
    %erf = math.erf %s : f32
    %v = arith.mulf %d, %erf : f32
    linalg.yield %v : f32
  } -> tensor<64x256xf32>
  return %y, %dh : tensor<64x128xf32>, tensor<64x256xf32>
}

// LayerNorm's backward products (marked "layernorm_grad") read the centered
// input %c, which is saved in FP8, and the broadcast of the per-row
// reciprocal deviation %r, which is not: a framework keeps %r itself.
// CHECK-LABEL: func.func @layernorm_backward(
// CHECK-SAME: %[[X:[^:]*]]: tensor<64x256xf32>, %[[R:[^:]*]]: tensor<64xf32>
// CHECK: %[[RB:.*]] = linalg.broadcast ins(%[[R]]
// CHECK: %[[C:.*]] = linalg.sub
// CHECK: %[[Q:.*]] = fp8.quantize %[[C]]
// CHECK: %[[D:.*]] = fp8.dequantize %[[Q]]
// CHECK: %[[Y:.*]] = linalg.mul ins(%[[C]], %[[RB]]
// CHECK-NOT: fp8.quantize
// CHECK: linalg.mul {fp8.unit_op = "layernorm_grad"} ins(%[[DY:.*]], %[[RB]] :
// CHECK: linalg.mul {fp8.unit_op = "layernorm_grad"} ins(%[[DY]], %[[D]] :
// REMARK: Function=layernorm_backward | Remark="linalg.sub read by linalg.mul is saved in e4m3 by groups of 128: 16896 bytes instead of 65536"
// REMARK-NOT: Function=layernorm_backward | Remark="linalg.broadcast
func.func @layernorm_backward(%x: tensor<64x256xf32>, %r: tensor<64xf32>, %m: tensor<64x256xf32>,
                              %w: tensor<256x128xf32>, %dy: tensor<64x128xf32>)
    -> (tensor<64x256xf32>, tensor<64x256xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %rb = linalg.broadcast ins(%r : tensor<64xf32>) outs(%e : tensor<64x256xf32>) dimensions = [1]
  %c = linalg.sub ins(%x, %m : tensor<64x256xf32>, tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %y = linalg.mul ins(%c, %rb : tensor<64x256xf32>, tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %zg = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %dg = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      {fp8.role = #fp8.gemm_role<dgrad>, fp8.grad_operand = 0 : i64}
      ins(%dy, %w : tensor<64x128xf32>, tensor<256x128xf32>) outs(%zg : tensor<64x256xf32>) -> tensor<64x256xf32>
  %dc = linalg.mul {fp8.unit_op = "layernorm_grad"} ins(%dg, %rb : tensor<64x256xf32>, tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %dr = linalg.mul {fp8.unit_op = "layernorm_grad"} ins(%dg, %c : tensor<64x256xf32>, tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %dc, %dr : tensor<64x256xf32>, tensor<64x256xf32>
}
