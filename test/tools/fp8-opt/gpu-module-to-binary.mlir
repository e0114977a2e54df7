// fp8-opt registers the NVVM target and the LLVM IR translations, so the
// upstream gpu-module-to-binary pass emits PTX (format=isa, no CUDA needed)
// and, where ptxas is installed, a cubin (gpu-module-to-binary-bin.mlir).
// RUN: fp8-opt %s --convert-nvvm-to-llvm --gpu-module-to-binary=format=isa | FileCheck %s

// CHECK: gpu.binary @kernels
// CHECK-SAME: .target sm_90a
// CHECK-SAME: wgmma.fence.sync.aligned
// CHECK-SAME: wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e4m3
// CHECK-SAME: wgmma.commit_group.sync.aligned
!acc = !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
    llvm.func @wgmma_e4m3(%da: i64, %db: i64, %out: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      %z = llvm.mlir.constant(0.0 : f32) : f32
      %u = llvm.mlir.undef : !acc
      %acc = llvm.insertvalue %z, %u[0] : !acc
      nvvm.wgmma.fence.aligned
      %r = nvvm.wgmma.mma_async %da, %db, %acc, <m = 64, n = 16, k = 32>, D[<f32>, <zero>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>] : !acc -> !acc
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
      %v = llvm.extractvalue %r[0] : !acc
      llvm.store %v, %out : f32, !llvm.ptr<1>
      llvm.return
    }
  }
}
