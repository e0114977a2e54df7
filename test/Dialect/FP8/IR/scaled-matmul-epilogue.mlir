// fp8.scaled_matmul with an epilogue region round-trips in its custom form,
// through the generic form and through bytecode.
// RUN: fp8-opt %s | fp8-opt | FileCheck %s
// RUN: fp8-opt %s --mlir-print-op-generic | fp8-opt | FileCheck %s
// RUN: fp8-opt %s --emit-bytecode | fp8-opt | FileCheck %s

// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @bias_relu
// CHECK: fp8.scaled_matmul %{{.*}}, %{{.*}} scales(%{{.*}}, %{{.*}}) by(<tensor>, <tensor>) transpose_rhs
// CHECK-SAME: epilogue_ins(%{{.*}}, %{{.*}} : tensor<32xbf16>, tensor<16x32xf32>)
// CHECK-SAME: epilogue_maps([#[[ROW]], #[[ID]]])
// CHECK-SAME: -> tensor<16x32xf32> epilogue {
// CHECK-NEXT: ^bb0(%[[C:.*]]: bf16, %[[B:.*]]: bf16, %[[R:.*]]: f32):
// CHECK: arith.addf %[[C]], %[[B]] : bf16
// CHECK: fp8.yield %{{.*}} : f32
func.func @bias_relu(%a: tensor<16x64xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>,
                     %s: tensor<1x1xf32>, %bias: tensor<32xbf16>,
                     %res: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %zero = arith.constant 0.0 : bf16
  %y = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>)
      transpose_rhs
      epilogue_ins(%bias, %res : tensor<32xbf16>, tensor<16x32xf32>)
      epilogue_maps([affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>])
      : tensor<16x64xf8E4M3FN>, tensor<32x64xf8E4M3FN>, tensor<1x1xf32>,
        tensor<1x1xf32> -> tensor<16x32xf32>
      epilogue {
      ^bb0(%c: bf16, %bv: bf16, %r: f32):
        %sum = arith.addf %c, %bv : bf16
        %relu = arith.maximumf %sum, %zero : bf16
        %wide = arith.extf %relu : bf16 to f32
        %out = arith.addf %wide, %r : f32
        fp8.yield %out : f32
      }
  return %y : tensor<16x32xf32>
}

// An epilogue without inputs.
// CHECK-LABEL: func.func @tanh
// CHECK: fp8.scaled_matmul
// CHECK-NOT: epilogue_ins
// CHECK-SAME: -> tensor<16x32xbf16> epilogue {
// CHECK: math.tanh
func.func @tanh(%a: tensor<16x64xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>,
                %s: tensor<1x1xf32>) -> tensor<16x32xbf16> {
  %y = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>)
      transpose_rhs
      : tensor<16x64xf8E4M3FN>, tensor<32x64xf8E4M3FN>, tensor<1x1xf32>,
        tensor<1x1xf32> -> tensor<16x32xbf16>
      epilogue {
      ^bb0(%c: f32):
        %t = math.tanh %c : f32
        %n = arith.truncf %t : f32 to bf16
        fp8.yield %n : bf16
      }
  return %y : tensor<16x32xbf16>
}

// FP8 codes of the yielded values, encoded by out_scale, and their amax.
// CHECK-LABEL: func.func @codes
// CHECK: %{{.*}}, %{{.*}} = fp8.scaled_matmul {{.*}} out_scale(%{{.*}} : tensor<1x1xf32>) transpose_rhs
// CHECK-SAME: -> tensor<16x32xf8E4M3FN>, amax tensor<1x1xf32> epilogue {
// CHECK: fp8.yield %{{.*}} : bf16
func.func @codes(%a: tensor<16x64xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>,
                 %s: tensor<1x1xf32>) -> (tensor<16x32xf8E4M3FN>, tensor<1x1xf32>) {
  %y, %amax = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>)
      out_scale(%s : tensor<1x1xf32>) transpose_rhs
      : tensor<16x64xf8E4M3FN>, tensor<32x64xf8E4M3FN>, tensor<1x1xf32>,
        tensor<1x1xf32> -> tensor<16x32xf8E4M3FN>, amax tensor<1x1xf32>
      epilogue {
      ^bb0(%c: bf16):
        %n = arith.negf %c : bf16
        fp8.yield %n : bf16
      }
  return %y, %amax : tensor<16x32xf8E4M3FN>, tensor<1x1xf32>
}

// A result quantized by blocks: the codes and their E8M0 block scales.
// CHECK-LABEL: func.func @block_codes
// CHECK: fp8.scaled_matmul %{{.*}}, %{{.*}} scales(%{{.*}}, %{{.*}}) by(<1x32>, <1x32>) quantize by <1x32> rule <e8m0_rceil> transpose_rhs
// CHECK-SAME: -> tensor<16x64xf8E4M3FN>, scale tensor<16x2xf8E8M0FNU> epilogue {
// CHECK-NEXT: ^bb0(%[[P:.*]]: bf16):
// CHECK-NEXT: fp8.yield %[[P]] : bf16
func.func @block_codes(%a: tensor<16x64xf8E4M3FN>, %b: tensor<64x64xf8E4M3FN>,
                       %sa: tensor<16x2xf8E8M0FNU>, %sb: tensor<64x2xf8E8M0FNU>)
    -> (tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>) {
  %q, %s = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>)
      quantize by <1x32> rule <e8m0_rceil> transpose_rhs
      : tensor<16x64xf8E4M3FN>, tensor<64x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>,
        tensor<64x2xf8E8M0FNU> -> tensor<16x64xf8E4M3FN>,
        scale tensor<16x2xf8E8M0FNU>
      epilogue {
      ^bb0(%c: bf16):
        fp8.yield %c : bf16
      }
  return %q, %s : tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>
}
