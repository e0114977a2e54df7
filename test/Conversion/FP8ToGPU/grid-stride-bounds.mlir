// Grid-stride loops over up to 2^31 - 1 elements compare their index
// unsigned: after the last element the index steps past 2^31 - 1, which a
// signed comparison reads as negative, and the loop went on with negative
// offsets. Elementwise and layout kernels over 2^31 - 256 elements.
// RUN: rm -rf %t && fp8-opt %s "--fp8-gpu-pipeline=chip=sm_90a artifacts=%t" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// CHECK-LABEL: .entry fp8_elementwise
// CHECK-NOT: setp.{{[a-z]+}}.s32
// CHECK: setp.lt.u32 {{.*}}, 2147483392;
// CHECK-LABEL: .entry fp8_layout
// CHECK-NOT: setp.{{[a-z]+}}.s32
// CHECK: setp.lt.u32
func.func @f(%a: tensor<2147483392xf32>, %b: tensor<16x134217712xbf16>) -> (tensor<2147483392xf32>, tensor<134217712x16xbf16>) {
  %e = tensor.empty() : tensor<2147483392xf32>
  %0 = linalg.negf ins(%a : tensor<2147483392xf32>) outs(%e : tensor<2147483392xf32>) -> tensor<2147483392xf32>
  %t = tensor.empty() : tensor<134217712x16xbf16>
  %1 = linalg.transpose ins(%b : tensor<16x134217712xbf16>) outs(%t : tensor<134217712x16xbf16>) permutation = [1, 0]
  return %0, %1 : tensor<2147483392xf32>, tensor<134217712x16xbf16>
}
