// Elementwise ops get a kernel that clones their body; linalg.index reads
// the element's loop indices, which the kernel derives from its linear
// index (innermost fastest): attention's causal mask.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx

// The mask compares the column (the linear index mod 64) with the row
// (bits 6 to 11 of it) and selects -1e4 (0xC61C4000) above the diagonal.
// CHECK-LABEL: .entry fp8_elementwise_4x64x64_{{[0-9a-f]+}}(
// CHECK: and.b32 %r[[COL:[0-9]+]], %r{{[0-9]+}}, 63;
// CHECK: bfe.u32 %r[[ROW:[0-9]+]], %r{{[0-9]+}}, 6, 6;
// CHECK: setp.gt.u32 %p[[ABOVE:[0-9]+]], %r[[COL]], %r[[ROW]];
// CHECK: selp.f32 %r{{[0-9]+}}, 0fC61C4000, %r{{[0-9]+}}, %p[[ABOVE]];
func.func @causal_mask(%x: tensor<4x64x64xf32>) -> tensor<4x64x64xf32> {
  %e = tensor.empty() : tensor<4x64x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<4x64x64xf32>) outs(%e : tensor<4x64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %above = arith.cmpi ugt, %j, %i : index
    %v = arith.constant -1.000000e+04 : f32
    %y = arith.select %above, %v, %in : f32
    linalg.yield %y : f32
  } -> tensor<4x64x64xf32>
  return %r : tensor<4x64x64xf32>
}
