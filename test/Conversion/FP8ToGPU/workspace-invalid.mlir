// A launch plan whose temporaries break the workspace's rules is rejected
// when it is read back (fp8-write-artifacts), before any file is written.
// RUN: rm -rf %t && split-file %s %t
// RUN: not fp8-opt %t/overlap.mlir --fp8-write-artifacts=dir=%t/out 2>&1 | FileCheck %s --check-prefix=OVERLAP
// RUN: not fp8-opt %t/unaligned.mlir --fp8-write-artifacts=dir=%t/out 2>&1 | FileCheck %s --check-prefix=UNALIGNED
// RUN: not fp8-opt %t/no-offset.mlir --fp8-write-artifacts=dir=%t/out 2>&1 | FileCheck %s --check-prefix=NO-OFFSET
// RUN: not ls %t/out

// OVERLAP: error: fp8-write-artifacts: the plan of 'f': launch plan: temp buffers 1 and 2 share workspace bytes while both are live at launch 1
// UNALIGNED: error: fp8-write-artifacts: the plan of 'f': launch plan: temp buffer 2 at offset 64 (1024 bytes) is not 256-byte aligned within the workspace of 2048 bytes
// NO-OFFSET: error: fp8-write-artifacts: the plan of 'f': launch plan: buffer 1 (temp) lacks an offset

//--- overlap.mlir
module attributes {fp8.plans = {f = {chip = "sm_90a", kernel_module = "fp8_kernels", workspace_bytes = 1024 : i64,
  buffers = [{bytes = 1024 : i64, id = 0 : i64, index = 0 : i64, kind = "output", type = tensor<256xf32>},
             {bytes = 1024 : i64, id = 1 : i64, kind = "temp", offset = 0 : i64, type = tensor<256xf32>},
             {bytes = 1024 : i64, id = 2 : i64, kind = "temp", offset = 0 : i64, type = tensor<256xf32>}],
  launches = [{buffer = 1 : i64, byte = 0 : i64, kind = "fill"},
              {buffer = 2 : i64, byte = 1 : i64, kind = "fill"},
              {bytes = 1024 : i64, from = 1 : i64, kind = "copy", to = 0 : i64},
              {bytes = 1024 : i64, from = 2 : i64, kind = "copy", to = 0 : i64}]}}} {
}
//--- unaligned.mlir
module attributes {fp8.plans = {f = {chip = "sm_90a", kernel_module = "fp8_kernels", workspace_bytes = 2048 : i64,
  buffers = [{bytes = 1024 : i64, id = 0 : i64, index = 0 : i64, kind = "output", type = tensor<256xf32>},
             {bytes = 1024 : i64, id = 1 : i64, kind = "temp", offset = 0 : i64, type = tensor<256xf32>},
             {bytes = 1024 : i64, id = 2 : i64, kind = "temp", offset = 64 : i64, type = tensor<256xf32>}],
  launches = [{bytes = 1024 : i64, from = 1 : i64, kind = "copy", to = 0 : i64},
              {bytes = 1024 : i64, from = 2 : i64, kind = "copy", to = 0 : i64}]}}} {
}
//--- no-offset.mlir
module attributes {fp8.plans = {f = {chip = "sm_90a", kernel_module = "fp8_kernels", workspace_bytes = 1024 : i64,
  buffers = [{bytes = 1024 : i64, id = 0 : i64, index = 0 : i64, kind = "output", type = tensor<256xf32>},
             {bytes = 1024 : i64, id = 1 : i64, kind = "temp", type = tensor<256xf32>}],
  launches = [{bytes = 1024 : i64, from = 1 : i64, kind = "copy", to = 0 : i64}]}}} {
}
