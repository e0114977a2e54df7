// fp8-autocast's call counter (random-state) on the GPU: NVFP4's stochastic
// rounding reads it from the function's state buffer, copied in at the
// start, and a one-element kernel writes the counter advanced by one, which
// is copied back to the state when every random word has been drawn.
// REQUIRES: ptxas
// RUN: rm -rf %t && fp8-opt %s --fp8-autocast=recipe=nvfp4 \
// RUN:   --fp8-gpu-pipeline="chip=sm_100a artifacts=%t" -o /dev/null
// RUN: fp8-run --check %t/dgrad.json | FileCheck %s
// RUN: not grep -E "[1-9][0-9]* bytes (spill|stack)" %t/fp8_kernels.ptxas.log
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/fp8_kernels.ptx

// CHECK: state: buffer [[STATE:[0-9]+]] i32 [1] 4 bytes @__fp8_rng_dgrad
// CHECK: copy 4 bytes from buffer [[STATE]] to buffer [[COUNTER:[0-9]+]]
// CHECK: kernel fp8_elementwise_64x32_[[BITS:[0-9a-f]+]]
// CHECK-NEXT: param 0: buffer [[COUNTER]]
// CHECK-NEXT: param 1: buffer [[WORDS:[0-9]+]]
// CHECK: kernel fp8_quantize_f32_e2m1_b1x16_{{.*}}_sr_
// CHECK: param 10: buffer [[WORDS]]
// CHECK: kernel fp8_gemm_sm100a
// CHECK: kernel fp8_elementwise_1_[[NEXT:[0-9a-f]+]]
// CHECK-NEXT: param 0: buffer [[COUNTER]]
// CHECK-NEXT: param 1: buffer [[NEW:[0-9]+]]
// CHECK-NEXT: launch {{[0-9]+}}: copy 4 bytes from buffer [[NEW]] to buffer [[STATE]]
// CHECK-NEXT: ok: 'dgrad' for sm_100a

// The random words: the counter times 0x27D4EB2F (668265263) moves the
// stream; the next value: the counter plus one.
// PTX-LABEL: .entry fp8_elementwise_64x32_
// PTX: mul.lo.s32 {{.*}}, 668265263;
// PTX-LABEL: .entry fp8_elementwise_1_
// PTX: add.s32 {{.*}}, 1;
func.func @dgrad(%dy: tensor<64x32xf32>, %w: tensor<32x128xf32>) -> tensor<64x128xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %c = linalg.matmul {fp8.role = #fp8.gemm_role<dgrad>} ins(%dy, %w : tensor<64x32xf32>, tensor<32x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %c : tensor<64x128xf32>
}
