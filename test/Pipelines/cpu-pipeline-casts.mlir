// fp8-cpu-pipeline runs plain arith.truncf / arith.extf on tensors with
// upstream (APFloat) meaning, using only the runner utility libraries.
// REQUIRES: mlir-runner
// RUN: fp8-opt %s --fp8-cpu-pipeline | %cpu_runner | FileCheck %s
// RUN: fp8-opt %s --fp8-cpu-pipeline | FileCheck %s --check-prefix=LLVM

// Only the LLVM dialect remains, and no calls into an APFloat library.
// LLVM-NOT: arith.
// LLVM-NOT: _mlir_apfloat
// LLVM: llvm.func @main()

func.func private @printMemrefF32(memref<*xf32>)

func.func @print(%t: tensor<8xf32>) {
  %m = bufferization.to_buffer %t : tensor<8xf32> to memref<8xf32>
  %u = memref.cast %m : memref<8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %x = arith.constant dense<[0.3, -1.7, 464.0, 464.0001, 1.0e-3, 0x7F800000, 0x7FC00000, 2.5]> : tensor<8xf32>
  %a = arith.truncf %x : tensor<8xf32> to tensor<8xf8E4M3FN>
  %b = arith.truncf %x : tensor<8xf32> to tensor<8xf8E5M2>
  %c = arith.truncf %x : tensor<8xf32> to tensor<8xf4E2M1FN>
  %d = arith.truncf %x : tensor<8xf32> to tensor<8xf8E8M0FNU>
  %h = arith.truncf %x : tensor<8xf32> to tensor<8xbf16>
  %e = arith.truncf %h : tensor<8xbf16> to tensor<8xf8E4M3FN>
  %a32 = arith.extf %a : tensor<8xf8E4M3FN> to tensor<8xf32>
  %b32 = arith.extf %b : tensor<8xf8E5M2> to tensor<8xf32>
  %c32 = arith.extf %c : tensor<8xf4E2M1FN> to tensor<8xf32>
  %d32 = arith.extf %d : tensor<8xf8E8M0FNU> to tensor<8xf32>
  %e32 = arith.extf %e : tensor<8xf8E4M3FN> to tensor<8xf32>
  // E4M3FN: 0.3 -> 0.3125, -1.7 -> -1.75, 464 -> 448 (tie to even), 464.0001
  // overflows to NaN, 1e-3 rounds up to the smallest subnormal 2^-9 (it is
  // above 2^-10, the midpoint), inf -> NaN.
  // CHECK: [0.3125, -1.75, 448, nan, 0.00195312, nan, nan, 2.5]
  call @print(%a32) : (tensor<8xf32>) -> ()
  // E5M2: 464 and 464.0001 are nearer 448 than 512; 1e-3 -> 2^-10; inf stays
  // inf.
  // CHECK: [0.3125, -1.75, 448, 448, 0.000976562, inf, nan, 2.5]
  call @print(%b32) : (tensor<8xf32>) -> ()
  // E2M1 (finite only): large values clamp to 6; APFloat maps inf and NaN to 0.
  // CHECK: [0.5, -1.5, 6, 6, 0, 0, 0, 2]
  call @print(%c32) : (tensor<8xf32>) -> ()
  // E8M0, unsigned powers of two, ties upward: 0.3 -> 0.25, 464 -> 512,
  // 1e-3 -> 2^-10. APFloat encodes -1.7 as the code of 1.7 (2^1) with bit 7
  // set, which it already is: 2.
  // CHECK: [0.25, 2, 512, 512, 0.000976562, nan, nan, 2]
  call @print(%d32) : (tensor<8xf32>) -> ()
  // bf16 first, then E4M3FN.
  // CHECK: [0.3125, -1.75, 448, 448, 0.00195312, nan, nan, 2.5]
  call @print(%e32) : (tensor<8xf32>) -> ()
  return
}
