// LLVM's fatal errors become one diagnostic and exit status 1 too: the NVPTX
// backend has no library call for an f128 sine and aborts, and an output
// stream that cannot be written is reported as what it is, not as a bug.

// RUN: not fp8-opt %s --gpu-module-to-binary=format=isa -o %t.out 2>&1 \
// RUN:   | FileCheck %s -DINPUT=%s --check-prefix=BACKEND \
// RUN:     --implicit-check-not="Stack dump" --implicit-check-not="LLVM ERROR"
// RUN: not ls %t.out
// BACKEND: [[INPUT]]: error: the input triggered an internal error in pass 'gpu-module-to-binary' on 'builtin.module': unsupported library call operation (rerun with --debug-crash for a stack dump)

// RUN: not fp8-opt %s -o /dev/full 2>&1 | FileCheck %s -DINPUT=%s --check-prefix=WRITE
// WRITE: [[INPUT]]: error: while printing the output: IO failure on output stream: No space left on device

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
    llvm.func @sine(%x: f128, %out: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      %y = llvm.intr.sin(%x) : (f128) -> f128
      llvm.store %y, %out : f128, !llvm.ptr<1>
      llvm.return
    }
  }
}
