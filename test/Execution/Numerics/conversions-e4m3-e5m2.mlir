// numerics.md section 2, E4M3FN and E5M2 vectors, in both overflow modes of
// fp8.convert and through arith.truncf (APFloat meaning: nonfinite).
// REQUIRES: mlir-runner
// RUN: fp8-opt %s --fp8-cpu-pipeline | %cpu_runner | FileCheck %s

func.func private @printMemrefI32(memref<*xi32>)

func.func @print_e4m3(%t: tensor<19xf8E4M3FN>) {
  %b = arith.bitcast %t : tensor<19xf8E4M3FN> to tensor<19xi8>
  %i = arith.extui %b : tensor<19xi8> to tensor<19xi32>
  %m = bufferization.to_buffer %i : tensor<19xi32> to memref<19xi32>
  %u = memref.cast %m : memref<19xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @print_e5m2(%t: tensor<9xf8E5M2>) {
  %b = arith.bitcast %t : tensor<9xf8E5M2> to tensor<9xi8>
  %i = arith.extui %b : tensor<9xi8> to tensor<9xi32>
  %m = bufferization.to_buffer %i : tensor<9xi32> to memref<9xi32>
  %u = memref.cast %m : memref<9xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @main() {
  // 0, -0, 2^-10, 1.5*2^-10, 2^-6, 1, 1.0625, 1.1875, 240, 448, 449, 464,
  // 464.0001, 465, 480, 1e6, +inf, -500, -inf
  %x = arith.constant dense<[0.0, -0.0, 9.765625e-04, 1.46484375e-03, 1.5625e-02,
      1.0, 1.0625, 1.1875, 240.0, 448.0, 449.0, 464.0, 464.0001, 465.0, 480.0,
      1.0e6, 0x7F800000, -500.0, 0xFF800000]> : tensor<19xf32>
  %sat = fp8.convert %x : tensor<19xf32> to tensor<19xf8E4M3FN>
  %nf = fp8.convert %x overflow <nonfinite> : tensor<19xf32> to tensor<19xf8E4M3FN>
  %ap = arith.truncf %x : tensor<19xf32> to tensor<19xf8E4M3FN>
  // 0x00 0x80 0x00 0x01 0x08 0x38 0x38 0x3A 0x77 0x7E 0x7E 0x7E | 0x7E... 0xFE 0xFE
  // CHECK: [0, 128, 0, 1, 8, 56, 56, 58, 119, 126, 126, 126, 126, 126, 126, 126, 126, 254, 254]
  call @print_e4m3(%sat) : (tensor<19xf8E4M3FN>) -> ()
  // CHECK: [0, 128, 0, 1, 8, 56, 56, 58, 119, 126, 126, 126, 127, 127, 127, 127, 127, 255, 255]
  call @print_e4m3(%nf) : (tensor<19xf8E4M3FN>) -> ()
  // CHECK: [0, 128, 0, 1, 8, 56, 56, 58, 119, 126, 126, 126, 127, 127, 127, 127, 127, 255, 255]
  call @print_e4m3(%ap) : (tensor<19xf8E4M3FN>) -> ()

  // 2^-16, 2^-17, 1.125, 1.375, 57344, 61439, 61440, 65536, +inf
  %y = arith.constant dense<[1.52587890625e-05, 7.62939453125e-06, 1.125, 1.375,
      57344.0, 61439.0, 61440.0, 65536.0, 0x7F800000]> : tensor<9xf32>
  %ysat = fp8.convert %y : tensor<9xf32> to tensor<9xf8E5M2>
  %ynf = fp8.convert %y overflow <nonfinite> : tensor<9xf32> to tensor<9xf8E5M2>
  // 0x01 0x00 0x3C 0x3E 0x7B 0x7B | 0x7B 0x7B 0x7B (saturate) / 0x7C (nonfinite)
  // CHECK: [1, 0, 60, 62, 123, 123, 123, 123, 123]
  call @print_e5m2(%ysat) : (tensor<9xf8E5M2>) -> ()
  // CHECK: [1, 0, 60, 62, 123, 123, 124, 124, 124]
  call @print_e5m2(%ynf) : (tensor<9xf8E5M2>) -> ()
  return
}
