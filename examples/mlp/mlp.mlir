// A two-layer MLP in linalg on tensors: y = relu(x W1) W2, with x [4, 64]
// activations and W1 [64, 128], W2 [128, 8] weights.
//
// @mlp is the f32 graph, the input of the fp8 passes. @mlp_fp8 is the same
// MLP with per-tensor current scaling (recipe tensor_current) written out in
// the fp8 dialect: every matmul operand is measured, scaled into E4M3 and
// multiplied on FP8 operands with f32 accumulation, the decode scales
// travelling with the data. (fp8-autocast will produce this form from @mlp.)
// @main runs both on the CPU and prints the f32 result, the FP8 result and
// the relative error ||y8 - y32|| / ||y32||:
//
//   fp8-opt examples/mlp/mlp.mlir --fp8-cpu-pipeline | mlir-runner -e main ...

#relu_map = affine_map<(d0, d1) -> (d0, d1)>

func.func @mlp(%x: tensor<4x64xf32>, %w1: tensor<64x128xf32>, %w2: tensor<128x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %h0 = tensor.empty() : tensor<4x128xf32>
  %hz = linalg.fill ins(%zero : f32) outs(%h0 : tensor<4x128xf32>) -> tensor<4x128xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<4x64xf32>, tensor<64x128xf32>)
                     outs(%hz : tensor<4x128xf32>) -> tensor<4x128xf32>
  %r = linalg.generic {indexing_maps = [#relu_map, #relu_map], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<4x128xf32>) outs(%h0 : tensor<4x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x128xf32>
  %y0 = tensor.empty() : tensor<4x8xf32>
  %yz = linalg.fill ins(%zero : f32) outs(%y0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.matmul ins(%r, %w2 : tensor<4x128xf32>, tensor<128x8xf32>)
                     outs(%yz : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

func.func @mlp_fp8(%x: tensor<4x64xf32>, %w1: tensor<64x128xf32>, %w2: tensor<128x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32

  // Layer 1: quantize x and W1 with scales from their current amax.
  %ax = fp8.amax %x by <tensor> : tensor<4x64xf32> -> tensor<1x1xf32>
  %sx, %sx_inv = fp8.compute_scale %ax rule <ratio> for <e4m3>
      : tensor<1x1xf32> -> tensor<1x1xf32>, tensor<1x1xf32>
  %qx = fp8.quantize %x, %sx by <tensor>
      : tensor<4x64xf32>, tensor<1x1xf32> -> tensor<4x64xf8E4M3FN>
  %aw1 = fp8.amax %w1 by <tensor> : tensor<64x128xf32> -> tensor<1x1xf32>
  %sw1, %sw1_inv = fp8.compute_scale %aw1 rule <ratio> for <e4m3>
      : tensor<1x1xf32> -> tensor<1x1xf32>, tensor<1x1xf32>
  %qw1 = fp8.quantize %w1, %sw1 by <tensor>
      : tensor<64x128xf32>, tensor<1x1xf32> -> tensor<64x128xf8E4M3FN>
  %h = fp8.scaled_matmul %qx, %qw1 scales(%sx_inv, %sw1_inv) by(<tensor>, <tensor>)
      {recipe = #fp8.recipe<tensor_current>, role = #fp8.gemm_role<fprop>}
      : tensor<4x64xf8E4M3FN>, tensor<64x128xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32>
      -> tensor<4x128xf32>

  %h0 = tensor.empty() : tensor<4x128xf32>
  %r = linalg.generic {indexing_maps = [#relu_map, #relu_map], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<4x128xf32>) outs(%h0 : tensor<4x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x128xf32>

  // Layer 2.
  %ar = fp8.amax %r by <tensor> : tensor<4x128xf32> -> tensor<1x1xf32>
  %sr, %sr_inv = fp8.compute_scale %ar rule <ratio> for <e4m3>
      : tensor<1x1xf32> -> tensor<1x1xf32>, tensor<1x1xf32>
  %qr = fp8.quantize %r, %sr by <tensor>
      : tensor<4x128xf32>, tensor<1x1xf32> -> tensor<4x128xf8E4M3FN>
  %aw2 = fp8.amax %w2 by <tensor> : tensor<128x8xf32> -> tensor<1x1xf32>
  %sw2, %sw2_inv = fp8.compute_scale %aw2 rule <ratio> for <e4m3>
      : tensor<1x1xf32> -> tensor<1x1xf32>, tensor<1x1xf32>
  %qw2 = fp8.quantize %w2, %sw2 by <tensor>
      : tensor<128x8xf32>, tensor<1x1xf32> -> tensor<128x8xf8E4M3FN>
  %y = fp8.scaled_matmul %qr, %qw2 scales(%sr_inv, %sw2_inv) by(<tensor>, <tensor>)
      {recipe = #fp8.recipe<tensor_current>, role = #fp8.gemm_role<fprop>}
      : tensor<4x128xf8E4M3FN>, tensor<128x8xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32>
      -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// Deterministic pseudo-random inputs in [-scale, scale): an integer hash of
// (i, j), so that results do not depend on any math library.
func.func private @pattern(%rows: index, %cols: index, %scale: f32) -> tensor<?x?xf32> {
  %t = tensor.generate %rows, %cols {
  ^bb0(%i: index, %j: index):
    %ii = arith.index_cast %i : index to i32
    %jj = arith.index_cast %j : index to i32
    %p = arith.constant 73856093 : i32
    %q = arith.constant 19349663 : i32
    %a = arith.constant 1103515245 : i32
    %c = arith.constant 12345 : i32
    %hi = arith.muli %ii, %p : i32
    %hj = arith.muli %jj, %q : i32
    %h0 = arith.xori %hi, %hj : i32
    %h1 = arith.muli %h0, %a : i32
    %h2 = arith.addi %h1, %c : i32
    %c8 = arith.constant 8 : i32
    %mask = arith.constant 65535 : i32
    %h3 = arith.shrui %h2, %c8 : i32
    %h4 = arith.andi %h3, %mask : i32
    %f = arith.uitofp %h4 : i32 to f32
    %inv = arith.constant 3.0517578125e-05 : f32
    %one = arith.constant 1.0 : f32
    %u = arith.mulf %f, %inv : f32
    %v = arith.subf %u, %one : f32
    %w = arith.mulf %v, %scale : f32
    tensor.yield %w : f32
  } : tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}

func.func @main() {
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %sx = arith.constant 3.0 : f32
  %sw1 = arith.constant 0.125 : f32
  %sw2 = arith.constant 0.0625 : f32
  %xd = call @pattern(%c4, %c64, %sx) : (index, index, f32) -> tensor<?x?xf32>
  %w1d = call @pattern(%c64, %c128, %sw1) : (index, index, f32) -> tensor<?x?xf32>
  %w2d = call @pattern(%c128, %c8, %sw2) : (index, index, f32) -> tensor<?x?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<4x64xf32>
  %w1 = tensor.cast %w1d : tensor<?x?xf32> to tensor<64x128xf32>
  %w2 = tensor.cast %w2d : tensor<?x?xf32> to tensor<128x8xf32>
  %y = call @mlp(%x, %w1, %w2) : (tensor<4x64xf32>, tensor<64x128xf32>, tensor<128x8xf32>) -> tensor<4x8xf32>
  %y8 = call @mlp_fp8(%x, %w1, %w2) : (tensor<4x64xf32>, tensor<64x128xf32>, tensor<128x8xf32>) -> tensor<4x8xf32>
  call @print(%y) : (tensor<4x8xf32>) -> ()
  call @print(%y8) : (tensor<4x8xf32>) -> ()
  // Relative L2 error of the FP8 result.
  %zero = arith.constant 0.0 : f32
  %acc0 = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%acc0 : tensor<f32>) -> tensor<f32>
  %sums:2 = linalg.generic {indexing_maps = [#relu_map, #relu_map, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> ()>],
                            iterator_types = ["reduction", "reduction"]}
      ins(%y, %y8 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%acc, %acc : tensor<f32>, tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %err: f32, %ref: f32):
    %d = arith.subf %b, %a : f32
    %d2 = arith.mulf %d, %d : f32
    %a2 = arith.mulf %a, %a : f32
    %e = arith.addf %err, %d2 : f32
    %r = arith.addf %ref, %a2 : f32
    linalg.yield %e, %r : f32, f32
  } -> (tensor<f32>, tensor<f32>)
  %err = tensor.extract %sums#0[] : tensor<f32>
  %ref = tensor.extract %sums#1[] : tensor<f32>
  %ratio = arith.divf %err, %ref : f32
  %rel = math.sqrt %ratio : f32
  %rel1 = tensor.from_elements %rel : tensor<1xf32>
  %rm = bufferization.to_buffer %rel1 : tensor<1xf32> to memref<1xf32>
  %ru = memref.cast %rm : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%ru) : (memref<*xf32>) -> ()
  return
}

func.func @print(%t: tensor<4x8xf32>) {
  %m = bufferization.to_buffer %t : tensor<4x8xf32> to memref<4x8xf32>
  %u = memref.cast %m : memref<4x8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
