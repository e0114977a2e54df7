// tensor.generate with a static shape becomes an elementwise kernel whose
// cloned body gets each element's indices: here the random words that
// fp8-autocast generates for stochastic rounding (a murmur3 finalizer of the
// linear index).
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=PLAN --input-file=%t/random_bits.json

// CHECK-LABEL: .entry fp8_elementwise_64x96_{{[0-9a-f]+}}(
// CHECK-DAG: xor.b32 {{.*}}, 7;
// CHECK-DAG: shr.u32 {{.*}}, 16;
// CHECK-DAG: mul.lo.s32 {{.*}}, -2048144789;
// CHECK-DAG: st.global.b32

// One launch over 64 x 96 elements: 24 CTAs of 256 threads, the result its
// only buffer.
// PLAN: "grid": [
// PLAN-NEXT: 24,
// PLAN: "kernel": "fp8_elementwise_64x96_{{[0-9a-f]+}}"
// PLAN-NEXT: "kind": "kernel",
// PLAN-NEXT: "params": [
// PLAN-NEXT: {
// PLAN-NEXT: "buffer": 0,
// PLAN-NEXT: "kind": "buffer"
// PLAN-NEXT: }
// PLAN-NEXT: ],
func.func @random_bits() -> tensor<64x96xi32> {
  %c96 = arith.constant 96 : i32
  %golden = arith.constant -1640531535 : i32
  %stream = arith.constant 7 : i32
  %c16 = arith.constant 16 : i32
  %m = arith.constant -2048144789 : i32
  %bits = tensor.generate {
  ^bb0(%i: index, %j: index):
    %r = arith.index_cast %i : index to i32
    %c = arith.index_cast %j : index to i32
    %row = arith.muli %r, %c96 : i32
    %linear = arith.addi %row, %c : i32
    %h0 = arith.muli %linear, %golden : i32
    %h1 = arith.xori %h0, %stream : i32
    %s = arith.shrui %h1, %c16 : i32
    %h2 = arith.xori %h1, %s : i32
    %h3 = arith.muli %h2, %m : i32
    tensor.yield %h3 : i32
  } : tensor<64x96xi32>
  return %bits : tensor<64x96xi32>
}
