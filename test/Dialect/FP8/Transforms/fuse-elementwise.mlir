// RUN: fp8-opt %s -split-input-file --fp8-fuse-elementwise | FileCheck %s
// RUN: fp8-opt %s -split-input-file --fp8-fuse-elementwise \
// RUN:   --remarks-filter=fp8-gpu --remark-format=emitRemark -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK

// Bias (a row vector), ReLU and a cast: one generic reading the GEMM result
// and the bias through its broadcast map; the named ops became generics.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @bias_relu_cast
// CHECK-SAME: (%[[H:.*]]: tensor<64x32xf32>, %[[B:.*]]: tensor<32xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]]
// CHECK-SAME: ins(%[[H]], %[[B]] : tensor<64x32xf32>, tensor<32xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: arith.truncf
// CHECK: linalg.yield %{{.*}} : bf16
// CHECK-NOT: linalg.
// CHECK: return %[[R]]
// REMARK-DAG: remark: [Passed] elementwise-fused | Category:fp8-gpu | Function=bias_relu_cast | Remark="linalg.broadcast fused into linalg.generic"
// REMARK-DAG: remark: [Passed] elementwise-fused | Category:fp8-gpu | Function=bias_relu_cast | Remark="linalg.generic fused into linalg.generic"
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @bias_relu_cast(%h: tensor<64x32xf32>, %bias: tensor<32xf32>) -> tensor<64x32xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %eb = tensor.empty() : tensor<64x32xbf16>
  %b = linalg.broadcast ins(%bias : tensor<32xf32>) outs(%e : tensor<64x32xf32>) dimensions = [0]
  %s = linalg.add ins(%h, %b : tensor<64x32xf32>, tensor<64x32xf32>) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<64x32xf32>) outs(%eb : tensor<64x32xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %m = arith.maximumf %in, %zero : f32
    %t = arith.truncf %m : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<64x32xbf16>
  return %r : tensor<64x32xbf16>
}

// -----

// The ReLU's result is also returned: fusing would still write it, so the
// chain stays two ops.
// CHECK-LABEL: func.func @shared_intermediate
// CHECK: %[[R:.*]] = linalg.generic
// CHECK: arith.maximumf
// CHECK: %[[T:.*]] = linalg.generic
// CHECK-SAME: ins(%[[R]] :
// CHECK: math.tanh
// CHECK: return %[[R]], %[[T]]
// REMARK: remark: [Missed] elementwise-not-fused | Category:fp8-gpu | Function=shared_intermediate | Remark="linalg.generic not fused into linalg.generic: its result is also read by 'func.return' (fusing would write the intermediate anyway)"
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @shared_intermediate(%h: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = math.tanh %in : f32
    linalg.yield %y : f32
  } -> tensor<8x16xf32>
  return %r, %t : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// A column vector read by two consumers is recomputed in each (an indexed
