// What a launch plan cannot hold is refused, at the op, before any kernel:
// tensors with a dynamic shape or without elements (buffers and launches are
// sized at compile time), and a constant returned as a result.
// RUN: fp8-opt %s -split-input-file -verify-diagnostics --convert-fp8-to-gpu=chip=sm_90a -o /dev/null

// expected-error @below {{fp8 GPU lowering: argument 0: 'tensor<16x0xf32>' has no elements; the plan's buffers and launches need at least one}}
func.func @empty_k(%x: tensor<16x0xf32>, %w: tensor<0x32xf32>) -> tensor<16x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %y = linalg.matmul ins(%x, %w : tensor<16x0xf32>, tensor<0x32xf32>) outs(%f : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}

// -----

func.func @empty_inside(%x: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @below {{fp8 GPU lowering: result 0: 'tensor<0x32xf32>' has no elements}}
  %s = tensor.extract_slice %x[0, 0] [0, 32] [1, 1] : tensor<16x32xf32> to tensor<0x32xf32>
  %e = tensor.empty() : tensor<16x32xf32>
  %y = linalg.add ins(%x, %x : tensor<16x32xf32>, tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}

// -----

// A static signature with a dynamic shape inside.
func.func @dynamic_inside(%x: tensor<64x64xf32>, %w: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // expected-error @below {{fp8 GPU lowering: result 0: 'tensor<?x64xf32>' has a dynamic shape; the plan sizes every buffer and launch at compile time: give it a static shape}}
  %xc = tensor.cast %x : tensor<64x64xf32> to tensor<?x64xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %xc, %c0 : tensor<?x64xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty(%d) : tensor<?x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x32xf32>) -> tensor<?x32xf32>
  %y = linalg.matmul ins(%xc, %w : tensor<?x64xf32>, tensor<64x32xf32>) outs(%f : tensor<?x32xf32>) -> tensor<?x32xf32>
  %r = tensor.cast %y : tensor<?x32xf32> to tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

// -----

func.func @constant_result(%x: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<16x16xf32>
  %r = linalg.add ins(%x, %x : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  // expected-error @below {{fp8 GPU lowering: result 1 is a constant; return computed values only (the caller has the constant)}}
  return %r, %c : tensor<16x16xf32>, tensor<4xf32>
}

// -----

// Buffers hold integers and floats of a fixed width: no index or complex
// elements (the planner sized their bytes by a bit width they do not have).
// expected-error @below {{fp8 GPU lowering: argument 0: 'tensor<4xindex>' has elements of type 'index'; buffers hold integers and floats of a fixed width}}
func.func @index_elements(%x: tensor<4xindex>) -> tensor<4xindex> {
  return %x : tensor<4xindex>
}

// -----

func.func @complex_result(%x: tensor<4xf32>) -> tensor<4xcomplex<f32>> {
  // expected-error @below {{fp8 GPU lowering: result 0: 'tensor<4xcomplex<f32>>' has elements of type 'complex<f32>'; buffers hold integers and floats of a fixed width}}
  %e = tensor.empty() : tensor<4xcomplex<f32>>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xcomplex<f32>>) {
  ^bb0(%in: f32, %out: complex<f32>):
    %c = complex.create %in, %in : complex<f32>
    linalg.yield %c : complex<f32>
  } -> tensor<4xcomplex<f32>>
  return %r : tensor<4xcomplex<f32>>
}

// -----

// Kernels index with 32-bit integers: no tensor of 2^31 elements or more
// (fp8-run refused the launch parameters such a plan wrote).
// expected-error @below {{fp8 GPU lowering: argument 0: 'tensor<65536x32768xf32>' has 2147483648 elements; the kernels index tensors of fewer than 2^31 elements (32-bit launch parameters)}}
func.func @two_to_the_31(%x: tensor<65536x32768xf32>) -> tensor<65536x32768xf32> {
  %e = tensor.empty() : tensor<65536x32768xf32>
  %r = linalg.add ins(%x, %x : tensor<65536x32768xf32>, tensor<65536x32768xf32>) outs(%e : tensor<65536x32768xf32>) -> tensor<65536x32768xf32>
  return %r : tensor<65536x32768xf32>
}
