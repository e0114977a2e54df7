// RUN: fp8-opt %fp8_src_root/examples/mlp/mlp_fp8.mlir --fp8-fuse-dynamic-quantize | FileCheck %s

// CHECK-LABEL: func @mlp
// CHECK-COUNT-2: fp8.dynamic_quantize {{.*}} by <tensor> rule <ratio>
// CHECK: fp8.scaled_matmul
// CHECK: linalg.generic
// CHECK-COUNT-2: fp8.dynamic_quantize {{.*}} by <tensor> rule <ratio>
// CHECK: fp8.scaled_matmul
// CHECK-NOT: fp8.amax
// CHECK-NOT: fp8.quantize
