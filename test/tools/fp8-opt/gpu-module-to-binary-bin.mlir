// With ptxas installed, format=bin assembles the kernel for sm_90a.
// REQUIRES: ptxas
// RUN: fp8-opt %S/gpu-module-to-binary.mlir --convert-nvvm-to-llvm --gpu-module-to-binary=format=bin | FileCheck %s

// CHECK: gpu.binary @kernels
// CHECK-SAME: bin = "\7FELF
