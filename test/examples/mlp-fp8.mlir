// The example's explicit FP8 MLP fuses into dynamic quantizations.
// RUN: fp8-opt %fp8_src_root/examples/mlp/mlp.mlir --fp8-fuse-dynamic-quantize | FileCheck %s

// CHECK-LABEL: func @mlp_fp8
// CHECK-NOT: fp8.amax
// CHECK-COUNT-2: fp8.dynamic_quantize {{.*}} by <tensor> rule <ratio>
// CHECK: fp8.scaled_matmul
// CHECK: linalg.generic
// CHECK-COUNT-2: fp8.dynamic_quantize {{.*}} by <tensor> rule <ratio>
// CHECK: fp8.scaled_matmul
// CHECK-NOT: fp8.quantize
// CHECK: return
