// numerics.md section 4: MX block exponents under e8m0_floor and e8m0_rceil,
// the pow2 truncation hazard, and a block of 480s stored under each rule.
// REQUIRES: mlir-runner
// RUN: fp8-opt %s --fp8-cpu-pipeline | %cpu_runner | FileCheck %s

func.func private @printMemrefI32(memref<*xi32>)
func.func private @printMemrefF32(memref<*xf32>)

func.func @print_codes(%t: tensor<10xf8E8M0FNU>) {
  %b = arith.bitcast %t : tensor<10xf8E8M0FNU> to tensor<10xi8>
  %i = arith.extui %b : tensor<10xi8> to tensor<10xi32>
  %m = bufferization.to_buffer %i : tensor<10xi32> to memref<10xi32>
  %u = memref.cast %m : memref<10xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @main() {
  // amax: 448, 448.00003, 449, 480, 511.9, 512, 255.99998, 0, 3e38, +inf
  %amax = arith.constant dense<[448.0, 448.000031, 449.0, 480.0, 511.899994,
      512.0, 255.999985, 0.0, 3.0e38, 0x7F800000]> : tensor<10xf32>
  %floor = fp8.compute_scale %amax rule <e8m0_floor> for <e4m3> : tensor<10xf32> -> tensor<10xf8E8M0FNU>
  %ceil = fp8.compute_scale %amax rule <e8m0_rceil> for <e4m3> : tensor<10xf32> -> tensor<10xf8E8M0FNU>
  // CHECK: [127, 127, 127, 127, 127, 128, 126, 0, 246, 255]
  call @print_codes(%floor) : (tensor<10xf8E8M0FNU>) -> ()
  // CHECK: [127, 128, 128, 128, 128, 128, 127, 0, 247, 254]
  call @print_codes(%ceil) : (tensor<10xf8E8M0FNU>) -> ()

  // pow2 hazard: amax 56.000004 gives s = 448 / 56.000004 = 7.9999995, which
  // truncates to 4 (a float log2 would give 8).
  %hazard = arith.constant dense<56.0000038> : tensor<1x1xf32>
  %p = fp8.compute_scale %hazard rule <pow2> for <e4m3> : tensor<1x1xf32> -> tensor<1x1xf32>
  %pm = bufferization.to_buffer %p : tensor<1x1xf32> to memref<1x1xf32>
  %pu = memref.cast %pm : memref<1x1xf32> to memref<*xf32>
  // CHECK: {{\[\[}}4]]
  call @printMemrefF32(%pu) : (memref<*xf32>) -> ()

  // A block of 32 values equal to 480: floor stores 0x7E (448, clamped) with
  // e = 127; rceil stores 0x77 (240 * 2 = 480, exact) with e = 128.
  %x = arith.constant dense<480.0> : tensor<1x32xf32>
  %qf, %sf = fp8.dynamic_quantize %x by <1x32> rule <e8m0_floor> : tensor<1x32xf32> -> tensor<1x32xf8E4M3FN>, tensor<1x1xf8E8M0FNU>
  %qc, %sc = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil> : tensor<1x32xf32> -> tensor<1x32xf8E4M3FN>, tensor<1x1xf8E8M0FNU>
  %c0 = arith.constant 0 : index
  %qf0 = tensor.extract %qf[%c0, %c0] : tensor<1x32xf8E4M3FN>
  %sf0 = tensor.extract %sf[%c0, %c0] : tensor<1x1xf8E8M0FNU>
  %qc0 = tensor.extract %qc[%c0, %c0] : tensor<1x32xf8E4M3FN>
  %sc0 = tensor.extract %sc[%c0, %c0] : tensor<1x1xf8E8M0FNU>
  %v0 = arith.bitcast %qf0 : f8E4M3FN to i8
  %v1 = arith.bitcast %sf0 : f8E8M0FNU to i8
  %v2 = arith.bitcast %qc0 : f8E4M3FN to i8
  %v3 = arith.bitcast %sc0 : f8E8M0FNU to i8
  %t = tensor.from_elements %v0, %v1, %v2, %v3 : tensor<4xi8>
  %ti = arith.extui %t : tensor<4xi8> to tensor<4xi32>
  %tm = bufferization.to_buffer %ti : tensor<4xi32> to memref<4xi32>
  %tu = memref.cast %tm : memref<4xi32> to memref<*xi32>
  // CHECK: [126, 127, 119, 128]
  call @printMemrefI32(%tu) : (memref<*xi32>) -> ()
  return
}
