// The elementwise chains after two GEMMs, fused into the GEMMs' epilogues,
// compute every output bit as the unfused chains do: bias + GELU (tanh form)
// after an f32 product, and a residual add and a column scaling after a
// product rounded to bf16. The per-tensor quantization of the GELU's result
// takes its amax from the first GEMM's epilogue, with the same codes and
// scale; so does the row-wise quantization of the second result, from the
// amax of each row; a third GEMM writes e5m2 codes by a given scale and
// their amax from its epilogue, as the quantization and the amax did. Both graphs run through fp8-cpu-pipeline and print their results
// as integers.
// REQUIRES: mlir-runner
// RUN: fp8-opt %s --fp8-fuse-elementwise --fp8-fuse-epilogue | FileCheck %s --check-prefix=IR
// RUN: fp8-opt %s --fp8-fuse-elementwise --fp8-cpu-pipeline | %cpu_runner | sed -e 's/base@ = [0-9a-fx]*//' > %t.unfused
// RUN: fp8-opt %s --fp8-fuse-elementwise --fp8-fuse-epilogue --fp8-cpu-pipeline | %cpu_runner | sed -e 's/base@ = [0-9a-fx]*//' > %t.fused
// RUN: FileCheck %s --input-file=%t.fused
// RUN: diff %t.unfused %t.fused

// IR-LABEL: func.func @layer
// IR: fp8.scaled_matmul {{.*}} epilogue_ins({{.*}} : tensor<16xf32>)
// IR-SAME: amax tensor<1x1xf32>
// IR: math.tanh
// IR: fp8.yield
// IR: fp8.scaled_matmul {{.*}} epilogue_ins({{.*}} : tensor<4x16xbf16>, tensor<4xf32>)
// IR-SAME: epilogue_maps([#[[ID:.*]], #[[COL:.*]]])
// IR-SAME: amax tensor<4x1xf32>
// IR: ^bb0(%{{.*}}: bf16, %{{.*}}: bf16, %{{.*}}: f32):
// IR-NOT: linalg.
// IR: fp8.compute_scale
// IR: fp8.quantize
// IR: fp8.scaled_matmul {{.*}} out_scale(%{{.*}} : tensor<1x1xf32>)
// IR-SAME: -> tensor<4x16xf8E5M2>, amax tensor<1x1xf32> epilogue {
// IR-NOT: fp8.amax
// IR: return

// The bits of 4x16 results, twice, the codes of the first and its scale,
// the codes of the second and its row scales, the third GEMM's codes and
// amax.
// CHECK-COUNT-3: rank = 2 offset = 0 sizes = [4, 16]
// CHECK: rank = 2 offset = 0 sizes = [1, 1]
// CHECK: rank = 2 offset = 0 sizes = [4, 16]
// CHECK: rank = 2 offset = 0 sizes = [4, 1]
// CHECK: rank = 2 offset = 0 sizes = [4, 16]
// CHECK: rank = 2 offset = 0 sizes = [1, 1]

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#col = affine_map<(d0, d1) -> (d0)>

func.func private @printMemrefI32(memref<*xi32>)

