// The range-expansion vectors of numerics.md section 14, run on the CPU.
// REQUIRES: mlir-runner
// RUN: fp8-opt %s --fp8-cpu-pipeline | %cpu_runner | FileCheck %s

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)

func.func @print_codes(%q: tensor<?x4xi8>) {
  %wide = arith.extui %q : tensor<?x4xi8> to tensor<?x4xi32>
  %m = bufferization.to_buffer %wide : tensor<?x4xi32> to memref<?x4xi32>
  %u = memref.cast %m : memref<?x4xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @print_exponents(%j: tensor<?x1xi8>) {
  %wide = arith.extsi %j : tensor<?x1xi8> to tensor<?x1xi32>
  %m = bufferization.to_buffer %wide : tensor<?x1xi32> to memref<?x1xi32>
  %u = memref.cast %m : memref<?x1xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @print_values(%y: tensor<?x4xf32>) {
  %m = bufferization.to_buffer %y : tensor<?x4xf32> to memref<?x4xf32>
  %u = memref.cast %m : memref<?x4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %x = arith.constant dense<[[1.0, 0.5, 0.25, 0.125],
                             [1.0e-5, 7.0e-6, 3.0e-6, 1.2e-6],
                             [1.0, -1.0e-6, 0.5, 0.0],
                             [2.0, -2.0, 2.0, 2.0],
                             [1.0, 0x7F800000, 0xFF800000, 0x7FC00000],
                             [0.0, -0.0, 0x7F800000, 0.0]]> : tensor<6x4xf32>
  %q, %a, %j = fp8.expand_quantize %x by <1x4>
      : tensor<6x4xf32> -> tensor<6x4xf8E4M3FN>, tensor<6x1xf32>, tensor<6x1xi8>
  %y = fp8.expand_dequantize %q, %a, %j by <1x4>
      : tensor<6x4xf8E4M3FN>, tensor<6x1xf32>, tensor<6x1xi8> -> tensor<6x4xf32>
  %qi = arith.bitcast %q : tensor<6x4xf8E4M3FN> to tensor<6x4xi8>
  %qd = tensor.cast %qi : tensor<6x4xi8> to tensor<?x4xi8>
  %jd = tensor.cast %j : tensor<6x1xi8> to tensor<?x1xi8>
  %yd = tensor.cast %y : tensor<6x4xf32> to tensor<?x4xf32>
  // CHECK:      [126,   94,   62,   30]
  // CHECK-NEXT: [126,   109,   71,   28]
  // CHECK-NEXT: [126,   174,   122,   0]
  // CHECK-NEXT: [126,   254,   126,   126]
  // CHECK-NEXT: [126,   126,   254,   127]
  // CHECK-NEXT: [0,   128,   126,   0]
  call @print_codes(%qd) : (tensor<?x4xi8>) -> ()
  // CHECK:      [2]
  // CHECK-NEXT: [2]
  // CHECK-NEXT: [-1]
  // CHECK-NEXT: [5]
  // CHECK-NEXT: [5]
  // CHECK-NEXT: [0]
  call @print_exponents(%jd) : (tensor<?x1xi8>) -> ()
  // CHECK:      [1,   0.5,   0.25,   0.125]
  // CHECK-NEXT: [1e-05,   6.94127e-06,   3.02474e-06,   1.20274e-06]
  // CHECK-NEXT: [1,   -9.53674e-07,   0.510204,   0]
  // CHECK-NEXT: [2,   -2,   2,   2]
  // CHECK-NEXT: [1,   1,   -1,   nan]
  // CHECK-NEXT: [0,   -0,   0,   0]
  call @print_values(%yd) : (tensor<?x4xf32>) -> ()

  // Expansion off: plain per-group scaling.
  %m = tensor.extract_slice %x[0, 0] [2, 4] [1, 1] : tensor<6x4xf32> to tensor<2x4xf32>
  %q0, %a0, %j0 = fp8.expand_quantize %m by <1x4> limit(0)
      : tensor<2x4xf32> -> tensor<2x4xf8E4M3FN>, tensor<2x1xf32>, tensor<2x1xi8>
  %q0i = arith.bitcast %q0 : tensor<2x4xf8E4M3FN> to tensor<2x4xi8>
  %q0d = tensor.cast %q0i : tensor<2x4xi8> to tensor<?x4xi8>
  // CHECK:      [126,   118,   110,   102]
  // CHECK-NEXT: [126,   122,   112,   101]
  call @print_codes(%q0d) : (tensor<?x4xi8>) -> ()

  // E5M2 expands the moment one step further.
  %v = tensor.extract_slice %x[1, 0] [1, 4] [1, 1] : tensor<6x4xf32> to tensor<1x4xf32>
  %q5, %a5, %j5 = fp8.expand_quantize %v by <1x4>
      : tensor<1x4xf32> -> tensor<1x4xf8E5M2>, tensor<1x1xf32>, tensor<1x1xi8>
  %q5i = arith.bitcast %q5 : tensor<1x4xf8E5M2> to tensor<1x4xi8>
  %q5d = tensor.cast %q5i : tensor<1x4xi8> to tensor<?x4xi8>
  %j5d = tensor.cast %j5 : tensor<1x1xi8> to tensor<?x1xi8>
  // CHECK:      [123,   106,   68,   25]
  call @print_codes(%q5d) : (tensor<?x4xi8>) -> ()
  // CHECK:      [3]
  call @print_exponents(%j5d) : (tensor<?x1xi8>) -> ()
  return
}
