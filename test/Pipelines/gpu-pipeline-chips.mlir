// Target legality comes first: the `chip` option is typed, so chips without
// FP8 tensor-core GEMMs, or without the architecture-specific `a` suffix that
// wgmma, setmaxnreg and tcgen05 need, are rejected while the pipeline is
// parsed: a diagnostic (never an NVPTX backend abort), a non-zero exit and no
// artifacts.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not fp8-opt %s --fp8-autocast=recipe=tensor-current --fp8-gpu-pipeline="chip=sm_89 artifacts=%t/sm_89" 2>&1 | FileCheck %s --check-prefix=SM89
// RUN: not fp8-opt %s --fp8-autocast=recipe=tensor-current --fp8-gpu-pipeline="chip=sm_90 artifacts=%t/sm_90" 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: not fp8-opt %s --fp8-autocast=recipe=tensor-current --fp8-gpu-pipeline="chip=sm_100 artifacts=%t/sm_100" 2>&1 | FileCheck %s --check-prefix=SM100
// RUN: not fp8-opt %s --fp8-autocast=recipe=tensor-current --fp8-gpu-pipeline="chip=hopper artifacts=%t/hopper" 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not fp8-opt %s --fp8-autocast=recipe=tensor-current --convert-fp8-to-gpu=chip=sm_90 2>&1 | FileCheck %s --check-prefix=CONVERT
// RUN: not fp8-opt %s --fp8-autocast=recipe=tensor-current --fp8-gpu-pipeline="chip=sm_90a format=ptx artifacts=%t/ptx" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not fp8-opt %s --fp8-autocast=recipe=tensor-current --fp8-gpu-pipeline="chip=sm_90a num-sms=0 artifacts=%t/sms" 2>&1 | FileCheck %s --check-prefix=SMS --implicit-check-not=note
// RUN: not ls %t/sm_89 %t/sm_90 %t/sm_100 %t/hopper %t/ptx %t/sms

// SM89: for the --chip option: unsupported chip 'sm_89': {{.*}}; sm_89 has no FP8 tensor-core GEMM instructions that fp8-mlir uses (wgmma needs sm_90a)
// SM90: for the --chip option: unsupported chip 'sm_90': {{.*}}; wgmma, setmaxnreg and tcgen05 exist only in the architecture-specific targets: use sm_90a
// SM100: for the --chip option: unsupported chip 'sm_100': {{.*}} use sm_100a
// NAME: for the --chip option: unsupported chip 'hopper': {{.*}}; chips are named like sm_90a
// CONVERT: for the --chip option: unsupported chip 'sm_90': {{.*}} use sm_90a
// Other options are checked as well (the binary's format once exited 0
// after gpu-module-to-binary's error; num-sms=0 was an internal error).
// FORMAT: for the --format option: Cannot find option named 'ptx'!
// SMS: error: convert-fp8-to-gpu: num-sms is the chip's multiprocessor count (132 on an H100 SXM), at least 1; got 0

func.func @linear(%x: tensor<128x256xbf16>, %w: tensor<256x128xbf16>) -> tensor<128x128xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<128x128xbf16>
  %init = linalg.fill ins(%zero : bf16) outs(%e : tensor<128x128xbf16>) -> tensor<128x128xbf16>
  %y = linalg.matmul ins(%x, %w : tensor<128x256xbf16>, tensor<256x128xbf16>) outs(%init : tensor<128x128xbf16>) -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}
