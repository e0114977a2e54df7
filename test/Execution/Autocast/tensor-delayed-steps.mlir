// Delayed scaling through fp8-autocast, eight training steps: the module
// declares the activation's scale global itself (the caller owns the state),
// @main calls the converted @step eight times with activation amaxes
// 2, 0.5, 0, 8, 0, 0, 0, 1 and reads the scale before each step and after
// the last. numerics.md section 7: history 4, `max`, E4M3 gives the scales
// 1, 224, 224, 224, 56, 56, 56, 56 and then 448 with `roll`, 56 with `skip`.
// REQUIRES: mlir-runner
// RUN: fp8-opt %s --fp8-autocast="recipe=tensor-delayed history=4" --fp8-cpu-pipeline \
// RUN:   | %cpu_runner | FileCheck %s --check-prefix=ROLL
// RUN: fp8-opt %s --fp8-autocast="recipe=tensor-delayed history=4 zero-amax=skip" --fp8-cpu-pipeline \
// RUN:   | %cpu_runner | FileCheck %s --check-prefix=SKIP
// ROLL: [1,  224,  224,  224,  56,  56,  56,  56,  448]
// SKIP: [1,  224,  224,  224,  56,  56,  56,  56,  56]

ml_program.global private mutable @__fp8_state_fc1_lhs_scale(dense<1.0> : tensor<1xf32>) : tensor<1xf32>

func.func private @printMemrefF32(memref<*xf32>)

func.func @step(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %y = linalg.matmul {fp8.name = "fc1"} ins(%x, %w : tensor<4x8xf32>, tensor<8x4xf32>)
                     outs(%init : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

func.func @main() {
  %amaxes = arith.constant dense<[2.0, 0.5, 0.0, 8.0, 0.0, 0.0, 0.0, 1.0]> : tensor<8xf32>
  %pattern = arith.constant dense<0.25> : tensor<4x8xf32>
  %w = arith.constant dense<1.0> : tensor<8x4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %used0 = tensor.empty() : tensor<9xf32>
  %used = scf.for %i = %c0 to %c8 step %c1 iter_args(%u = %used0) -> tensor<9xf32> {
    %s = ml_program.global_load @__fp8_state_fc1_lhs_scale : tensor<1xf32>
    %sv = tensor.extract %s[%c0] : tensor<1xf32>
    %u2 = tensor.insert %sv into %u[%i] : tensor<9xf32>
    %a = tensor.extract %amaxes[%i] : tensor<8xf32>
    %x0 = tensor.insert %a into %pattern[%c0, %c0] : tensor<4x8xf32>
    %zero = arith.constant 0.0 : f32
    %isz = arith.cmpf oeq, %a, %zero : f32
    %x = scf.if %isz -> tensor<4x8xf32> {
      %z = arith.constant dense<0.0> : tensor<4x8xf32>
      scf.yield %z : tensor<4x8xf32>
    } else {
      scf.yield %x0 : tensor<4x8xf32>
    }
    %y = func.call @step(%x, %w) : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
    scf.yield %u2 : tensor<9xf32>
  }
  %sf = ml_program.global_load @__fp8_state_fc1_lhs_scale : tensor<1xf32>
  %last = tensor.extract %sf[%c0] : tensor<1xf32>
  %all = tensor.insert %last into %used[%c8] : tensor<9xf32>
  %m = bufferization.to_buffer %all : tensor<9xf32> to memref<9xf32>
  %um = memref.cast %m : memref<9xf32> to memref<*xf32>
  call @printMemrefF32(%um) : (memref<*xf32>) -> ()
  return
}
