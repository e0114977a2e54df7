// bf16 contractions whose K is one scale block or not a multiple of a K
// tile, with B stored [N, K] (the gradient GEMMs of a backward pass) or
// [K, N]: the shapes where block-scaled recipes meet a transposed B.

// dx = dy · W^T with W [N = 512, K = 128]: one 128-long block along K.
func.func @dgrad_k128(%dy: tensor<64x128xbf16>, %w: tensor<512x128xbf16>) -> tensor<64x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x512xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x512xf32>) -> tensor<64x512xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%dy, %w : tensor<64x128xbf16>, tensor<512x128xbf16>) outs(%z : tensor<64x512xf32>) -> tensor<64x512xf32>
  return %r : tensor<64x512xf32>
}

// y = x · W with W [K = 64, N = 256]: K shorter than one block.
func.func @fprop_k64(%x: tensor<64x64xbf16>, %w: tensor<64x256xbf16>) -> tensor<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %r = linalg.matmul ins(%x, %w : tensor<64x64xbf16>, tensor<64x256xbf16>) outs(%z : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// dx = dy · W^T with K = 160: the last K tile holds one 32-long block and
// three past K.
func.func @dgrad_k160(%dy: tensor<64x160xbf16>, %w: tensor<256x160xbf16>) -> tensor<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%dy, %w : tensor<64x160xbf16>, tensor<256x160xbf16>) outs(%z : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}
