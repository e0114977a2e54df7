// Recipe tensor-delayed: three training steps threading the amax history and
// scale through a loop. Each step quantizes its activation with the scale
// from the previous steps' amaxes, records its own amax, and updates. The
// printed codes and scales are compared with the numpy oracle.
// REQUIRES: mlir-runner
// RUN: fp8-opt %s --fp8-cpu-pipeline | %cpu_runner > %t.out
// RUN: %python %S/Inputs/delayed_check.py %t.out | FileCheck %s
// The same steps with a history of one slot, whose update only clears it:
// RUN: sed 's/tensor<4xf32>/tensor<1xf32>/g' %s | fp8-opt --fp8-cpu-pipeline | %cpu_runner > %t.1.out
// RUN: %python %S/Inputs/delayed_check.py %t.1.out 1 | FileCheck %s
// CHECK: tensor-delayed: PASS

func.func private @printMemrefI32(memref<*xi32>)
func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  // Step inputs: amaxes 3.5, 100, 0.25.
  %xs = arith.constant dense<[[[1.0, -3.5, 0.3, 2.2], [0.01, 1.7, -2.9, 0.5]],
                              [[100.0, -7.0, 0.125, 33.0], [-99.0, 1.0, 2.0, 64.0]],
                              [[0.25, -0.1, 0.0625, 0.2], [0.003, -0.25, 0.07, 0.11]]]> : tensor<3x2x4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %h0 = arith.constant dense<0.0> : tensor<4xf32>
  %s0 = arith.constant dense<1.0> : tensor<1x1xf32>
  %codes0 = tensor.empty() : tensor<3x2x4xi32>
  %scales0 = tensor.empty() : tensor<3xf32>
  %h, %s, %codes, %scales = scf.for %i = %c0 to %c3 step %c1
      iter_args(%h_ = %h0, %s_ = %s0, %cs = %codes0, %ss = %scales0)
      -> (tensor<4xf32>, tensor<1x1xf32>, tensor<3x2x4xi32>, tensor<3xf32>) {
    %x = tensor.extract_slice %xs[%i, 0, 0] [1, 2, 4] [1, 1, 1] : tensor<3x2x4xf32> to tensor<2x4xf32>
    %q = fp8.quantize %x, %s_ by <tensor> : tensor<2x4xf32>, tensor<1x1xf32> -> tensor<2x4xf8E4M3FN>
    %a = fp8.amax %x by <tensor> : tensor<2x4xf32> -> tensor<1x1xf32>
    %h2, %s2, %si2 = fp8.update_delayed_scale %a into(%h_, %s_) for <e4m3> : tensor<4xf32>, tensor<1x1xf32>
    %qb = arith.bitcast %q : tensor<2x4xf8E4M3FN> to tensor<2x4xi8>
    %qi = arith.extui %qb : tensor<2x4xi8> to tensor<2x4xi32>
    %cs2 = tensor.insert_slice %qi into %cs[%i, 0, 0] [1, 2, 4] [1, 1, 1] : tensor<2x4xi32> into tensor<3x2x4xi32>
    %used = tensor.extract %s_[%c0, %c0] : tensor<1x1xf32>
    %ss2 = tensor.insert %used into %ss[%i] : tensor<3xf32>
    scf.yield %h2, %s2, %cs2, %ss2 : tensor<4xf32>, tensor<1x1xf32>, tensor<3x2x4xi32>, tensor<3xf32>
  }
  %flat = tensor.collapse_shape %codes [[0, 1, 2]] : tensor<3x2x4xi32> into tensor<24xi32>
  %m = bufferization.to_buffer %flat : tensor<24xi32> to memref<24xi32>
  %u = memref.cast %m : memref<24xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  %sb = arith.bitcast %scales : tensor<3xf32> to tensor<3xi32>
  %sm = bufferization.to_buffer %sb : tensor<3xi32> to memref<3xi32>
  %su = memref.cast %sm : memref<3xi32> to memref<*xi32>
  call @printMemrefI32(%su) : (memref<*xi32>) -> ()
  return
}
