// Concatenations read piecewise by their elementwise consumers compute the
// same values as the concatenations themselves: pieces that are slices (one
// rank-reducing), an elementwise op of a slice, a broadcast, inserted out
// of order along columns; and rows swapped in halves (rotary embedding's
// rotate_half along another dimension); and pieces placed in fills, apart,
// with the fill's value between them (a slice's gradient, placed in zeros).
// Both graphs run through
// fp8-cpu-pipeline; the values are pinned, and the two outputs equal.
// REQUIRES: mlir-runner
// RUN: fp8-opt %s --fp8-fuse-elementwise | FileCheck %s --check-prefix=IR
// RUN: fp8-opt %s --fp8-cpu-pipeline | %cpu_runner | sed -e 's/base@ = [0-9a-fx]*//' > %t.unfused
// RUN: fp8-opt %s --fp8-fuse-elementwise --fp8-cpu-pipeline | %cpu_runner | sed -e 's/base@ = [0-9a-fx]*//' > %t.fused
// RUN: FileCheck %s --input-file=%t.fused
// RUN: diff %t.unfused %t.fused

// IR-LABEL: func.func @pieces
// IR-NOT: tensor.{{insert|extract}}_slice
// IR: linalg.generic {{.*}} ins(%arg0, %arg3 :
// IR: tensor.extract %arg0
// IR: tensor.extract %arg1
// IR: tensor.extract %arg2
// IR-NOT: linalg.{{generic|broadcast}}
// IR: return
// IR-LABEL: func.func @rows
// IR-NOT: tensor.{{insert|extract}}_slice
// IR: linalg.generic
// IR-COUNT-2: tensor.extract %arg0
// IR: return
// IR-LABEL: func.func @pads
// IR-NOT: tensor.{{insert|extract}}_slice
// IR-NOT: linalg.fill
// IR: linalg.generic
// IR-COUNT-3: tensor.extract %arg0
// IR: return

// x * [-x[:, 5:8], y[1, :, 1:3], c broadcast] + bias:
// CHECK: rank = 2 offset = 0 sizes = [4, 8]
// CHECK-NEXT: {{\[}}[0,   -5.5,   -13,   304.5,   410,   7.5,   9,   10.5],
// CHECK-NEXT: [-104,   -125.5,   -149,   1222.5,   1346,   28.5,   31,   33.5],
// CHECK-NEXT: [-336,   -373.5,   -413,   2300.5,   2442,   65.5,   69,   72.5],
// CHECK-NEXT: [-696,   -749.5,   -805,   3538.5,   3698,   118.5,   123,   127.5]]
// x + [x[2:4], x[0:2]]:
// CHECK: rank = 2 offset = 0 sizes = [4, 8]
// CHECK-NEXT: {{\[}}[16,   18,   20,   22,   24,   26,   28,   30],
// CHECK-NEXT: [32,   34,   36,   38,   40,   42,   44,   46],
// CHECK-NEXT: [16,   18,   20,   22,   24,   26,   28,   30],
// CHECK-NEXT: [32,   34,   36,   38,   40,   42,   44,   46]]
// [0, 0, x[:, 0:3], 0, 0, 0] + [x[:, 4:6], 1.5, 1.5, 1.5, x[:, 6:8], 1.5]:
// CHECK: rank = 2 offset = 0 sizes = [4, 8]
// CHECK-NEXT: {{\[}}[4,   5,   1.5,   2.5,   3.5,   6,   7,   1.5],
// CHECK-NEXT: [12,   13,   9.5,   10.5,   11.5,   14,   15,   1.5],
// CHECK-NEXT: [20,   21,   17.5,   18.5,   19.5,   22,   23,   1.5],
// CHECK-NEXT: [28,   29,   25.5,   26.5,   27.5,   30,   31,   1.5]]

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

func.func private @printMemrefF32(memref<*xf32>)