func.func @layer(%x: tensor<4x64xf32>, %w: tensor<16x64xf32>,
                 %bias: tensor<16xf32>, %res: tensor<4x16xbf16>,
                 %colScale: tensor<4xf32>)
    -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf8E4M3FN>,
        tensor<1x1xf32>, tensor<4x16xf8E4M3FN>, tensor<4x1xf32>,
        tensor<4x16xf8E5M2>, tensor<1x1xf32>) {
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0.7978845608 : f32
  %c1 = arith.constant 0.044715 : f32
  %qx, %sx = fp8.dynamic_quantize %x by <tensor> rule <ratio>
      : tensor<4x64xf32> -> tensor<4x64xf8E4M3FN>, tensor<1x1xf32>
  %qw, %sw = fp8.dynamic_quantize %w by <1x64> rule <ratio>
      : tensor<16x64xf32> -> tensor<16x64xf8E4M3FN>, tensor<16x1xf32>
  // fc1: f32 product, bias, GELU.
  %p1 = fp8.scaled_matmul %qx, %qw scales(%sx, %sw) by(<tensor>, <1x64>)
      transpose_rhs : tensor<4x64xf8E4M3FN>, tensor<16x64xf8E4M3FN>,
      tensor<1x1xf32>, tensor<16x1xf32> -> tensor<4x16xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %b = linalg.broadcast ins(%bias : tensor<16xf32>) outs(%e : tensor<4x16xf32>)
      dimensions = [0]
  %h = linalg.add ins(%p1, %b : tensor<4x16xf32>, tensor<4x16xf32>)
      outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %g = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x2 = arith.mulf %in, %in : f32
    %x3 = arith.mulf %x2, %in : f32
    %t0 = arith.mulf %x3, %c1 : f32
    %t1 = arith.addf %in, %t0 : f32
    %t2 = arith.mulf %t1, %c0 : f32
    %t3 = math.tanh %t2 : f32
    %t4 = arith.addf %t3, %one : f32
    %t5 = arith.mulf %in, %t4 : f32
    %y = arith.mulf %t5, %half : f32
    linalg.yield %y : f32
  } -> tensor<4x16xf32>
  // fc2: a bf16 product, a residual add in bf16, a per-row scaling in f32.
  %p2 = fp8.scaled_matmul %qx, %qw scales(%sx, %sw) by(<tensor>, <1x64>)
      transpose_rhs : tensor<4x64xf8E4M3FN>, tensor<16x64xf8E4M3FN>,
      tensor<1x1xf32>, tensor<16x1xf32> -> tensor<4x16xbf16>
  %eb = tensor.empty() : tensor<4x16xbf16>
  %r = linalg.add ins(%p2, %res : tensor<4x16xbf16>, tensor<4x16xbf16>)
      outs(%eb : tensor<4x16xbf16>) -> tensor<4x16xbf16>
  %o = linalg.generic {indexing_maps = [#id, #col, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%r, %colScale : tensor<4x16xbf16>, tensor<4xf32>)
      outs(%e : tensor<4x16xf32>) {
  ^bb0(%in: bf16, %s: f32, %out: f32):
    %wide = arith.extf %in : bf16 to f32
    %y = arith.mulf %wide, %s : f32
    linalg.yield %y : f32
  } -> tensor<4x16xf32>
  %q, %qs = fp8.dynamic_quantize %g by <tensor> rule <ratio>
      : tensor<4x16xf32> -> tensor<4x16xf8E4M3FN>, tensor<1x1xf32>
  // fc3: codes by a given (delayed) scale and the amax of the values.
  %p3 = fp8.scaled_matmul %qx, %qw scales(%sx, %sw) by(<tensor>, <1x64>)
      transpose_rhs : tensor<4x64xf8E4M3FN>, tensor<16x64xf8E4M3FN>,
      tensor<1x1xf32>, tensor<16x1xf32> -> tensor<4x16xbf16>
  %enc = arith.constant dense<7.5> : tensor<1x1xf32>
  %c3 = fp8.quantize %p3, %enc by <tensor>
      : tensor<4x16xbf16>, tensor<1x1xf32> -> tensor<4x16xf8E5M2>
  %a3 = fp8.amax %p3 by <tensor> : tensor<4x16xbf16> -> tensor<1x1xf32>
  %qo, %qos = fp8.dynamic_quantize %o by <1x*> rule <pow2>
      : tensor<4x16xf32> -> tensor<4x16xf8E4M3FN>, tensor<4x1xf32>
  return %g, %o, %q, %qs, %qo, %qos, %c3, %a3
      : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf8E4M3FN>,
        tensor<1x1xf32>, tensor<4x16xf8E4M3FN>, tensor<4x1xf32>,
        tensor<4x16xf8E5M2>, tensor<1x1xf32>
}

// Deterministic inputs from the indices.
func.func @pattern(%rows: index, %cols: index, %a: f32, %b: f32, %amp: f32)
    -> tensor<?x?xf32> {
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
    tensor.yield %y : f32
  } : tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}

