// Constant operands become constant buffers, written to files next to the
// manifest; fp8-run --check checks that they hold exactly their bytes. PTX
// only (no ptxas needed): the pipeline, then fp8-write-artifacts by hand.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a" -o %t/gpu.mlir
// RUN: fp8-opt %t/gpu.mlir --fp8-write-artifacts="dir=%t/art ptxas=none" -o /dev/null
// RUN: fp8-run --check %t/art/gemm.json | FileCheck %s

// CHECK:      ptx: fp8_kernels.ptx
// CHECK-NEXT: cubin: none
// CHECK-NEXT: workspace: 0 bytes
// CHECK-NEXT: inputs: 3
// CHECK:      outputs: 1
// CHECK-NEXT:   output 0: buffer 5 f32 [128, 64] 32768 bytes
// CHECK-NEXT: constants: 2
// CHECK-NEXT:   constant: buffer 3 f32 [1, 1] 4 bytes from gemm.const3.bin
// CHECK-NEXT:   constant: buffer 4 f32 [64] 256 bytes from gemm.const4.bin
// CHECK-NEXT: states: 0
// CHECK-NEXT: temps: 0
// CHECK:      param 4: buffer 3
// CHECK-NEXT: param 5: buffer 4
// CHECK:      ok: 'gemm' for sm_90a: 3 inputs, 1 outputs, 1 launches

// A constant file of the wrong size, then none at all.
// RUN: printf 'abc' > %t/art/gemm.const3.bin
// RUN: not fp8-run --check %t/art/gemm.json 2>&1 | FileCheck %s --check-prefix=SIZE
// SIZE: fp8-run: error: {{.*}}gemm.json: constant file of buffer 3 '{{.*}}gemm.const3.bin' holds 3 bytes, expected 4
// RUN: rm %t/art/gemm.const3.bin
// RUN: not fp8-run --check %t/art/gemm.json 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: fp8-run: error: {{.*}}gemm.json: constant file of buffer 3 '{{.*}}gemm.const3.bin' does not exist

func.func @gemm(%a: tensor<128x256xf8E4M3FN>, %b: tensor<64x256xf8E4M3FN>,
                %sa: tensor<1x1xf32>) -> tensor<128x64xf32> {
  %sb = arith.constant dense<0.5> : tensor<1x1xf32>
  %bias = arith.constant dense<1.0> : tensor<64xf32>
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>)
      bias(%bias : tensor<64xf32>) transpose_rhs
      : tensor<128x256xf8E4M3FN>, tensor<64x256xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32>
      -> tensor<128x64xf32>
  return %c : tensor<128x64xf32>
}
