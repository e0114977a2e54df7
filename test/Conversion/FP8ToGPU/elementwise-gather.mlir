// Rotary embedding on bf16 queries, x * cos + rotate_half(x) * sin, with
// rotate_half's slices and concatenation (as the PyTorch front end emits
// them): fp8-fuse-elementwise reads the concatenation piecewise, so the
// whole of it is one elementwise kernel, where the slices and the
// concatenation took four layout kernels and the negation one more. The
// kernel loads x, cos and sin through the generic's maps and x again at
// the indices its body computes (the gathered parameter after the loaded
// operands), each half of the row from the other half.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAN --input-file=%t/rotary.json
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=PTXAS --input-file=%t/fp8_kernels.ptxas.log
// RUN: FileCheck %s --check-prefix=GENERATE --input-file=%t/generate_reads.json

// PLAN: "launches": [
// PLAN: "kernel": "fp8_elementwise_2x4x32x16_{{[0-9a-f]+}}",
// PLAN-NEXT: "kind": "kernel",
// PLAN-NEXT: "params": [
// PLAN-NEXT: {
// PLAN-NEXT: "buffer": 0,
// PLAN: "buffer": 1,
// PLAN: "buffer": 2,
// PLAN: "buffer": 0,
// PLAN: "buffer": 3,
// PLAN: ],
// PLAN-NEXT: "persistent": false,
// PLAN-NEXT: "shared_bytes": 0
// PLAN-NEXT: }
// PLAN-NEXT: ],

// CHECK-LABEL: .entry fp8_elementwise_2x4x32x16_{{[0-9a-f]+}}(
// CHECK-COUNT-5: .param .u64 .ptr .global
// CHECK-NEXT: {{^}})
// CHECK: ld.global.b16
// CHECK-COUNT-2: ld.global.b32
// CHECK: ld.global.b16 %rs{{[0-9]+}}, [%rd{{[0-9]+}}+16];
// CHECK-NEXT: neg.bf16
// CHECK: ld.global.b16
// CHECK-NOT: ld.global
// CHECK: st.global.b16
// CHECK: ret;
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

func.func @rotary(%x: tensor<2x4x32x16xbf16>, %cos: tensor<32x16xf32>,
                  %sin: tensor<32x16xf32>) -> tensor<2x4x32x16xbf16> {
  %minus = arith.constant -1.0 : bf16
  %e = tensor.empty() : tensor<2x4x32x16xbf16>
  %eh = tensor.empty() : tensor<2x4x32x8xbf16>
  %high = tensor.extract_slice %x[0, 0, 0, 8] [2, 4, 32, 8] [1, 1, 1, 1]
      : tensor<2x4x32x16xbf16> to tensor<2x4x32x8xbf16>
  %low = tensor.extract_slice %x[0, 0, 0, 0] [2, 4, 32, 8] [1, 1, 1, 1]
      : tensor<2x4x32x16xbf16> to tensor<2x4x32x8xbf16>
  %neg = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%high : tensor<2x4x32x8xbf16>) outs(%eh : tensor<2x4x32x8xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %y = arith.mulf %in, %minus : bf16
    linalg.yield %y : bf16
  } -> tensor<2x4x32x8xbf16>
  %c0 = tensor.insert_slice %neg into %e[0, 0, 0, 0] [2, 4, 32, 8] [1, 1, 1, 1]
      : tensor<2x4x32x8xbf16> into tensor<2x4x32x16xbf16>
  %rotated = tensor.insert_slice %low into %c0[0, 0, 0, 8] [2, 4, 32, 8] [1, 1, 1, 1]
      : tensor<2x4x32x8xbf16> into tensor<2x4x32x16xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %rotated, %cos, %sin : tensor<2x4x32x16xbf16>, tensor<2x4x32x16xbf16>, tensor<32x16xf32>, tensor<32x16xf32>) outs(%e : tensor<2x4x32x16xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %c: f32, %s: f32, %out: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %p = arith.mulf %af, %c : f32
    %q = arith.mulf %bf, %s : f32
    %sum = arith.addf %p, %q : f32
    %y = arith.truncf %sum : f32 to bf16
    linalg.yield %y : bf16
  } -> tensor<2x4x32x16xbf16>
  return %r : tensor<2x4x32x16xbf16>
}

// A tensor.generate reads elements of a tensor at indices its body computes
// (here a column of %t per row, reversed): %t is its one loaded parameter.
// GENERATE: "launches": [
// GENERATE: "kernel": "fp8_elementwise_64x64_{{[0-9a-f]+}}",
// GENERATE-NEXT: "kind": "kernel",
// GENERATE-NEXT: "params": [
// GENERATE-NEXT: {
// GENERATE-NEXT: "buffer": 0,
// GENERATE: "buffer": 1,
// GENERATE: ],
// GENERATE-NEXT: "persistent": false,
func.func @generate_reads(%t: tensor<64xi32>) -> tensor<64x64xi32> {
  %g = tensor.generate {
  ^bb0(%i: index, %j: index):
    %c63 = arith.constant 63 : index
    %k = arith.subi %c63, %j : index
    %v = tensor.extract %t[%k] : tensor<64xi32>
    tensor.yield %v : i32
  } : tensor<64x64xi32>
  return %g : tensor<64x64xi32>
}
