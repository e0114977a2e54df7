// RUN: fp8-opt %s --fp8-strip-compile-times | FileCheck %s

// The compile times go, the other properties, the objects and their order
// stay; an object left with no property has none.
// CHECK-LABEL: gpu.binary @kernels
// CHECK-SAME: [#gpu.object<#nvvm.target<chip = "sm_90a">, properties = {O = 3 : i32}, assembly = "ptx">,
// CHECK-SAME: #gpu.object<#nvvm.target<chip = "sm_100a">, bin = "cubin">,
// CHECK-SAME: #gpu.object<#nvvm.target<chip = "sm_90">, properties = {O = 2 : i32, keep = "TimeInMs"}, "plain">]
// CHECK-NOT: TimeInMs =
module attributes {gpu.container_module} {
  gpu.binary @kernels [
    #gpu.object<#nvvm.target<chip = "sm_90a">, properties = {LLVMIRToISATimeInMs = 13 : i64, O = 3 : i32}, assembly = "ptx">,
    #gpu.object<#nvvm.target<chip = "sm_100a">, properties = {ISAToBinaryTimeInMs = 1313 : i64, LLVMIRToISATimeInMs = 326 : i64}, bin = "cubin">,
    #gpu.object<#nvvm.target<chip = "sm_90">, properties = {O = 2 : i32, keep = "TimeInMs"}, "plain">
  ]
}
