// numerics.md section 2: E2M1 (RNE, finite) and the three E8M0 roundings.
// REQUIRES: mlir-runner
// RUN: fp8-opt %s --fp8-cpu-pipeline | %cpu_runner | FileCheck %s

func.func private @printMemrefI32(memref<*xi32>)

func.func @main() {
  %x = arith.constant dense<[0.25, 0.26, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 5.01, 7.0, -0.25]> : tensor<11xf32>
  %q = fp8.convert %x : tensor<11xf32> to tensor<11xf4E2M1FN>
  %qb = arith.bitcast %q : tensor<11xf4E2M1FN> to tensor<11xi4>
  %qi = arith.extui %qb : tensor<11xi4> to tensor<11xi32>
  %qm = bufferization.to_buffer %qi : tensor<11xi32> to memref<11xi32>
  %qu = memref.cast %qm : memref<11xi32> to memref<*xi32>
  // 0x0 0x1 0x2 0x2 0x4 0x4 0x6 0x6 0x7 0x7 0x8
  // CHECK: [0, 1, 2, 2, 4, 4, 6, 6, 7, 7, 8]
  call @printMemrefI32(%qu) : (memref<*xi32>) -> ()

  // 1.0, 1.4999999, 1.5, 3.0, 2^-127, 1.5*2^127, +inf, NaN
  %v = arith.constant dense<[1.0, 1.49999988, 1.5, 3.0, 0x00400000, 0x7F400000,
      0x7F800000, 0x7FC00000]> : tensor<8xf32>
  %ceil = fp8.convert %v rounding <rceil> : tensor<8xf32> to tensor<8xf8E8M0FNU>
  %rne = fp8.convert %v overflow <nonfinite> : tensor<8xf32> to tensor<8xf8E8M0FNU>
  %floor = fp8.convert %v rounding <floor> overflow <nonfinite> : tensor<8xf32> to tensor<8xf8E8M0FNU>
  %all = tensor.concat dim(0) %ceil, %rne, %floor : (tensor<8xf8E8M0FNU>, tensor<8xf8E8M0FNU>, tensor<8xf8E8M0FNU>) -> tensor<24xf8E8M0FNU>
  %b = arith.bitcast %all : tensor<24xf8E8M0FNU> to tensor<24xi8>
  %i = arith.extui %b : tensor<24xi8> to tensor<24xi32>
  %m = bufferization.to_buffer %i : tensor<24xi32> to memref<24xi32>
  %u = memref.cast %m : memref<24xi32> to memref<*xi32>
  // rceil:  127 128 128 129 0 254 254 255
  // rne:    127 127 128 129 0 255 255 255
  // floor:  127 127 127 128 0 254 255 255
  // CHECK: [127, 128, 128, 129, 0, 254, 254, 255, 127, 127, 128, 129, 0, 255, 255, 255, 127, 127, 127, 128, 0, 254, 255, 255]
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}
