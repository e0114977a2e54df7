// numerics.md section 7: L = 4, `max`, amaxes 2, 0.5, 0, 8, 0, 0, 0, 1.
// Scales used at each step: 1, 224, 224, 224, 56, 56, 56, 56; after the last
// step the scale is 448 with `roll` and 56 with `skip`.
// REQUIRES: mlir-runner
// RUN: fp8-opt %s --fp8-cpu-pipeline | %cpu_runner | FileCheck %s

func.func private @printMemrefF32(memref<*xf32>)

func.func @run_roll(%amaxes: tensor<8xf32>) -> (tensor<8xf32>, tensor<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %h0 = arith.constant dense<0.0> : tensor<4xf32>
  %s0 = arith.constant dense<1.0> : tensor<1xf32>
  %used0 = tensor.empty() : tensor<8xf32>
  %h, %s, %used = scf.for %i = %c0 to %c8 step %c1 iter_args(%h_ = %h0, %s_ = %s0, %u_ = %used0)
      -> (tensor<4xf32>, tensor<1xf32>, tensor<8xf32>) {
    %cur = tensor.extract %s_[%c0] : tensor<1xf32>
    %u2 = tensor.insert %cur into %u_[%i] : tensor<8xf32>
    %a = tensor.extract %amaxes[%i] : tensor<8xf32>
    %at = tensor.from_elements %a : tensor<1xf32>
    %h2, %s2, %si2 = fp8.update_delayed_scale %at into(%h_, %s_) for <e4m3> : tensor<4xf32>, tensor<1xf32>
    scf.yield %h2, %s2, %u2 : tensor<4xf32>, tensor<1xf32>, tensor<8xf32>
  }
  return %used, %s : tensor<8xf32>, tensor<1xf32>
}

func.func @run_skip(%amaxes: tensor<8xf32>) -> (tensor<8xf32>, tensor<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %h0 = arith.constant dense<0.0> : tensor<4xf32>
  %s0 = arith.constant dense<1.0> : tensor<1xf32>
  %used0 = tensor.empty() : tensor<8xf32>
  %h, %s, %used = scf.for %i = %c0 to %c8 step %c1 iter_args(%h_ = %h0, %s_ = %s0, %u_ = %used0)
      -> (tensor<4xf32>, tensor<1xf32>, tensor<8xf32>) {
    %cur = tensor.extract %s_[%c0] : tensor<1xf32>
    %u2 = tensor.insert %cur into %u_[%i] : tensor<8xf32>
    %a = tensor.extract %amaxes[%i] : tensor<8xf32>
    %at = tensor.from_elements %a : tensor<1xf32>
    %h2, %s2, %si2 = fp8.update_delayed_scale %at into(%h_, %s_) for <e4m3> zero_amax <skip> : tensor<4xf32>, tensor<1xf32>
    scf.yield %h2, %s2, %u2 : tensor<4xf32>, tensor<1xf32>, tensor<8xf32>
  }
  return %used, %s : tensor<8xf32>, tensor<1xf32>
}

func.func @print8(%t: tensor<8xf32>) {
  %m = bufferization.to_buffer %t : tensor<8xf32> to memref<8xf32>
  %u = memref.cast %m : memref<8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @print1(%t: tensor<1xf32>) {
  %m = bufferization.to_buffer %t : tensor<1xf32> to memref<1xf32>
  %u = memref.cast %m : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %amaxes = arith.constant dense<[2.0, 0.5, 0.0, 8.0, 0.0, 0.0, 0.0, 1.0]> : tensor<8xf32>
  %used, %final = call @run_roll(%amaxes) : (tensor<8xf32>) -> (tensor<8xf32>, tensor<1xf32>)
  // CHECK: [1, 224, 224, 224, 56, 56, 56, 56]
  call @print8(%used) : (tensor<8xf32>) -> ()
  // CHECK: [448]
  call @print1(%final) : (tensor<1xf32>) -> ()
  %used2, %final2 = call @run_skip(%amaxes) : (tensor<8xf32>) -> (tensor<8xf32>, tensor<1xf32>)
  // CHECK: [1, 224, 224, 224, 56, 56, 56, 56]
  call @print8(%used2) : (tensor<8xf32>) -> ()
  // CHECK: [56]
  call @print1(%final2) : (tensor<1xf32>) -> ()
  return
}
