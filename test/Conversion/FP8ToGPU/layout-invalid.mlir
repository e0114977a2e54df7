// Layout ops without a kernel are named, with the reason.
// RUN: fp8-opt %s -split-input-file -verify-diagnostics --convert-fp8-to-gpu=chip=sm_90a -o /dev/null

// Packed E2M1 codes that no quantization writes transposed.
func.func @packed(%q: tensor<64x128xf4E2M1FN>) -> tensor<128x64xf4E2M1FN> {
  %e = tensor.empty() : tensor<128x64xf4E2M1FN>
  // expected-error @below {{fp8 GPU lowering: 'linalg.transpose' has no kernel: layout kernels move elements of 8, 16 or 32 bits, not 'f4E2M1FN'}}
  %t = linalg.transpose ins(%q : tensor<64x128xf4E2M1FN>) outs(%e : tensor<128x64xf4E2M1FN>) permutation = [1, 0]
  return %t : tensor<128x64xf4E2M1FN>
}

// -----

func.func @f64(%x: tensor<64x128xf64>) -> tensor<128x64xf64> {
  %e = tensor.empty() : tensor<128x64xf64>
  // expected-error @below {{layout kernels move elements of 8, 16 or 32 bits, not 'f64'}}
  %t = linalg.transpose ins(%x : tensor<64x128xf64>) outs(%e : tensor<128x64xf64>) permutation = [1, 0]
  return %t : tensor<128x64xf64>
}

// -----

// Five dimensions, none of which merges with its neighbour.
func.func @rank5(%x: tensor<2x3x5x7x11xf32>) -> tensor<11x7x5x3x2xf32> {
  %e = tensor.empty() : tensor<11x7x5x3x2xf32>
  // expected-error @below {{fp8 GPU lowering: 'linalg.transpose' has no kernel: it moves 5 dimensions that do not merge into fewer; layout kernels move at most 4}}
  %t = linalg.transpose ins(%x : tensor<2x3x5x7x11xf32>) outs(%e : tensor<11x7x5x3x2xf32>) permutation = [4, 3, 2, 1, 0]
  return %t : tensor<11x7x5x3x2xf32>
}

// -----

// Kernels index fewer than 2^31 elements: the plan refuses the tensor before
// the layout kernel would.
// expected-error @below {{fp8 GPU lowering: argument 0: 'tensor<65536x65536xi8>' has 4294967296 elements; the kernels index tensors of fewer than 2^31 elements (32-bit launch parameters)}}
func.func @huge(%x: tensor<65536x65536xi8>) -> tensor<65536x65536xi8> {
  %e = tensor.empty() : tensor<65536x65536xi8>
  %t = linalg.transpose ins(%x : tensor<65536x65536xi8>) outs(%e : tensor<65536x65536xi8>) permutation = [1, 0]
  return %t : tensor<65536x65536xi8>
}

// -----

func.func @dynamic_offset(%x: tensor<64x128xbf16>) -> tensor<64x32xbf16> {
  %i = arith.constant 32 : index
  // expected-error @below {{fp8 GPU lowering: 'tensor.extract_slice' has no kernel: slices with dynamic offsets, sizes or strides are not planned at compile time}}
  %s = tensor.extract_slice %x[0, %i] [64, 32] [1, 1] : tensor<64x128xbf16> to tensor<64x32xbf16>
  return %s : tensor<64x32xbf16>
}
