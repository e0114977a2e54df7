// The shipped MLP example: its f32 and FP8 results and their relative error,
// computed on the CPU, agree with the numpy oracle to the printed digit.
// REQUIRES: mlir-runner
// RUN: fp8-opt %fp8_src_root/examples/mlp/mlp.mlir --fp8-cpu-pipeline | %cpu_runner > %t.out
// RUN: %python %S/Inputs/mlp_check.py %t.out | FileCheck %s
// CHECK: f32, FP8 and relative error ({{.*}}) match the oracle
