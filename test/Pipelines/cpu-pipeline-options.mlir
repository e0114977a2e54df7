// The pipeline's options: C wrappers on by default, buffer deallocation.
// RUN: fp8-opt %s --fp8-cpu-pipeline | FileCheck %s --check-prefix=DEFAULT
// RUN: fp8-opt %s "--fp8-cpu-pipeline=emit-c-interface=false deallocate=false" | FileCheck %s --check-prefix=PLAIN
// A textual pipeline builds it without implicit nesting, as the C API does.
// RUN: fp8-opt %s --pass-pipeline="builtin.module(fp8-cpu-pipeline)" | FileCheck %s --check-prefix=DEFAULT

// DEFAULT-DAG: llvm.func @_mlir_ciface_scale
// DEFAULT-DAG: llvm.call @free
// PLAIN-NOT: _mlir_ciface_
// PLAIN-NOT: llvm.call @free

func.func @scale(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %q, %s = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil> : tensor<4x64xf32> -> tensor<4x64xf8E4M3FN>, tensor<4x2xf8E8M0FNU>
  %y = fp8.dequantize %q, %s by <1x32> : tensor<4x64xf8E4M3FN>, tensor<4x2xf8E8M0FNU> -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}
