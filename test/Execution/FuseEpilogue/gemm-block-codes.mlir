// Quantizations by blocks of a row of a GEMM's result move into the GEMM:
// its epilogue writes the codes and the block scales, and the result is
// never stored in high precision. The codes and scales are bit-identical to
// the unfused graph's: MXFP8's 1x32 E8M0 blocks after a bias and a ReLU on
// a bf16 product, and DeepSeek's 1x128 pow2 blocks of an f32 product whose
// last block is ragged (192 columns) and whose third row is zero (blocks of
// a zero amax: A's third row is zero).
// Both graphs run through fp8-cpu-pipeline and print their results as
// integers.
// REQUIRES: mlir-runner
// RUN: fp8-opt %s --fp8-fuse-elementwise --fp8-fuse-epilogue | FileCheck %s --check-prefix=IR
// RUN: fp8-opt %s --fp8-fuse-elementwise --fp8-cpu-pipeline | %cpu_runner | sed -e 's/base@ = [0-9a-fx]*//' > %t.unfused
// RUN: fp8-opt %s --fp8-fuse-elementwise --fp8-fuse-epilogue --fp8-cpu-pipeline | %cpu_runner | sed -e 's/base@ = [0-9a-fx]*//' > %t.fused
// RUN: FileCheck %s --input-file=%t.fused
// RUN: diff %t.unfused %t.fused

// IR-LABEL: func.func @layer
// IR: fp8.scaled_matmul {{.*}} quantize by <1x32> rule <e8m0_rceil>
// IR-SAME: -> tensor<4x160xf8E4M3FN>, scale tensor<4x5xf8E8M0FNU> epilogue {
// IR: arith.maximumf
// IR: fp8.yield
// IR: fp8.scaled_matmul {{.*}} quantize by <1x128> rule <pow2>
// IR-SAME: -> tensor<4x192xf8E4M3FN>, scale tensor<4x2xf32> epilogue {
// IR-NEXT: ^bb0(%[[P:.*]]: f32):
// IR-NEXT: fp8.yield %[[P]] : f32
// IR-NOT: fp8.dynamic_quantize
// IR: return

// Codes and scales of both quantizations.
// CHECK: rank = 2 offset = 0 sizes = [4, 160]
// CHECK: rank = 2 offset = 0 sizes = [4, 5]
// CHECK: rank = 2 offset = 0 sizes = [4, 192]
// CHECK: rank = 2 offset = 0 sizes = [4, 2]

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func private @printMemrefI32(memref<*xi32>)

func.func @layer(%x: tensor<4x64xf32>, %w1: tensor<160x64xf32>,
                 %w2: tensor<192x64xf32>, %bias: tensor<160xbf16>)
    -> (tensor<4x160xf8E4M3FN>, tensor<4x5xf8E8M0FNU>,
        tensor<4x192xf8E4M3FN>, tensor<4x2xf32>) {
  %zero = arith.constant 0.0 : bf16
  %qx, %sx = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil>
      : tensor<4x64xf32> -> tensor<4x64xf8E4M3FN>, tensor<4x2xf8E8M0FNU>
  %qw, %sw = fp8.dynamic_quantize %w1 by <1x32> rule <e8m0_rceil>
      : tensor<160x64xf32> -> tensor<160x64xf8E4M3FN>, tensor<160x2xf8E8M0FNU>
  // MXFP8: a bf16 product, bias and ReLU, 1x32 E8M0 blocks.
  %p1 = fp8.scaled_matmul %qx, %qw scales(%sx, %sw) by(<1x32>, <1x32>)
      transpose_rhs : tensor<4x64xf8E4M3FN>, tensor<160x64xf8E4M3FN>,
      tensor<4x2xf8E8M0FNU>, tensor<160x2xf8E8M0FNU> -> tensor<4x160xbf16>
  %e = tensor.empty() : tensor<4x160xbf16>
  %h = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d1)>,
                                        #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%p1, %bias : tensor<4x160xbf16>, tensor<160xbf16>)
      outs(%e : tensor<4x160xbf16>) {
  ^bb0(%in: bf16, %b: bf16, %out: bf16):
    %s = arith.addf %in, %b : bf16
    %r = arith.maximumf %s, %zero : bf16
    linalg.yield %r : bf16
  } -> tensor<4x160xbf16>
  %q1, %s1 = fp8.dynamic_quantize %h by <1x32> rule <e8m0_rceil>
      : tensor<4x160xbf16> -> tensor<4x160xf8E4M3FN>, tensor<4x5xf8E8M0FNU>
  // DeepSeek: an f32 product, 1x128 pow2 blocks, the last one ragged.
  %tx, %tsx = fp8.dynamic_quantize %x by <1x128> rule <pow2>
      : tensor<4x64xf32> -> tensor<4x64xf8E4M3FN>, tensor<4x1xf32>
  %tw, %tsw = fp8.dynamic_quantize %w2 by <128x128> rule <pow2>
      : tensor<192x64xf32> -> tensor<192x64xf8E4M3FN>, tensor<2x1xf32>
  %p2 = fp8.scaled_matmul %tx, %tw scales(%tsx, %tsw) by(<1x128>, <128x128>)
      transpose_rhs : tensor<4x64xf8E4M3FN>, tensor<192x64xf8E4M3FN>,
      tensor<4x1xf32>, tensor<2x1xf32> -> tensor<4x192xf32>
  %q2, %s2 = fp8.dynamic_quantize %p2 by <1x128> rule <pow2>
      : tensor<4x192xf32> -> tensor<4x192xf8E4M3FN>, tensor<4x2xf32>
  return %q1, %s1, %q2, %s2
      : tensor<4x160xf8E4M3FN>, tensor<4x5xf8E8M0FNU>, tensor<4x192xf8E4M3FN>,
        tensor<4x2xf32>
}

