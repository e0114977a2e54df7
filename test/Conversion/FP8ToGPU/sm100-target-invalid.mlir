// Target legality is checked before any kernel reaches LLVM's NVPTX backend,
// which aborts on instructions it cannot select: a kernel module that
// compiles to a PTX ISA version without the block-scaled tcgen05.mma
// qualifiers (.block32 and .block16 need PTX 8.8), or to another chip, is a
// diagnostic, a non-zero exit and no artifacts.
// RUN: rm -rf %t && split-file %s %t
// RUN: not fp8-opt %t/ptx86.mlir --fp8-gpu-pipeline="chip=sm_100a artifacts=%t/out86" 2>&1 | FileCheck %s --check-prefix=PTX86
// RUN: not fp8-opt %t/default.mlir --convert-fp8-to-gpu=chip=sm_100a 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: not fp8-opt %t/chip.mlir --convert-fp8-to-gpu=chip=sm_100a 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not ls %t/out86
// RUN: fp8-opt %t/ptx88.mlir --convert-fp8-to-gpu=chip=sm_100a | FileCheck %s --check-prefix=PTX88

// PTX86: ptx86.mlir:2:3: error: convert-fp8-to-gpu: tcgen05.mma.kind::mxf8f6f4.block_scale.block32 needs PTX ISA 8.8, but the kernel module's target compiles to PTX 8.6 (features "+ptx86"), where LLVM's NVPTX backend cannot select it; use features "+ptx88" or higher (ptxas of CUDA 12.9 or later)
// DEFAULT: error: convert-fp8-to-gpu: tcgen05.mma.kind::mxf4nvf4.block_scale.block16 needs PTX ISA 8.8, but the kernel module's target compiles to PTX 8.6 (features "")
// CHIP: error: convert-fp8-to-gpu: the kernel module targets sm_90a, but the kernels are generated for sm_100a; give the gpu.module the chip of the lowering
// PTX88: gpu.module @fp8_kernels [#nvvm.target<chip = "sm_100a", features = "+ptx88">]
// PTX88: llvm.func @fp8_gemm_sm100a_e4m3e5m2_bf16_block32e8m0_128x128_s6(

//--- ptx86.mlir
module {
  gpu.module @fp8_kernels [#nvvm.target<chip = "sm_100a", features = "+ptx86">] {
  }
  func.func @mx(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E5M2>, %sa: tensor<256x16xf8E8M0FNU>, %sb: tensor<384x16xf8E8M0FNU>) -> tensor<256x384xbf16> {
    %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E5M2>, tensor<256x16xf8E8M0FNU>, tensor<384x16xf8E8M0FNU> -> tensor<256x384xbf16>
    return %c : tensor<256x384xbf16>
  }
}

//--- default.mlir
module {
  gpu.module @fp8_kernels [#nvvm.target<chip = "sm_100a">] {
  }
  func.func @nvfp4(%qa: tensor<256x512xf4E2M1FN>, %sa: tensor<256x32xf8E4M3FN>, %qb: tensor<384x512xf4E2M1FN>, %sb: tensor<24x32xf8E4M3FN>, %ga: tensor<1x1xf32>, %gb: tensor<1x1xf32>) -> tensor<256x384xf32> {
    %c = fp8.scaled_matmul %qa, %qb scales(%sa, %sb) by(<1x16>, <16x16>) lhs_global(%ga : tensor<1x1xf32>) rhs_global(%gb : tensor<1x1xf32>) transpose_rhs : tensor<256x512xf4E2M1FN>, tensor<384x512xf4E2M1FN>, tensor<256x32xf8E4M3FN>, tensor<24x32xf8E4M3FN> -> tensor<256x384xf32>
    return %c : tensor<256x384xf32>
  }
}

//--- chip.mlir
module {
  gpu.module @fp8_kernels [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
  }
  func.func @tensor(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xbf16> {
    %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
    return %c : tensor<256x384xbf16>
  }
}

//--- ptx88.mlir
module {
  gpu.module @fp8_kernels [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
  }
  func.func @mx(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E5M2>, %sa: tensor<256x16xf8E8M0FNU>, %sb: tensor<384x16xf8E8M0FNU>) -> tensor<256x384xbf16> {
    %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x32>, <1x32>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E5M2>, tensor<256x16xf8E8M0FNU>, tensor<384x16xf8E8M0FNU> -> tensor<256x384xbf16>
    return %c : tensor<256x384xbf16>
  }
}