func.func @print(%y: tensor<4x16xf32>) {
  %ei = tensor.empty() : tensor<4x16xi32>
  %bits = linalg.generic {indexing_maps = [#id, #id],
                          iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<4x16xf32>) outs(%ei : tensor<4x16xi32>) {
  ^bb0(%in: f32, %out: i32):
    %b = arith.bitcast %in : f32 to i32
    linalg.yield %b : i32
  } -> tensor<4x16xi32>
  %m = bufferization.to_buffer %bits : tensor<4x16xi32> to memref<4x16xi32>
  %u = memref.cast %m : memref<4x16xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

// The codes' bits as integers.
func.func @printCodes(%q: tensor<4x16xf8E4M3FN>) {
  %ec = tensor.empty() : tensor<4x16xf32>
  %codes = linalg.generic {indexing_maps = [#id, #id],
                           iterator_types = ["parallel", "parallel"]}
      ins(%q : tensor<4x16xf8E4M3FN>) outs(%ec : tensor<4x16xf32>) {
  ^bb0(%in: f8E4M3FN, %out: f32):
    %b = arith.bitcast %in : f8E4M3FN to i8
    %w32 = arith.extui %b : i8 to i32
    %f = arith.bitcast %w32 : i32 to f32
    linalg.yield %f : f32
  } -> tensor<4x16xf32>
  call @print(%codes) : (tensor<4x16xf32>) -> ()
  return
}

func.func @printCodes5(%q: tensor<4x16xf8E5M2>) {
  %ec = tensor.empty() : tensor<4x16xf32>
  %codes = linalg.generic {indexing_maps = [#id, #id],
                           iterator_types = ["parallel", "parallel"]}
      ins(%q : tensor<4x16xf8E5M2>) outs(%ec : tensor<4x16xf32>) {
  ^bb0(%in: f8E5M2, %out: f32):
    %b = arith.bitcast %in : f8E5M2 to i8
    %w32 = arith.extui %b : i8 to i32
    %f = arith.bitcast %w32 : i32 to f32
    linalg.yield %f : f32
  } -> tensor<4x16xf32>
  call @print(%codes) : (tensor<4x16xf32>) -> ()
  return
}

// The bits of a single f32.
func.func @printScalar(%s: tensor<1x1xf32>) {
  %es = tensor.empty() : tensor<1x1xi32>
  %sbits = linalg.generic {indexing_maps = [#id, #id],
                           iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<1x1xf32>) outs(%es : tensor<1x1xi32>) {
  ^bb0(%in: f32, %out: i32):
    %b = arith.bitcast %in : f32 to i32
    linalg.yield %b : i32
  } -> tensor<1x1xi32>
  %sm = bufferization.to_buffer %sbits : tensor<1x1xi32> to memref<1x1xi32>
  %si = memref.cast %sm : memref<1x1xi32> to memref<*xi32>
  call @printMemrefI32(%si) : (memref<*xi32>) -> ()
  return
}

// The bits of a column of f32.
func.func @printRows(%s: tensor<4x1xf32>) {
  %es = tensor.empty() : tensor<4x1xi32>
  %sbits = linalg.generic {indexing_maps = [#id, #id],
                           iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<4x1xf32>) outs(%es : tensor<4x1xi32>) {
  ^bb0(%in: f32, %out: i32):
    %b = arith.bitcast %in : f32 to i32
    linalg.yield %b : i32
  } -> tensor<4x1xi32>
  %sm = bufferization.to_buffer %sbits : tensor<4x1xi32> to memref<4x1xi32>
  %si = memref.cast %sm : memref<4x1xi32> to memref<*xi32>
  call @printMemrefI32(%si) : (memref<*xi32>) -> ()
  return
}

func.func @main() {
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %f037 = arith.constant 0.37 : f32
  %f011 = arith.constant 0.11 : f32
  %f3 = arith.constant 3.0 : f32
  %f013 = arith.constant 0.13 : f32
  %f029 = arith.constant 0.29 : f32
  %f05 = arith.constant 0.5 : f32
  %xd = call @pattern(%c4, %c64, %f037, %f011, %f3)
      : (index, index, f32, f32, f32) -> tensor<?x?xf32>
  %wd = call @pattern(%c16, %c64, %f013, %f029, %f05)
      : (index, index, f32, f32, f32) -> tensor<?x?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<4x64xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<16x64xf32>
  %bias = arith.constant dense<[0.5, -0.25, 0.125, 0.0, 1.0, -1.5, 0.3, 0.01,
      -2.0, 0.75, 0.2, -0.6, 3.0, 0.05, -0.33, 1.25]> : tensor<16xf32>
  %resd = call @pattern(%c4, %c16, %f011, %f037, %f3)
      : (index, index, f32, f32, f32) -> tensor<?x?xf32>
  %resf = tensor.cast %resd : tensor<?x?xf32> to tensor<4x16xf32>
  %eb = tensor.empty() : tensor<4x16xbf16>
  %res = linalg.generic {indexing_maps = [#id, #id],
                         iterator_types = ["parallel", "parallel"]}
      ins(%resf : tensor<4x16xf32>) outs(%eb : tensor<4x16xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %n = arith.truncf %in : f32 to bf16
    linalg.yield %n : bf16
  } -> tensor<4x16xbf16>
  %colScale = arith.constant dense<[1.0, 0.7, -3.0, 0.001]> : tensor<4xf32>
  %g, %o, %q, %qs, %qo, %qos, %c3, %a3 = call @layer(%x, %w, %bias, %res, %colScale)
      : (tensor<4x64xf32>, tensor<16x64xf32>, tensor<16xf32>,
         tensor<4x16xbf16>, tensor<4xf32>)
      -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf8E4M3FN>,
          tensor<1x1xf32>, tensor<4x16xf8E4M3FN>, tensor<4x1xf32>,
          tensor<4x16xf8E5M2>, tensor<1x1xf32>)
  call @print(%g) : (tensor<4x16xf32>) -> ()
  call @print(%o) : (tensor<4x16xf32>) -> ()
  call @printCodes(%q) : (tensor<4x16xf8E4M3FN>) -> ()
  call @printScalar(%qs) : (tensor<1x1xf32>) -> ()
  call @printCodes(%qo) : (tensor<4x16xf8E4M3FN>) -> ()
  call @printRows(%qos) : (tensor<4x1xf32>) -> ()
  call @printCodes5(%c3) : (tensor<4x16xf8E5M2>) -> ()
  call @printScalar(%a3) : (tensor<1x1xf32>) -> ()
  return
}
