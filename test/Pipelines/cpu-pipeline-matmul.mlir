// fp8-cpu-pipeline runs ordinary f32 linalg programs too: a matmul with a
// bias added as an elementwise op on tensors.
// REQUIRES: mlir-runner
// RUN: fp8-opt %s --fp8-cpu-pipeline | %cpu_runner | FileCheck %s

func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %a = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = arith.constant dense<[[1.0, 0.5], [-1.0, 2.0], [0.25, 4.0]]> : tensor<3x2xf32>
  %bias = arith.constant dense<[[10.0, 20.0], [30.0, 40.0]]> : tensor<2x2xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %init = linalg.fill ins(%z : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %c = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%init : tensor<2x2xf32>) -> tensor<2x2xf32>
  %d = arith.addf %c, %bias : tensor<2x2xf32>
  %m = bufferization.to_buffer %d : tensor<2x2xf32> to memref<2x2xf32>
  %u = memref.cast %m : memref<2x2xf32> to memref<*xf32>
  // [1 - 2 + 0.75, 0.5 + 4 + 12] + [10, 20]; [4 - 5 + 1.5, 2 + 10 + 24] + [30, 40]
  // CHECK: {{\[\[}}9.75, 36.5],
  // CHECK-NEXT: [30.5, 76]]
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
