// fp8-gpu-graph-pipeline is the graph stages of fp8-gpu-pipeline, built by the
// function fp8-gpu-pipeline calls: the same passes, options and order, up to
// convert-fp8-to-gpu. Its output is still an fp8 graph on tensors (what
// test/Execution/GPUGraphPipeline runs on the CPU), and it checks the chip
// like fp8-gpu-pipeline.
// RUN: fp8-opt %s --fp8-gpu-graph-pipeline=chip=sm_100a --dump-pass-pipeline -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=STAGES,ONLY
// RUN: fp8-opt %s --fp8-autocast=recipe=mxfp8 --fp8-gpu-pipeline=chip=sm_100a --dump-pass-pipeline -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=STAGES,FULL
// RUN: fp8-opt %s --fp8-autocast=recipe=mxfp8 --fp8-gpu-graph-pipeline=chip=sm_100a | FileCheck %s
// RUN: not fp8-opt %s --fp8-gpu-graph-pipeline=chip=sm_90 2>&1 | FileCheck %s --check-prefix=CHIP

// ONLY:        builtin.module(
// FULL:        builtin.module(
// FULL-NEXT:     fp8-autocast{{.*}},
// STAGES-NEXT:   fp8-decompose-aggregates,
// STAGES-NEXT:   fp8-fuse-dynamic-quantize,
// STAGES-NEXT:   fp8-propagate-scales,
// STAGES-NEXT:   cse,
// STAGES-NEXT:   fp8-legalize-layout{{{.*}}chip=sm_100a},
// STAGES-NEXT:   fp8-quantize-constants{{.*}},
// STAGES-NEXT:   fp8-fuse-dynamic-quantize,
// STAGES-NEXT:   canonicalize{{.*}},
// STAGES-NEXT:   cse,
// STAGES-NEXT:   fp8-fuse-elementwise,
// STAGES-NEXT:   fp8-fuse-epilogue,
// STAGES-NEXT:   fp8-assign-scale-layouts{chip=sm_100a}
// ONLY-NEXT:   {{^}})
// FULL-SAME:   ,
// FULL-NEXT:   convert-fp8-to-gpu{chip=sm_100a

// The MXFP8 graph for Blackwell: both operands quantized once, K-major
// (B's transposed copy of codes and scales), scales in the tcgen05 layout.
// CHECK-LABEL: func.func @linear
// CHECK-DAG:     %[[B:.*]], %[[SB:.*]] = fp8.dynamic_quantize %arg1 by <32x1> rule <e8m0_rceil> {scale_layout = #fp8.tcgen05_scale_layout<k_dim = 0, stage_k_blocks = 4>}
// CHECK-DAG:     %[[A:.*]], %[[SA:.*]] = fp8.dynamic_quantize %arg0 by <1x32> rule <e8m0_rceil> {scale_layout = #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 4>}
// CHECK-DAG:     %[[BT:.*]] = linalg.transpose ins(%[[B]] : tensor<256x128xf8E4M3FN>)
// CHECK-DAG:     %[[SBT:.*]] = linalg.transpose ins(%[[SB]] : tensor<8x128xf8E8M0FNU>)
// CHECK:         fp8.scaled_matmul %[[A]], %[[BT]] scales(%[[SA]], %[[SBT]]) by(<1x32>, <1x32>) transpose_rhs
// CHECK-NOT:     gpu.binary

// CHIP: for the --chip option: unsupported chip 'sm_90': {{.*}} use sm_90a

func.func @linear(%x: tensor<128x256xbf16>, %w: tensor<256x128xbf16>) -> tensor<128x128xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<128x128xbf16>
  %init = linalg.fill ins(%zero : bf16) outs(%e : tensor<128x128xbf16>) -> tensor<128x128xbf16>
  %y = linalg.matmul ins(%x, %w : tensor<128x256xbf16>, tensor<256x128xbf16>) outs(%init : tensor<128x128xbf16>) -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}