// Deterministic inputs from the indices; row `zeroRow` (if in range) is 0.
func.func @pattern(%rows: index, %cols: index, %a: f32, %b: f32, %amp: f32,
                   %zeroRow: index) -> tensor<?x?xf32> {
  %t = tensor.generate %rows, %cols {
  ^bb0(%i: index, %j: index):
    %ii = arith.index_cast %i : index to i32
    %jj = arith.index_cast %j : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %fj = arith.sitofp %jj : i32 to f32
    %u = arith.mulf %fi, %a : f32
    %v = arith.mulf %fj, %b : f32
    %s = arith.addf %u, %v : f32
    %sin = math.sin %s : f32
    %y = arith.mulf %sin, %amp : f32
    %isZero = arith.cmpi eq, %i, %zeroRow : index
    %c0 = arith.constant 0.0 : f32
    %r = arith.select %isZero, %c0, %y : f32
    tensor.yield %r : f32
  } : tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}

func.func @printBits(%y: tensor<?x?xi32>) {
  %m = bufferization.to_buffer %y : tensor<?x?xi32> to memref<?x?xi32>
  %u = memref.cast %m : memref<?x?xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @bitsF32(%y: tensor<?x?xf32>) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tensor.dim %y, %c0 : tensor<?x?xf32>
  %c = tensor.dim %y, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%r, %c) : tensor<?x?xi32>
  %bits = linalg.generic {indexing_maps = [#id, #id],
                          iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x?xf32>) outs(%e : tensor<?x?xi32>) {
  ^bb0(%in: f32, %out: i32):
    %b = arith.bitcast %in : f32 to i32
    linalg.yield %b : i32
  } -> tensor<?x?xi32>
  return %bits : tensor<?x?xi32>
}

func.func @bitsE4M3(%q: tensor<?x?xf8E4M3FN>) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tensor.dim %q, %c0 : tensor<?x?xf8E4M3FN>
  %c = tensor.dim %q, %c1 : tensor<?x?xf8E4M3FN>
  %e = tensor.empty(%r, %c) : tensor<?x?xi32>
  %bits = linalg.generic {indexing_maps = [#id, #id],
                          iterator_types = ["parallel", "parallel"]}
      ins(%q : tensor<?x?xf8E4M3FN>) outs(%e : tensor<?x?xi32>) {
  ^bb0(%in: f8E4M3FN, %out: i32):
    %b = arith.bitcast %in : f8E4M3FN to i8
    %w = arith.extui %b : i8 to i32
    linalg.yield %w : i32
  } -> tensor<?x?xi32>
  return %bits : tensor<?x?xi32>
}

