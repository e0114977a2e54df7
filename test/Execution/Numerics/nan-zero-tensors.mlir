// NaN and zero tensors: amax under both NaN policies, the ratio rule's
// special cases, quantization of zeros, infinities and NaN.
// REQUIRES: mlir-runner
// RUN: fp8-opt %s --fp8-cpu-pipeline | %cpu_runner | FileCheck %s

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)

func.func @print4(%t: tensor<4xf32>) {
  %m = bufferization.to_buffer %t : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %m : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  // Rows: all NaN; NaN next to 3; all zero; -inf next to 2.
  %x = arith.constant dense<[[0x7FC00000, 0x7FC00000], [0x7FC00000, -3.0],
                             [0.0, -0.0], [0xFF800000, 2.0]]> : tensor<4x2xf32>
  %ignore = fp8.amax %x by <1x*> : tensor<4x2xf32> -> tensor<4x1xf32>
  %propagate = fp8.amax %x by <1x*> nan <propagate> : tensor<4x2xf32> -> tensor<4x1xf32>
  %i1 = tensor.collapse_shape %ignore [[0, 1]] : tensor<4x1xf32> into tensor<4xf32>
  %p1 = tensor.collapse_shape %propagate [[0, 1]] : tensor<4x1xf32> into tensor<4xf32>
  // CHECK: [0, 3, 0, inf]
  call @print4(%i1) : (tensor<4xf32>) -> ()
  // CHECK: [nan, nan, 0, inf]
  call @print4(%p1) : (tensor<4xf32>) -> ()

  // ratio: amax 0, inf and NaN give s = 1; a tiny amax gives FLT_MAX.
  %a = arith.constant dense<[0.0, 0x7F800000, 0x7FC00000, 1.0e-45]> : tensor<4xf32>
  %s = fp8.compute_scale %a rule <ratio> for <e4m3> : tensor<4xf32> -> tensor<4xf32>
  // CHECK: [1, 1, 1, 3.40282e+38]
  call @print4(%s) : (tensor<4xf32>) -> ()

  // Current scaling of the rows: codes of zeros stay (signed) zeros, infinities
  // saturate, NaN stays NaN.
  %q, %sc = fp8.dynamic_quantize %x by <1x*> rule <ratio> : tensor<4x2xf32> -> tensor<4x2xf8E4M3FN>, tensor<4x1xf32>
  %qb = arith.bitcast %q : tensor<4x2xf8E4M3FN> to tensor<4x2xi8>
  %qi = arith.extui %qb : tensor<4x2xi8> to tensor<4x2xi32>
  %qf = tensor.collapse_shape %qi [[0, 1]] : tensor<4x2xi32> into tensor<8xi32>
  %qm = bufferization.to_buffer %qf : tensor<8xi32> to memref<8xi32>
  %qu = memref.cast %qm : memref<8xi32> to memref<*xi32>
  // Row 1: amax 3 -> s = 448/3, -3 -> -448 (0xFE). Row 3: amax inf -> s = 1,
  // -inf -> -448 (0xFE), 2 -> 0x40.
  // CHECK: [127, 127, 127, 254, 0, 128, 254, 64]
  call @printMemrefI32(%qu) : (memref<*xi32>) -> ()
  return
}
