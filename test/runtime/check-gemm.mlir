// fp8-opt writes the kernels and the manifest of a per-tensor scaled GEMM;
// fp8-run --check reads and validates them without a GPU.

// REQUIRES: ptxas
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t" -o /dev/null
// RUN: fp8-run --check %t/gemm.json | FileCheck %s
// A directory holding one manifest works as well.
// RUN: fp8-run --check %t | FileCheck %s

// CHECK:      manifest: {{.*}}gemm.json
// CHECK-NEXT: function: gemm
// CHECK-NEXT: chip: sm_90a
// CHECK-NEXT: ptx: fp8_kernels.ptx
// CHECK-NEXT: cubin: fp8_kernels.cubin
// CHECK-NEXT: workspace: 0 bytes
// CHECK-NEXT: inputs: 4
// CHECK-NEXT:   input 0: buffer 0 f8e4m3 [256, 512] 131072 bytes
// CHECK-NEXT:   input 1: buffer 1 f8e4m3 [384, 512] 196608 bytes
// CHECK-NEXT:   input 2: buffer 2 f32 [1, 1] 4 bytes
// CHECK-NEXT:   input 3: buffer 3 f32 [1, 1] 4 bytes
// CHECK-NEXT: outputs: 1
// CHECK-NEXT:   output 0: buffer 4 bf16 [256, 384] 196608 bytes
// CHECK-NEXT: constants: 0
// CHECK-NEXT: states: 0
// CHECK-NEXT: temps: 0
// CHECK-NEXT: launches: 1
// CHECK-NEXT:   launch 0: kernel fp8_gemm_sm90a_e4m3e4m3_bf16_tensor_{{[a-z0-9_]+}} grid [{{[0-9]+}}, 1, 1] block [384, 1, 1] cluster [1, 1, 1] shared {{[0-9]+}} bytes persistent
// CHECK-NEXT:     param 0: tensor_map buffer 0 uint8 dims [512, 256] strides [512] box [128, {{[0-9]+}}] swizzle 128B
// CHECK-NEXT:     param 1: tensor_map buffer 1 uint8 dims [512, 384] strides [512] box [128, {{[0-9]+}}] swizzle 128B
// CHECK-NEXT:     param 2: tensor_map buffer 4 uint8 dims [768, 256] strides [768] box [128, 64] swizzle 128B
// CHECK-NEXT:     param 3: buffer 2
// CHECK-NEXT:     param 4: buffer 3
// CHECK-NEXT:     param 5: i32 256
// CHECK-NEXT:     param 6: i32 384
// CHECK-NEXT:     param 7: i32 512
// CHECK-NEXT: ok: 'gemm' for sm_90a: 4 inputs, 1 outputs, 1 launches

// The kernel stores its result through parameter 2 (by TMA, through the
// result's tensor map): naming an input there (an output aliasing an input)
// is rejected, with the JSON position.
// RUN: sed 's/"buffer": 4,/"buffer": 1,/' %t/gemm.json > %t/alias.json
// RUN: not fp8-run --check %t/alias.json 2>&1 | FileCheck %s --check-prefix=ALIAS
// ALIAS: fp8-run: error: {{.*}}alias.json: line 121, column 21: launches[0] (fp8_gemm_sm90a_{{[a-z0-9_]+}}).params[2].buffer: kernel 'fp8_gemm_sm90a_{{[a-z0-9_]+}}' (fp8_kernels.ptx, line {{[0-9]+}}) stores through parameter 2, but buffer 1 is an input, which no launch may write

func.func @gemm(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>,
                %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs
      : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32>
      -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}