func.func @bitsE8M0(%q: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tensor.dim %q, %c0 : tensor<?x?xf8E8M0FNU>
  %c = tensor.dim %q, %c1 : tensor<?x?xf8E8M0FNU>
  %e = tensor.empty(%r, %c) : tensor<?x?xi32>
  %bits = linalg.generic {indexing_maps = [#id, #id],
                          iterator_types = ["parallel", "parallel"]}
      ins(%q : tensor<?x?xf8E8M0FNU>) outs(%e : tensor<?x?xi32>) {
  ^bb0(%in: f8E8M0FNU, %out: i32):
    %b = arith.bitcast %in : f8E8M0FNU to i8
    %w = arith.extui %b : i8 to i32
    linalg.yield %w : i32
  } -> tensor<?x?xi32>
  return %bits : tensor<?x?xi32>
}

func.func @main() {
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c160 = arith.constant 160 : index
  %c192 = arith.constant 192 : index
  %none = arith.constant 1000 : index
  %row2 = arith.constant 2 : index
  %f037 = arith.constant 0.37 : f32
  %f011 = arith.constant 0.11 : f32
  %f3 = arith.constant 3.0 : f32
  %f013 = arith.constant 0.13 : f32
  %f029 = arith.constant 0.29 : f32
  %f05 = arith.constant 0.5 : f32
  %f007 = arith.constant 0.07 : f32
  %xd = call @pattern(%c4, %c64, %f037, %f011, %f3, %row2)
      : (index, index, f32, f32, f32, index) -> tensor<?x?xf32>
  %w1d = call @pattern(%c160, %c64, %f013, %f029, %f05, %none)
      : (index, index, f32, f32, f32, index) -> tensor<?x?xf32>
  %w2d = call @pattern(%c192, %c64, %f029, %f007, %f3, %none)
      : (index, index, f32, f32, f32, index) -> tensor<?x?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<4x64xf32>
  %w1 = tensor.cast %w1d : tensor<?x?xf32> to tensor<160x64xf32>
  %w2 = tensor.cast %w2d : tensor<?x?xf32> to tensor<192x64xf32>
  %bias = tensor.generate {
  ^bb0(%j: index):
    %jj = arith.index_cast %j : index to i32
    %fj = arith.sitofp %jj : i32 to f32
    %s = arith.mulf %fj, %f011 : f32
    %c = math.cos %s : f32
    %b = arith.truncf %c : f32 to bf16
    tensor.yield %b : bf16
  } : tensor<160xbf16>
  %q1, %s1, %q2, %s2 = call @layer(%x, %w1, %w2, %bias)
      : (tensor<4x64xf32>, tensor<160x64xf32>, tensor<192x64xf32>,
         tensor<160xbf16>)
      -> (tensor<4x160xf8E4M3FN>, tensor<4x5xf8E8M0FNU>,
          tensor<4x192xf8E4M3FN>, tensor<4x2xf32>)
  %q1d = tensor.cast %q1 : tensor<4x160xf8E4M3FN> to tensor<?x?xf8E4M3FN>
  %s1d = tensor.cast %s1 : tensor<4x5xf8E8M0FNU> to tensor<?x?xf8E8M0FNU>
  %q2d = tensor.cast %q2 : tensor<4x192xf8E4M3FN> to tensor<?x?xf8E4M3FN>
  %s2d = tensor.cast %s2 : tensor<4x2xf32> to tensor<?x?xf32>
  %b1 = call @bitsE4M3(%q1d) : (tensor<?x?xf8E4M3FN>) -> tensor<?x?xi32>
  call @printBits(%b1) : (tensor<?x?xi32>) -> ()
  %b2 = call @bitsE8M0(%s1d) : (tensor<?x?xf8E8M0FNU>) -> tensor<?x?xi32>
  call @printBits(%b2) : (tensor<?x?xi32>) -> ()
  %b3 = call @bitsE4M3(%q2d) : (tensor<?x?xf8E4M3FN>) -> tensor<?x?xi32>
  call @printBits(%b3) : (tensor<?x?xi32>) -> ()
  %b4 = call @bitsF32(%s2d) : (tensor<?x?xf32>) -> tensor<?x?xi32>
  call @printBits(%b4) : (tensor<?x?xi32>) -> ()
  return
}
