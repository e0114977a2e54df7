// Results that are not computed into a buffer of their own: an argument
// returned as it is, and two results that are one value (the pipeline's
// CSE merges results computed alike). Each such result is a copy, made
// after the launches that write its source. fp8-run --check accepts both
// manifests.
// RUN: rm -rf %t && split-file %s %t
// RUN: fp8-opt %t/merged.mlir "--fp8-gpu-pipeline=chip=sm_90a artifacts=%t/merged" -o /dev/null
// RUN: FileCheck %s --check-prefix=MERGED --input-file=%t/merged/f.json
// RUN: fp8-opt %t/argument.mlir "--fp8-gpu-pipeline=chip=sm_100a artifacts=%t/argument" -o /dev/null
// RUN: FileCheck %s --check-prefix=ARGUMENT --input-file=%t/argument/g.json
// RUN: %if fp8-runtime %{ fp8-run --check %t/merged/f.json | FileCheck %s --check-prefix=OK %}
// RUN: %if fp8-runtime %{ fp8-run --check %t/argument/g.json | FileCheck %s --check-prefix=OK %}
// OK: ok:

// An argument in the tcgen05 scale layout is not copied as a row-major
// result: an error, where its buffer was made the output.
// RUN: not fp8-opt %t/layout.mlir --convert-fp8-to-gpu=chip=sm_100a -o /dev/null 2>&1 | FileCheck %s --check-prefix=LAYOUT
// LAYOUT: layout.mlir:2:3: error: fp8 GPU lowering: result 0 is an argument or another result stored padded or in a scale layout, which a copy would keep; return a value computed from it

// MERGED: "kind": "kernel"
// MERGED: "from": 2,
// MERGED-NEXT: "kind": "copy",
// MERGED-NEXT: "to": 3

// ARGUMENT: "kind": "kernel"
// ARGUMENT: "from": 0,
// ARGUMENT-NEXT: "kind": "copy",
// ARGUMENT-NEXT: "to": 3

//--- merged.mlir
func.func @f(%a: tensor<128x64xf32>, %b: tensor<128x64xf32>) -> (tensor<128x64xf32>, tensor<128x64xf32>) {
  %e0 = tensor.empty() : tensor<128x64xf32>
  %0 = linalg.add ins(%a, %b : tensor<128x64xf32>, tensor<128x64xf32>) outs(%e0 : tensor<128x64xf32>) -> tensor<128x64xf32>
  %e1 = tensor.empty() : tensor<128x64xf32>
  %1 = linalg.add ins(%a, %b : tensor<128x64xf32>, tensor<128x64xf32>) outs(%e1 : tensor<128x64xf32>) -> tensor<128x64xf32>
  return %0, %1 : tensor<128x64xf32>, tensor<128x64xf32>
}
//--- argument.mlir
func.func @g(%a: tensor<128x64xf32>, %b: tensor<128x64xf32>) -> (tensor<128x64xf32>, tensor<128x64xf32>) {
  %e0 = tensor.empty() : tensor<128x64xf32>
  %0 = linalg.add ins(%a, %b : tensor<128x64xf32>, tensor<128x64xf32>) outs(%e0 : tensor<128x64xf32>) -> tensor<128x64xf32>
  return %0, %a : tensor<128x64xf32>, tensor<128x64xf32>
}
//--- layout.mlir
func.func @h(%s: tensor<128x4xf8E8M0FNU> {fp8.scale_layout = #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 4>}) -> tensor<128x4xf8E8M0FNU> {
  return %s : tensor<128x4xf8E8M0FNU>
}
