// Ops around the GEMMs that have no GPU kernel are named, with the reason.
// RUN: fp8-opt %s -split-input-file --convert-fp8-to-gpu=chip=sm_90a -verify-diagnostics

func.func @captured(%a: tensor<64x64xf32>, %t: tensor<1xf32>) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : index
  %s = tensor.extract %t[%c0] : tensor<1xf32>
  %e = tensor.empty() : tensor<64x64xf32>
  // expected-error @below {{fp8 GPU lowering: 'linalg.generic' has no kernel: its body uses a value defined outside that is not a constant}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

// A generate's body computes from its indices, constants and elements of
// tensors it reads (elementwise-gather.mlir).
func.func @generate_reads(%t: tensor<1xi32>) -> tensor<64x64xi32> {
  %c0 = arith.constant 0 : index
  %s = tensor.extract %t[%c0] : tensor<1xi32>
  // expected-error @below {{fp8 GPU lowering: 'tensor.generate' has no kernel: its body uses a value defined outside that is not a constant}}
  %g = tensor.generate {
  ^bb0(%i: index, %j: index):
    %v = arith.addi %s, %s : i32
    tensor.yield %v : i32
  } : tensor<64x64xi32>
  return %g : tensor<64x64xi32>
}
