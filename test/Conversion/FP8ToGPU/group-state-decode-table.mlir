// The group-state kernels decode range-expanded codes of 8-bit formats by a
// table: a constant global of the kernel module per format, 17 exponents by
// 128 magnitudes, entry (j + 8) * 128 + c holding fl32(E_-j(fl32(|v| /
// fmax))) for the code of magnitude bits c; a decode is one lookup through
// the read-only cache and one multiply by the group's amax, with no division
// or square root. decode_table.py compares every entry with the numpy oracle
// of numerics.md section 14, bit for bit.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: %python %S/Inputs/decode_table.py %t/fp8_kernels.ptx e4m3 e5m2 | FileCheck %s --check-prefix=TABLE

// TABLE: e4m3: 2176 entries, 0 differ from the oracle
// TABLE: e5m2: 2176 entries, 0 differ from the oracle

// CHECK-DAG: .global .align 16 .b8 __fp8_expand_decode_e4m3[8704]
// CHECK-DAG: .global .align 16 .b8 __fp8_expand_decode_e5m2[8704]
// CHECK-LABEL: .entry fp8_group_state_3x300_{{[0-9a-f]+}}(
// CHECK: mov.b64 %rd{{[0-9]+}}, __fp8_expand_decode_e4m3;
// CHECK-NOT: div.rn.f32
// CHECK-NOT: sqrt.rn.f32
// CHECK: ld.global.nc.b32
// CHECK-NOT: div.rn.f32
// CHECK-NOT: sqrt.rn.f32
// CHECK: ret;
func.func @decode_e4m3(%q: tensor<3x300xf8E4M3FN>, %a: tensor<3x3xf32>, %j: tensor<3x3xi8>) -> tensor<3x300xf32> {
  %x = fp8.expand_dequantize %q, %a, %j by <128> : tensor<3x300xf8E4M3FN>, tensor<3x3xf32>, tensor<3x3xi8> -> tensor<3x300xf32>
  return %x : tensor<3x300xf32>
}

// CHECK-LABEL: .entry fp8_group_state_3x300_{{[0-9a-f]+}}(
// CHECK: mov.b64 %rd{{[0-9]+}}, __fp8_expand_decode_e5m2;
// CHECK-NOT: div.rn.f32
// CHECK-NOT: sqrt.rn.f32
// CHECK: ret;
func.func @decode_e5m2(%q: tensor<3x300xf8E5M2>, %a: tensor<3x3xf32>, %j: tensor<3x3xi8>) -> tensor<3x300xf32> {
  %x = fp8.expand_dequantize %q, %a, %j by <128> : tensor<3x300xf8E5M2>, tensor<3x3xf32>, tensor<3x3xi8> -> tensor<3x300xf32>
  return %x : tensor<3x300xf32>
}
