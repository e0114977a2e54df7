// A GEMM's epilogue reading more inputs than a small vector holds inline:
// six same-shape tensors added to a high-precision product (one
// linalg.generic after fp8-fuse-elementwise). The planner read the
// consumer's operands through a range over a temporary that was gone by
// then, and crashed; now the six inputs are the GEMM's last parameters, in
// order, on both chips, and the kernels assemble without spills.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t/sm90" -o /dev/null
// RUN: FileCheck %s --input-file=%t/sm90/f.json -DCHIP=sm90a
// RUN: fp8-opt %s --fp8-gpu-pipeline="chip=sm_100a artifacts=%t/sm100" -o /dev/null
// RUN: FileCheck %s --input-file=%t/sm100/f.json -DCHIP=sm100a
// RUN: %if ptxas %{ not grep -E "[1-9][0-9]* bytes (spill|stack)" %t/sm90/fp8_kernels.ptxas.log %t/sm100/fp8_kernels.ptxas.log %}
// RUN: fp8-opt %s --fp8-gpu-pipeline=chip=sm_90a -remarks-filter=fp8-gpu -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK

// CHECK: "kernel": "gemm_[[CHIP]]_tf32_f32_epif32_
// CHECK: "value": 128
// CHECK-NEXT: },
// CHECK-NEXT: {
// CHECK-NEXT: "buffer": 2,
// CHECK-COUNT-5: "buffer": {{[3-7]}},
// CHECK-NEXT: "kind": "buffer"
// CHECK-NEXT: }
// CHECK-NEXT: ],
// REMARK: remark: [Passed] epilogue-fused | Category:fp8-gpu | Function=f | Remark="linalg.generic fused into the epilogue of linalg.matmul"
func.func @f(%a: tensor<192x128xf32>, %b: tensor<128x48xf32>, %q0: tensor<192x48xf32>,
             %q1: tensor<192x48xf32>, %q2: tensor<192x48xf32>, %q3: tensor<192x48xf32>,
             %q4: tensor<192x48xf32>, %q5: tensor<192x48xf32>) -> tensor<192x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<192x48xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<192x48xf32>) -> tensor<192x48xf32>
  %y0 = linalg.matmul ins(%a, %b : tensor<192x128xf32>, tensor<128x48xf32>) outs(%z : tensor<192x48xf32>) -> tensor<192x48xf32>
  %y1 = linalg.add ins(%y0, %q0 : tensor<192x48xf32>, tensor<192x48xf32>) outs(%e : tensor<192x48xf32>) -> tensor<192x48xf32>
  %y2 = linalg.add ins(%y1, %q1 : tensor<192x48xf32>, tensor<192x48xf32>) outs(%e : tensor<192x48xf32>) -> tensor<192x48xf32>
  %y3 = linalg.add ins(%y2, %q2 : tensor<192x48xf32>, tensor<192x48xf32>) outs(%e : tensor<192x48xf32>) -> tensor<192x48xf32>
  %y4 = linalg.add ins(%y3, %q3 : tensor<192x48xf32>, tensor<192x48xf32>) outs(%e : tensor<192x48xf32>) -> tensor<192x48xf32>
  %y5 = linalg.add ins(%y4, %q4 : tensor<192x48xf32>, tensor<192x48xf32>) outs(%e : tensor<192x48xf32>) -> tensor<192x48xf32>
  %y6 = linalg.add ins(%y5, %q5 : tensor<192x48xf32>, tensor<192x48xf32>) outs(%e : tensor<192x48xf32>) -> tensor<192x48xf32>
  return %y6 : tensor<192x48xf32>
}
