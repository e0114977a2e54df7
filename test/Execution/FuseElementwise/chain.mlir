// An elementwise chain after a GEMM (bias row vector, ReLU, tanh, a round
// trip through bf16, a scaling, a residual add, a column vector) fused into
// one linalg.generic computes every output bit as the unfused chain does:
// both run through fp8-cpu-pipeline and print their results as integers.
// REQUIRES: mlir-runner
// RUN: fp8-opt %s --fp8-fuse-elementwise | FileCheck %s --check-prefix=IR
// RUN: fp8-opt %s --fp8-cpu-pipeline | %cpu_runner | sed -e 's/base@ = [0-9a-fx]*//' > %t.unfused
// RUN: fp8-opt %s --fp8-fuse-elementwise --fp8-cpu-pipeline | %cpu_runner | sed -e 's/base@ = [0-9a-fx]*//' > %t.fused
// RUN: FileCheck %s --input-file=%t.fused
// RUN: diff %t.unfused %t.fused

// IR-LABEL: func.func @chain
// IR: linalg.generic {{.*}} ins(%arg0, %arg1, %arg2, %arg3 :
// IR-NOT: linalg.{{generic|broadcast|add|mul}}
// IR: return

// The bits of 4x8 results: every row differs.
// CHECK: rank = 2 offset = 0 sizes = [4, 8]
// CHECK-COUNT-4: [{{-?[0-9]+}}, {{-?[0-9]+}}, {{-?[0-9]+}}, {{-?[0-9]+}}, {{-?[0-9]+}}, {{-?[0-9]+}}, {{-?[0-9]+}}, {{-?[0-9]+}}]

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func private @printMemrefI32(memref<*xi32>)

func.func @chain(%h: tensor<4x8xf32>, %bias: tensor<8xf32>,
                 %residual: tensor<4x8xf32>, %col: tensor<4xf32>)
    -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.3 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %eb = tensor.empty() : tensor<4x8xbf16>
  %b = linalg.broadcast ins(%bias : tensor<8xf32>) outs(%e : tensor<4x8xf32>)
      dimensions = [0]
  %s = linalg.add ins(%h, %b : tensor<4x8xf32>, tensor<4x8xf32>)
      outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %t = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = math.tanh %in : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  %c = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<4x8xf32>) outs(%eb : tensor<4x8xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %y = arith.truncf %in : f32 to bf16
    linalg.yield %y : bf16
  } -> tensor<4x8xbf16>
  %d = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<4x8xbf16>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %x = arith.extf %in : bf16 to f32
    %y = arith.mulf %x, %scale : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  %a = linalg.add ins(%d, %residual : tensor<4x8xf32>, tensor<4x8xf32>)
      outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %cb = linalg.broadcast ins(%col : tensor<4xf32>) outs(%e : tensor<4x8xf32>)
      dimensions = [1]
  %o = linalg.mul ins(%a, %cb : tensor<4x8xf32>, tensor<4x8xf32>)
      outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

func.func @main() {
  %h = arith.constant dense<[
      [-3.5, -1.25, -0.1, 0.0, 0.1, 0.7, 1.9, 4.0],
      [0.013, 0.27, 0.55, 0.81, 1.1, 1.37, 2.6, 9.5],
      [-0.6, 0.33, -0.02, 0.12, 0.45, 0.66, 0.91, 1.3],
      [7.0, 3.3, 2.2, 1.7, 0.9, 0.4, 0.25, 0.0625]]> : tensor<4x8xf32>
  %bias = arith.constant dense<[0.5, -0.25, 0.125, 0.0, 1.0, -1.5, 0.3, 0.01]>
      : tensor<8xf32>
  %residual = arith.constant dense<[
      [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
      [-0.1, -0.2, -0.3, -0.4, -0.5, -0.6, -0.7, -0.8],
      [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2],
      [0.0, 0.001, 0.01, 0.1, 1.0, 10.0, 100.0, 1000.0]]> : tensor<4x8xf32>
  %col = arith.constant dense<[1.0, 0.7, -3.0, 0.001]> : tensor<4xf32>
  %y = call @chain(%h, %bias, %residual, %col)
      : (tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xf32>, tensor<4xf32>)
      -> tensor<4x8xf32>
  %ei = tensor.empty() : tensor<4x8xi32>
  %bits = linalg.generic {indexing_maps = [#id, #id],
                          iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<4x8xf32>) outs(%ei : tensor<4x8xi32>) {
  ^bb0(%in: f32, %out: i32):
    %b = arith.bitcast %in : f32 to i32
    linalg.yield %b : i32
  } -> tensor<4x8xi32>
  %m = bufferization.to_buffer %bits : tensor<4x8xi32> to memref<4x8xi32>
  %u = memref.cast %m : memref<4x8xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}
