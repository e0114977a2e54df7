// Reductions the kernels do not compute are named, with the reason.
// RUN: fp8-opt %s -split-input-file --convert-fp8-to-gpu=chip=sm_90a -verify-diagnostics

func.func @two_inputs(%a: tensor<64x128xf32>, %b: tensor<64x128xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{fp8 GPU lowering: 'linalg.generic' has no reduction kernel: it reduces 2 input(s) to 1 result(s); reduction kernels reduce one input to one result}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a, %b : tensor<64x128xf32>, tensor<64x128xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.addf %s, %acc : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

func.func @integer(%a: tensor<64x128xi32>, %init: tensor<64xi32>) -> tensor<64xi32> {
  // expected-error @below {{fp8 GPU lowering: 'linalg.reduce' has no reduction kernel: its body does not yield one addf, mulf, maximumf, minimumf, maxnumf or minnumf of the accumulator and a value of the input element}}
  %r = linalg.reduce ins(%a : tensor<64x128xi32>) outs(%init : tensor<64xi32>) dimensions = [1]
    (%in: i32, %acc: i32) {
      %s = arith.addi %in, %acc : i32
      linalg.yield %s : i32
    }
  return %r : tensor<64xi32>
}

// -----

func.func @accumulator_twice(%a: tensor<64x128xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{its body does not yield one addf, mulf, maximumf, minimumf, maxnumf or minnumf of the accumulator and a value of the input element}}
  %r = linalg.reduce ins(%a : tensor<64x128xf32>) outs(%init : tensor<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %p = arith.mulf %in, %acc : f32
      %s = arith.addf %p, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<64xf32>
}

// -----

func.func @fp8_input(%a: tensor<64x128xf8E4M3FN>, %init: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{fp8 GPU lowering: 'linalg.reduce' has no reduction kernel: it reads f8E4M3FN elements; reduction kernels read f32, bf16 or f16}}
  %r = linalg.reduce ins(%a : tensor<64x128xf8E4M3FN>) outs(%init : tensor<64xf32>) dimensions = [1]
    (%in: f8E4M3FN, %acc: f32) {
      %e = arith.extf %in : f8E4M3FN to f32
      %s = arith.addf %e, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<64xf32>
}

// -----

func.func @f64_accumulator(%a: tensor<64x128xf32>, %init: tensor<64xf64>) -> tensor<64xf64> {
  // expected-error @below {{fp8 GPU lowering: 'linalg.reduce' has no reduction kernel: it combines f64 values; reduction kernels combine f32, bf16 or f16}}
  %r = linalg.reduce ins(%a : tensor<64x128xf32>) outs(%init : tensor<64xf64>) dimensions = [1]
    (%in: f32, %acc: f64) {
      %e = arith.extf %in : f32 to f64
      %s = arith.addf %e, %acc : f64
      linalg.yield %s : f64
    }
  return %r : tensor<64xf64>
}

// -----

func.func @permuted_input(%a: tensor<128x64xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{fp8 GPU lowering: 'linalg.generic' has no reduction kernel: it reads its input through a permuting or broadcasting map; reduction kernels read it in the order of the loops}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<128x64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

func.func @apart(%a: tensor<4x64x32xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{fp8 GPU lowering: 'linalg.reduce' has no reduction kernel: the dimensions it reduces are not adjacent; transpose them together first}}
  %r = linalg.reduce ins(%a : tensor<4x64x32xf32>) outs(%init : tensor<64xf32>) dimensions = [0, 2]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<64xf32>
}

// -----

func.func @transposed_result(%a: tensor<4x64x32xf32>, %init: tensor<64x4xf32>) -> tensor<64x4xf32> {
  // expected-error @below {{fp8 GPU lowering: 'linalg.generic' has no reduction kernel: its result does not hold the kept dimensions in the order of the input}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a : tensor<4x64x32xf32>) outs(%init : tensor<64x4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64x4xf32>
  return %r : tensor<64x4xf32>
}

// -----

func.func @many_batches(%a: tensor<65536x2x4xf32>, %init: tensor<65536x4xf32>) -> tensor<65536x4xf32> {
  // expected-error @below {{fp8 GPU lowering: 'linalg.reduce' has no reduction kernel: an extent exceeds what the kernels index (2^31 - 1 rows or columns, 65535 batches)}}
  %r = linalg.reduce ins(%a : tensor<65536x2x4xf32>) outs(%init : tensor<65536x4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<65536x4xf32>
}

// -----

// An empty input is refused before any op is planned (plan-invalid.mlir).
// expected-error @below {{fp8 GPU lowering: argument 0: 'tensor<64x0xf32>' has no elements}}
func.func @empty(%a: tensor<64x0xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.reduce ins(%a : tensor<64x0xf32>) outs(%init : tensor<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<64xf32>
}

// -----

// So is a dynamic shape, at the op that makes it.
func.func @dynamic(%a: tensor<64x128xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{fp8 GPU lowering: result 0: 'tensor<?x128xf32>' has a dynamic shape}}
  %d = tensor.cast %a : tensor<64x128xf32> to tensor<?x128xf32>
  %i = tensor.cast %init : tensor<64xf32> to tensor<?xf32>
  %r = linalg.reduce ins(%d : tensor<?x128xf32>) outs(%i : tensor<?xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %c = tensor.cast %r : tensor<?xf32> to tensor<64xf32>
  return %c : tensor<64xf32>
}

// -----

func.func @captured(%a: tensor<64x128xf32>, %init: tensor<64xf32>, %t: tensor<1xf32>) -> tensor<64xf32> {
  %c0 = arith.constant 0 : index
  %w = tensor.extract %t[%c0] : tensor<1xf32>
  // expected-error @below {{fp8 GPU lowering: 'linalg.reduce' has no reduction kernel: its body uses a value defined outside that is not a constant}}
  %r = linalg.reduce ins(%a : tensor<64x128xf32>) outs(%init : tensor<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %p = arith.mulf %in, %w : f32
      %s = arith.addf %p, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<64xf32>
}

// -----

func.func @libdevice(%a: tensor<64x128xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{fp8 GPU lowering: 'linalg.reduce' has no reduction kernel: 'math.tan' has no GPU lowering without libdevice}}
  %r = linalg.reduce ins(%a : tensor<64x128xf32>) outs(%init : tensor<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %p = math.tan %in : f32
      %s = arith.addf %p, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<64xf32>
}

// -----

// A reduction's body is cloned without the loop indices.
func.func @indices(%a: tensor<64x128xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{fp8 GPU lowering: 'linalg.generic' has no reduction kernel: its body reads loop indices}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<64x128xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %f = arith.index_cast %i : index to i32
    %g = arith.sitofp %f : i32 to f32
    %y = arith.mulf %x, %g : f32
    %t = arith.addf %y, %acc : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}
