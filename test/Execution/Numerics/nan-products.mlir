// numerics.md section 2: a NaN product takes the element's NaN. Under a NaN
// multiplier (E8M0 scale 0xFF, an f32 scale that is NaN) or as 0 x inf, a
// number's code is the quiet NaN of its sign (a zero of its sign in E2M1); a
// NaN element keeps its sign and E5M2 payload bits whatever the multiplier.
// The GPU kernels pick the same codes (Conversion/FP8ToGPU/quantize-nan-products.mlir).
// REQUIRES: mlir-runner
// RUN: fp8-opt %s --fp8-cpu-pipeline | %cpu_runner | FileCheck %s

func.func private @printMemrefI32(memref<*xi32>)

func.func @print(%t: tensor<8xi8>) {
  %i = arith.extui %t : tensor<8xi8> to tensor<8xi32>
  %m = bufferization.to_buffer %i : tensor<8xi32> to memref<8xi32>
  %u = memref.cast %m : memref<8xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @print4(%t: tensor<8xi4>) {
  %i = arith.extui %t : tensor<8xi4> to tensor<8xi32>
  %m = bufferization.to_buffer %i : tensor<8xi32> to memref<8xi32>
  %u = memref.cast %m : memref<8xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

// The scales are arguments, so that nothing is folded at compile time.
func.func @e8m0(%x: tensor<2x4xf32>, %codes: tensor<2x1xi8>) {
  %s = arith.bitcast %codes : tensor<2x1xi8> to tensor<2x1xf8E8M0FNU>
  %a = fp8.quantize %x, %s by <1x4> : tensor<2x4xf32>, tensor<2x1xf8E8M0FNU> -> tensor<2x4xf8E4M3FN>
  %ab = arith.bitcast %a : tensor<2x4xf8E4M3FN> to tensor<2x4xi8>
  %a1 = tensor.collapse_shape %ab [[0, 1]] : tensor<2x4xi8> into tensor<8xi8>
  call @print(%a1) : (tensor<8xi8>) -> ()
  %b = fp8.quantize %x, %s by <1x4> : tensor<2x4xf32>, tensor<2x1xf8E8M0FNU> -> tensor<2x4xf8E5M2>
  %bb = arith.bitcast %b : tensor<2x4xf8E5M2> to tensor<2x4xi8>
  %b1 = tensor.collapse_shape %bb [[0, 1]] : tensor<2x4xi8> into tensor<8xi8>
  call @print(%b1) : (tensor<8xi8>) -> ()
  %c = fp8.quantize %x, %s by <1x4> overflow <nonfinite> : tensor<2x4xf32>, tensor<2x1xf8E8M0FNU> -> tensor<2x4xf8E5M2>
  %cb = arith.bitcast %c : tensor<2x4xf8E5M2> to tensor<2x4xi8>
  %c1 = tensor.collapse_shape %cb [[0, 1]] : tensor<2x4xi8> into tensor<8xi8>
  call @print(%c1) : (tensor<8xi8>) -> ()
  %d = fp8.quantize %x, %s by <1x4> : tensor<2x4xf32>, tensor<2x1xf8E8M0FNU> -> tensor<2x4xf4E2M1FN>
  %db = arith.bitcast %d : tensor<2x4xf4E2M1FN> to tensor<2x4xi4>
  %d1 = tensor.collapse_shape %db [[0, 1]] : tensor<2x4xi4> into tensor<8xi4>
  call @print4(%d1) : (tensor<8xi4>) -> ()
  return
}

func.func @f32(%x: tensor<2x4xf32>, %s: tensor<2x1xf32>) {
  %a = fp8.quantize %x, %s by <1x4> : tensor<2x4xf32>, tensor<2x1xf32> -> tensor<2x4xf8E4M3FN>
  %ab = arith.bitcast %a : tensor<2x4xf8E4M3FN> to tensor<2x4xi8>
  %a1 = tensor.collapse_shape %ab [[0, 1]] : tensor<2x4xi8> into tensor<8xi8>
  call @print(%a1) : (tensor<8xi8>) -> ()
  %b = fp8.quantize %x, %s by <1x4> : tensor<2x4xf32>, tensor<2x1xf32> -> tensor<2x4xf8E5M2>
  %bb = arith.bitcast %b : tensor<2x4xf8E5M2> to tensor<2x4xi8>
  %b1 = tensor.collapse_shape %bb [[0, 1]] : tensor<2x4xi8> into tensor<8xi8>
  call @print(%b1) : (tensor<8xi8>) -> ()
  return
}

func.func @main() {
  // Row 0 under the NaN scale 0xFF, row 1 under 127 (multiplier 1).
  %x = arith.constant dense<[[-2.0, 2.0, 0x7FE00000, 0xFFC00000],
                             [0x7FE00000, 0xFFA00000, -0.0, 1.0]]> : tensor<2x4xf32>
  %codes = arith.constant dense<[[-1], [127]]> : tensor<2x1xi8>
  // E4M3FN: -2 and 2 give the NaN of their sign; NaNs keep theirs.
  // CHECK: [255, 127, 127, 255, 127, 255, 128, 56]
  // E5M2 (saturate, then nonfinite): 0x7E | the element's payload bits.
  // CHECK: [254, 126, 127, 254, 127, 255, 128, 60]
  // CHECK: [254, 126, 127, 254, 127, 255, 128, 60]
  // E2M1: a zero of the element's sign.
  // CHECK: [8, 0, 0, 8, 0, 8, 8, 2]
  call @e8m0(%x, %codes) : (tensor<2x4xf32>, tensor<2x1xi8>) -> ()

  // Row 0 under an f32 scale that is NaN, row 1 under 0 (0 x inf is NaN).
  %y = arith.constant dense<[[-0.0, 3.0, 0xFF800000, 0x7FE00000],
                             [0x7F800000, 0xFF800000, 1.0, 0xFFC00000]]> : tensor<2x4xf32>
  %s = arith.constant dense<[[0x7FC00000], [0.0]]> : tensor<2x1xf32>
  // CHECK: [255, 127, 255, 127, 127, 255, 0, 255]
  // CHECK: [254, 126, 254, 127, 126, 254, 0, 254]
  call @f32(%y, %s) : (tensor<2x4xf32>, tensor<2x1xf32>) -> ()
  return
}
