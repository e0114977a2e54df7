// A two-layer MLP in linalg on tensors, f32: y = relu(x W1) W2.
// x [4, 64] activations, W1 [64, 128] and W2 [128, 8] weights.
// This is the graph the fp8 passes take as input; mlp_fp8.mlir is what it
// becomes with per-tensor current scaling.

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

// Deterministic inputs: a smooth pattern with a wide dynamic range.
func.func private @pattern(%rows: index, %cols: index, %scale: f32) -> tensor<?x?xf32> {
  %t = tensor.generate %rows, %cols {
  ^bb0(%i: index, %j: index):
    %ii = arith.index_cast %i : index to i32
    %jj = arith.index_cast %j : index to i32
    %c7 = arith.constant 7 : i32
    %c3 = arith.constant 3 : i32
    %a = arith.muli %ii, %c7 : i32
    %b = arith.muli %jj, %c3 : i32
    %s = arith.addi %a, %b : i32
    %f = arith.sitofp %s : i32 to f32
    %v = math.sin %f : f32
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
  %m = bufferization.to_buffer %y : tensor<4x8xf32> to memref<4x8xf32>
  %u = memref.cast %m : memref<4x8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
