// fp8-cpu-pipeline runs named contractions on bf16 with linalg's meaning:
// operands extended to the accumulator type, every product and sum rounded
// to it. (test/Execution/Contractions runs every form at every precision.)
// REQUIRES: mlir-runner
// RUN: fp8-opt %s --fp8-cpu-pipeline | %cpu_runner | FileCheck %s
// Named ops become linalg.generic before any pass rewrites their bodies: a
// rewritten body is not the op's own, and contraction verifiers reject it.
// RUN: fp8-opt %s --fp8-cpu-pipeline --mlir-print-ir-after=linalg-generalize-named-ops \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=GENERIC

// GENERIC-LABEL: func.func @bmm
// GENERIC-NOT: linalg.batch_matmul
// GENERIC: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// GENERIC: arith.extf %{{.*}} : bf16 to f32
// GENERIC-LABEL: func.func @dot

func.func private @printMemrefF32(memref<*xf32>)

// A bf16 batched matmul accumulating in f32, the most common attention
// contraction.
func.func @bmm(%a: tensor<2x2x3xbf16>, %b: tensor<2x3x2xbf16>) -> tensor<2x2x2xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2x2xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x2x3xbf16>, tensor<2x3x2xbf16>) outs(%c : tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  return %r : tensor<2x2x2xf32>
}

// A bf16 dot product accumulating in bf16.
func.func @dot(%a: tensor<4xbf16>, %b: tensor<4xbf16>) -> tensor<bf16> {
  %z = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<bf16>
  %c = linalg.fill ins(%z : bf16) outs(%e : tensor<bf16>) -> tensor<bf16>
  %r = linalg.dot ins(%a, %b : tensor<4xbf16>, tensor<4xbf16>) outs(%c : tensor<bf16>) -> tensor<bf16>
  return %r : tensor<bf16>
}

func.func @main() {
  %a = arith.constant dense<[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]]]> : tensor<2x2x3xbf16>
  %b = arith.constant dense<[[[1.0, 0.5], [-1.0, 2.0], [0.25, 4.0]], [[2.0, 1.0], [1.0, -1.0], [0.5, 0.5]]]> : tensor<2x3x2xbf16>
  %r = call @bmm(%a, %b) : (tensor<2x2x3xbf16>, tensor<2x3x2xbf16>) -> tensor<2x2x2xf32>
  %m = bufferization.to_buffer %r : tensor<2x2x2xf32> to memref<2x2x2xf32>
  %u = memref.cast %m : memref<2x2x2xf32> to memref<*xf32>
  // CHECK: {{\[\[\[}}-0.25, 16.5],
  // CHECK-NEXT: [0.5, 36]],
  // CHECK: {{\[\[}}1, 2.5],
  // CHECK-NEXT: [1.75, -0.25]]]
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()

  // 1 + 2^-9 + 2^-9 + 2^-9: each 2^-9 is a quarter of bf16's spacing at 1,
  // so each rounded sum stays 1. Summed in f32 and rounded once, it would be
  // 1 + 2^-7.
  %x = arith.constant dense<[1.0, 0.001953125, 0.001953125, 0.001953125]> : tensor<4xbf16>
  %ones = arith.constant dense<1.0> : tensor<4xbf16>
  %d = call @dot(%x, %ones) : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<bf16>
  %d32 = arith.extf %d : tensor<bf16> to tensor<f32>
  %dm = bufferization.to_buffer %d32 : tensor<f32> to memref<f32>
  %du = memref.cast %dm : memref<f32> to memref<*xf32>
  // CHECK: [1]
  call @printMemrefF32(%du) : (memref<*xf32>) -> ()
  return
}