func.func @pieces(%x: tensor<4x8xf32>, %y: tensor<2x4x4xf32>,
                  %c: tensor<4xf32>, %bias: tensor<8xf32>)
    -> tensor<4x8xf32> {
  %minus = arith.constant -1.0 : f32
  %s1 = tensor.extract_slice %x[0, 5] [4, 3] [1, 1]
      : tensor<4x8xf32> to tensor<4x3xf32>
  %e3 = tensor.empty() : tensor<4x3xf32>
  %n = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%s1 : tensor<4x3xf32>) outs(%e3 : tensor<4x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.mulf %in, %minus : f32
    linalg.yield %v : f32
  } -> tensor<4x3xf32>
  %s2 = tensor.extract_slice %y[1, 0, 1] [1, 4, 2] [1, 1, 1]
      : tensor<2x4x4xf32> to tensor<4x2xf32>
  %b = linalg.broadcast ins(%c : tensor<4xf32>) outs(%e3 : tensor<4x3xf32>)
      dimensions = [1]
  %e = tensor.empty() : tensor<4x8xf32>
  %i0 = tensor.insert_slice %n into %e[0, 0] [4, 3] [1, 1]
      : tensor<4x3xf32> into tensor<4x8xf32>
  %i1 = tensor.insert_slice %b into %i0[0, 5] [4, 3] [1, 1]
      : tensor<4x3xf32> into tensor<4x8xf32>
  %cat = tensor.insert_slice %s2 into %i1[0, 3] [4, 2] [1, 1]
      : tensor<4x2xf32> into tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #col, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%cat, %x, %bias : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>)
      outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %xv: f32, %bv: f32, %out: f32):
    %p = arith.mulf %a, %xv : f32
    %s = arith.addf %p, %bv : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

func.func @rows(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %top = tensor.extract_slice %x[0, 0] [2, 8] [1, 1]
      : tensor<4x8xf32> to tensor<2x8xf32>
  %bottom = tensor.extract_slice %x[2, 0] [2, 8] [1, 1]
      : tensor<4x8xf32> to tensor<2x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %i0 = tensor.insert_slice %bottom into %e[0, 0] [2, 8] [1, 1]
      : tensor<2x8xf32> into tensor<4x8xf32>
  %cat = tensor.insert_slice %top into %i0[2, 0] [2, 8] [1, 1]
      : tensor<2x8xf32> into tensor<4x8xf32>
  %r = linalg.add ins(%x, %cat : tensor<4x8xf32>, tensor<4x8xf32>)
      outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

func.func @pads(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %other = arith.constant 1.5 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>)
      -> tensor<4x8xf32>
  %o = linalg.fill ins(%other : f32) outs(%e : tensor<4x8xf32>)
      -> tensor<4x8xf32>
  %a = tensor.extract_slice %x[0, 0] [4, 3] [1, 1]
      : tensor<4x8xf32> to tensor<4x3xf32>
  %b = tensor.extract_slice %x[0, 4] [4, 2] [1, 1]
      : tensor<4x8xf32> to tensor<4x2xf32>
  %c = tensor.extract_slice %x[0, 6] [4, 2] [1, 1]
      : tensor<4x8xf32> to tensor<4x2xf32>
  %p0 = tensor.insert_slice %a into %z[0, 2] [4, 3] [1, 1]
      : tensor<4x3xf32> into tensor<4x8xf32>
  %p1a = tensor.insert_slice %b into %o[0, 0] [4, 2] [1, 1]
      : tensor<4x2xf32> into tensor<4x8xf32>
  %p1 = tensor.insert_slice %c into %p1a[0, 5] [4, 2] [1, 1]
      : tensor<4x2xf32> into tensor<4x8xf32>
  %r = linalg.add ins(%p0, %p1 : tensor<4x8xf32>, tensor<4x8xf32>)
      outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

func.func @main() {
  %x = arith.constant dense<[
      [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
      [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0],
      [16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0],
      [24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0]]> : tensor<4x8xf32>
  %y = arith.constant dense<[
      [[0.0, 1.0, 2.0, 3.0], [10.0, 11.0, 12.0, 13.0],
       [20.0, 21.0, 22.0, 23.0], [30.0, 31.0, 32.0, 33.0]],
      [[100.0, 101.0, 102.0, 103.0], [110.0, 111.0, 112.0, 113.0],
       [120.0, 121.0, 122.0, 123.0], [130.0, 131.0, 132.0, 133.0]]]>
      : tensor<2x4x4xf32>
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %bias = arith.constant dense<[0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5]>
      : tensor<8xf32>
  %r = call @pieces(%x, %y, %c, %bias)
      : (tensor<4x8xf32>, tensor<2x4x4xf32>, tensor<4xf32>, tensor<8xf32>)
      -> tensor<4x8xf32>
  %m = bufferization.to_buffer %r : tensor<4x8xf32> to memref<4x8xf32>
  %u = memref.cast %m : memref<4x8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  %w = call @rows(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %mw = bufferization.to_buffer %w : tensor<4x8xf32> to memref<4x8xf32>
  %uw = memref.cast %mw : memref<4x8xf32> to memref<*xf32>
  call @printMemrefF32(%uw) : (memref<*xf32>) -> ()
  %p = call @pads(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %mp = bufferization.to_buffer %p : tensor<4x8xf32> to memref<4x8xf32>
  %up = memref.cast %mp : memref<4x8xf32> to memref<*xf32>
  call @printMemrefF32(%up) : (memref<*xf32>) -> ()
  return
}