// read), and no broadcast is left.
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @broadcast_twice
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[Y:.*]]: tensor<8x16xf32>, %[[V:.*]]: tensor<8xf32>)
// CHECK-NOT: linalg.broadcast
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[COL]], #{{.*}}]
// CHECK-SAME: ins(%[[X]], %[[V]] :
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[COL]], #{{.*}}]
// CHECK-SAME: ins(%[[Y]], %[[V]] :
// CHECK: arith.mulf
// CHECK-NOT: linalg.broadcast
// CHECK: return
func.func @broadcast_twice(%x: tensor<8x16xf32>, %y: tensor<8x16xf32>, %v: tensor<8xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %b = linalg.broadcast ins(%v : tensor<8xf32>) outs(%e : tensor<8x16xf32>) dimensions = [1]
  %s = linalg.add ins(%x, %b : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %p = linalg.mul ins(%y, %b : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %s, %p : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// A transpose stays for the quantize kernels to fold; an op that reads its
// loop indices (a mask) stays too; a named op with nothing to fuse stays
// named.
// CHECK-LABEL: func.func @not_fused
// CHECK: linalg.transpose
// CHECK: linalg.generic
// CHECK: linalg.index
// CHECK: linalg.add
// CHECK: linalg.sub
// REMARK: remark: [Missed] elementwise-not-fused | Category:fp8-gpu | Function=not_fused | Remark="linalg.transpose not fused into linalg.add: the producer is a layout op or a fill"
// REMARK: remark: [Missed] elementwise-not-fused | Category:fp8-gpu | Function=not_fused | Remark="linalg.generic not fused into linalg.sub: the producer reads loop indices"
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @not_fused(%x: tensor<8x8xf32>, %y: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %e = tensor.empty() : tensor<8x8xf32>
  %t = linalg.transpose ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) permutation = [1, 0]
  %mask = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<8x8xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %le = arith.cmpi ule, %j, %i : index
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %m = arith.select %le, %one, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x8xf32>
  %a = linalg.add ins(%t, %y : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %s = linalg.sub ins(%y, %mask : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %a, %s : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// A consumer that reads its loop indices (attention's causal mask) takes its
// producer (the scores' scaling), evaluated at the consumer's position: one
// generic reading the scores, with the mask's indices.
// CHECK-LABEL: func.func @into_mask
// CHECK-SAME: (%[[S:.*]]: tensor<2x8x8xf32>)
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: ins(%[[S]] : tensor<2x8x8xf32>)
// CHECK: arith.mulf
// CHECK: linalg.index 1 : index
// CHECK: linalg.index 2 : index
// CHECK: arith.select
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
// REMARK: remark: [Passed] elementwise-fused | Category:fp8-gpu | Function=into_mask | Remark="linalg.generic fused into linalg.generic"
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @into_mask(%s: tensor<2x8x8xf32>) -> tensor<2x8x8xf32> {
  %e = tensor.empty() : tensor<2x8x8xf32>
  %scaled = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x8x8xf32>) outs(%e : tensor<2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 1.250000e-01 : f32
    %m = arith.mulf %in, %c : f32
    linalg.yield %m : f32
  } -> tensor<2x8x8xf32>
  %masked = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%scaled : tensor<2x8x8xf32>) outs(%e : tensor<2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %above = arith.cmpi ugt, %j, %i : index
    %v = arith.constant -1.000000e+04 : f32
    %r = arith.select %above, %v, %in : f32
    linalg.yield %r : f32
  } -> tensor<2x8x8xf32>
  return %masked : tensor<2x8x8xf32>
}

// -----

// A per-tensor fp8.dequantize read only by an elementwise op (FP8-LM's first
// moment read by its Adam step) fuses into it: the codes are widened and
// multiplied by the 0-d scale inside the consumer's body. One read by two
// ops, or a block-scaled one, stays an fp8.dequantize.
// CHECK-LABEL: func.func @dequantize_into_step(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<4x200xf8E4M3FN>, %[[S:[^:]*]]: tensor<1x1xf32>, %[[G:[^:]*]]: tensor<4x200xf32>
// CHECK: %[[S0:.*]] = tensor.collapse_shape %[[S]] [] : tensor<1x1xf32> into tensor<f32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[Q]], %[[S0]], %[[G]] : tensor<4x200xf8E4M3FN>, tensor<f32>, tensor<4x200xf32>)
// CHECK: arith.extf %{{.*}} : f8E4M3FN to f32
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: fp8.dequantize
// CHECK: return %[[R]]
func.func @dequantize_into_step(%q: tensor<4x200xf8E4M3FN>, %s: tensor<1x1xf32>, %g: tensor<4x200xf32>) -> tensor<4x200xf32> {
  %m = fp8.dequantize %q, %s by <tensor> : tensor<4x200xf8E4M3FN>, tensor<1x1xf32> -> tensor<4x200xf32>
  %e = tensor.empty() : tensor<4x200xf32>
  %r = linalg.add ins(%m, %g : tensor<4x200xf32>, tensor<4x200xf32>) outs(%e : tensor<4x200xf32>) -> tensor<4x200xf32>
  return %r : tensor<4x200xf32>
}

// CHECK-LABEL: func.func @dequantize_twice(
// CHECK: fp8.dequantize
// CHECK: fp8.dequantize {{.*}} by <1x128>
func.func @dequantize_twice(%q: tensor<4x200xf8E4M3FN>, %s: tensor<1x1xf32>, %sb: tensor<4x2xf32>) -> (tensor<4x200xf32>, tensor<4x200xf32>) {
  %m = fp8.dequantize %q, %s by <tensor> : tensor<4x200xf8E4M3FN>, tensor<1x1xf32> -> tensor<4x200xf32>
  %b = fp8.dequantize %q, %sb by <1x128> : tensor<4x200xf8E4M3FN>, tensor<4x2xf32> -> tensor<4x200xf32>
  %e = tensor.empty() : tensor<4x200xf32>
  %r = linalg.add ins(%m, %m : tensor<4x200xf32>, tensor<4x200xf32>) outs(%e : tensor<4x200xf32>) -> tensor<4x200xf32>
  %t = linalg.add ins(%b, %m : tensor<4x200xf32>, tensor<4x200xf32>) outs(%e : tensor<4x200xf32>) -> tensor<4x200xf32>
  return %r, %t : tensor<4x200xf32>, tensor<4x200xf32>
}

// -----

// rotate_half read by its product: the concatenation goes; the body reads
// the lower half from column 4 on, else the upper half negated (the
// negation recomputed), each at its index clamped into its piece.
// CHECK-LABEL: func.func @rotate_half
// CHECK-SAME: (%[[X:.*]]: tensor<8x8xf32>, %[[S:.*]]: tensor<8x8xf32>)
// CHECK-NOT: tensor.insert_slice
// CHECK-NOT: tensor.extract_slice
// CHECK: linalg.generic {{.*}} ins(%[[S]] : tensor<8x8xf32>)
// CHECK: %[[I:.*]] = linalg.index 0
// CHECK: %[[J:.*]] = linalg.index 1
// CHECK: %[[LOW:.*]] = arith.minsi %[[J]], %c3
// CHECK: %[[UP:.*]] = arith.addi %[[LOW]], %c4
// CHECK: %[[A:.*]] = tensor.extract %[[X]][%[[I]], %[[UP]]]
// CHECK: %[[NEG:.*]] = arith.negf %[[A]]
// CHECK: %[[SHIFT:.*]] = arith.subi %[[J]], %c4
// CHECK: %[[HIGH:.*]] = arith.maxsi %[[SHIFT]], %c0
// CHECK: %[[B:.*]] = tensor.extract %[[X]][%[[I]], %[[HIGH]]]
// CHECK: %[[SECOND:.*]] = arith.cmpi sge, %[[J]], %c4
// CHECK: arith.select %[[SECOND]], %[[B]], %[[NEG]]
// REMARK: remark: [Passed] concatenation-read-piecewise | Category:fp8-gpu | Function=rotate_half | Remark="the concatenation of 2 pieces by tensor.insert_slice is read piecewise by linalg.generic"
func.func @rotate_half(%x: tensor<8x8xf32>, %s: tensor<8x8xf32>)
    -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %eh = tensor.empty() : tensor<8x4xf32>
  %high = tensor.extract_slice %x[0, 4] [8, 4] [1, 1]
      : tensor<8x8xf32> to tensor<8x4xf32>
  %low = tensor.extract_slice %x[0, 0] [8, 4] [1, 1]
      : tensor<8x8xf32> to tensor<8x4xf32>
  %neg = linalg.negf ins(%high : tensor<8x4xf32>)
      outs(%eh : tensor<8x4xf32>) -> tensor<8x4xf32>
  %c0 = tensor.insert_slice %neg into %e[0, 0] [8, 4] [1, 1]
      : tensor<8x4xf32> into tensor<8x8xf32>
  %cat = tensor.insert_slice %low into %c0[0, 4] [8, 4] [1, 1]
      : tensor<8x4xf32> into tensor<8x8xf32>
  %r = linalg.mul ins(%cat, %s : tensor<8x8xf32>, tensor<8x8xf32>)
      outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// Left as they are: a concatenation a matmul reads; insertions that
// overlap; five pieces (each element would read them all); and a piece
// computed by a math function is read, not recomputed at every element.
// CHECK-LABEL: func.func @not_piecewise
// CHECK-COUNT-2: tensor.insert_slice
// CHECK: linalg.matmul ins(%inserted_slice_0,
// CHECK-LABEL: func.func @overlapping
// CHECK-COUNT-2: tensor.insert_slice
// CHECK-LABEL: func.func @five_pieces
// CHECK-COUNT-5: tensor.insert_slice
// CHECK-LABEL: func.func @exp_piece
// CHECK: %[[E:.*]] = linalg.exp
// CHECK-NOT: tensor.insert_slice
// CHECK: tensor.extract %[[E]]
func.func @not_piecewise(%x: tensor<8x4xf32>, %y: tensor<8x4xf32>,
                         %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %c0 = tensor.insert_slice %x into %e[0, 0] [8, 4] [1, 1]
      : tensor<8x4xf32> into tensor<8x8xf32>
  %cat = tensor.insert_slice %y into %c0[0, 4] [8, 4] [1, 1]
      : tensor<8x4xf32> into tensor<8x8xf32>
  %zero = arith.constant 0.0 : f32
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>)
      -> tensor<8x8xf32>
  %r = linalg.matmul ins(%cat, %w : tensor<8x8xf32>, tensor<8x8xf32>)
      outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

func.func @overlapping(%x: tensor<8x5xf32>, %y: tensor<8x4xf32>,
                       %s: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %c0 = tensor.insert_slice %x into %e[0, 0] [8, 5] [1, 1]
      : tensor<8x5xf32> into tensor<8x8xf32>
  %cat = tensor.insert_slice %y into %c0[0, 4] [8, 4] [1, 1]
      : tensor<8x4xf32> into tensor<8x8xf32>
  %r = linalg.add ins(%cat, %s : tensor<8x8xf32>, tensor<8x8xf32>)
      outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

func.func @five_pieces(%x: tensor<8x2xf32>, %s: tensor<8x10xf32>)
    -> tensor<8x10xf32> {
  %e = tensor.empty() : tensor<8x10xf32>
  %c0 = tensor.insert_slice %x into %e[0, 0] [8, 2] [1, 1]
      : tensor<8x2xf32> into tensor<8x10xf32>
  %c1 = tensor.insert_slice %x into %c0[0, 2] [8, 2] [1, 1]
      : tensor<8x2xf32> into tensor<8x10xf32>
  %c2 = tensor.insert_slice %x into %c1[0, 4] [8, 2] [1, 1]
      : tensor<8x2xf32> into tensor<8x10xf32>
  %c3 = tensor.insert_slice %x into %c2[0, 6] [8, 2] [1, 1]
      : tensor<8x2xf32> into tensor<8x10xf32>
  %cat = tensor.insert_slice %x into %c3[0, 8] [8, 2] [1, 1]
      : tensor<8x2xf32> into tensor<8x10xf32>
  %r = linalg.add ins(%cat, %s : tensor<8x10xf32>, tensor<8x10xf32>)
      outs(%e : tensor<8x10xf32>) -> tensor<8x10xf32>
  return %r : tensor<8x10xf32>
}

func.func @exp_piece(%x: tensor<8x4xf32>, %s: tensor<8x8xf32>)
    -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %eh = tensor.empty() : tensor<8x4xf32>
  %exp = linalg.exp ins(%x : tensor<8x4xf32>) outs(%eh : tensor<8x4xf32>)
      -> tensor<8x4xf32>
  %c0 = tensor.insert_slice %exp into %e[0, 0] [8, 4] [1, 1]
      : tensor<8x4xf32> into tensor<8x8xf32>
  %cat = tensor.insert_slice %x into %c0[0, 4] [8, 4] [1, 1]
      : tensor<8x4xf32> into tensor<8x8xf32>
  %r = linalg.add ins(%cat, %s : tensor<8x8xf32>, tensor<8x8xf32>)
      outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// A piece without elements along the dimension: left as it is (reading it
// piecewise would read index -1 of it).
// CHECK-LABEL: func.func @empty_piece
// CHECK-COUNT-2: tensor.insert_slice
// CHECK: linalg.add
func.func @empty_piece(%x: tensor<8x0xf32>, %y: tensor<8x4xf32>, %s: tensor<8x8xf32>)
    -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %c0 = tensor.insert_slice %x into %z[0, 2] [8, 0] [1, 1]
      : tensor<8x0xf32> into tensor<8x8xf32>
  %cat = tensor.insert_slice %y into %c0[0, 4] [8, 4] [1, 1]
      : tensor<8x4xf32> into tensor<8x8xf32>
  %r = linalg.add ins(%cat, %s : tensor<8x8xf32>, tensor<8x8xf32>)
      outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}
