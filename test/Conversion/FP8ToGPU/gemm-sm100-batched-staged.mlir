// Block scales of a batched sm_100a GEMM that no quantization wrote in the
// tcgen05 scale layout (they reach the function as arguments, or GEMMs read
// them in different layouts) are staged by one kernel for the whole batch:
// CTA row blockIdx.y copies matrix y's scales, SourceBatchBytes apart in the
// source, into its own layout, Bytes apart, which the GEMM reads at its
// batch stride of one layout. (DeepSeek's f32 scales of the attention's
// batched GEMMs take the f32 kernel: test/examples/gpu-examples-sm100.test.)
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_100a artifacts=%t" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=MX --input-file=%t/mx_batched.json
// RUN: FileCheck %s --check-prefix=PTXAS --input-file=%t/fp8_kernels.ptxas.log
// RUN: not grep -E "[1-9][0-9]* bytes spill" %t/fp8_kernels.ptxas.log

// CHECK-LABEL: .entry fp8_scale_layout_sm100a_batched(
// CHECK: mov.u32 {{.*}}, %ctaid.y;
// CHECK: ld.global.b8
// CHECK: st.global.b8
// CHECK: ret;

// E8M0 scales [2, 128, 2] of K = 64: 128 rows and 2 k-blocks a matrix, one
// 512-byte chunk of the layout each; both operands staged, grid y = 2.
// MX:      "grid": [
// MX-NEXT:   2,
// MX-NEXT:   2,
// MX-NEXT:   1
// MX-NEXT: ],
// MX-NEXT: "kernel": "fp8_scale_layout_sm100a_batched",
// MX:      "params": [
// MX:        "kind": "i32",
// MX-NEXT:   "value": 128
// MX-NEXT: },
// MX-NEXT: {
// MX-NEXT:   "kind": "i32",
// MX-NEXT:   "value": 2
// MX:        "value": 512
// MX-NEXT: },
// MX-NEXT: {
// MX-NEXT:   "kind": "i32",
// MX-NEXT:   "value": 256
// MX-NEXT: }
// MX-NEXT: ],
// MX:      "kernel": "fp8_scale_layout_sm100a_batched",
// The GEMM reads matrix b's layout 512 bytes after matrix b - 1's.
// MX:      "kernel": "fp8_gemm_sm100a_batched_
// MX:        "value": 512
// MX-NEXT: },
// MX-NEXT: {
// MX-NEXT:   "kind": "i32",
// MX-NEXT:   "value": 512
// MX-NEXT: }
func.func @mx_batched(%a: tensor<2x128x64xf8E4M3FN>, %b: tensor<2x128x64xf8E4M3FN>, %sa: tensor<2x128x2xf8E8M0FNU>, %sb: tensor<2x128x2xf8E8M0FNU>) -> tensor<2x128x128xf32> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) transpose_rhs : tensor<2x128x64xf8E4M3FN>, tensor<2x128x64xf8E4M3FN>, tensor<2x128x2xf8E8M0FNU>, tensor<2x128x2xf8E8M0FNU> -> tensor<2x128x128xf32>
  return %c : tensor<2x128x128xf32>
}

// PTXAS: Compiling entry function 'fp8_scale_layout_sm100a_batched'
