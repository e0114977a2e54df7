//===- ScaledGemm.cpp - What the GEMM kernels of both chips share ---------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// The chip-independent part of a scaled-GEMM configuration: its parameter
// list and the parts of its kernel name that say what it computes.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "fp8/Conversion/FP8ToGPU/Kernels.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fp8;

KernelParamKind mlir::fp8::getParamKind(GemmParam param) {
  switch (param) {
  case GemmParam::TensorMapA:
  case GemmParam::TensorMapB:
    return KernelParamKind::TensorMap;
  case GemmParam::Out:
  case GemmParam::ScaleA:
  case GemmParam::ScaleB:
  case GemmParam::Bias:
  case GemmParam::GlobalScaleA:
  case GemmParam::GlobalScaleB:
  case GemmParam::OutScale:
  case GemmParam::Amax:
    return KernelParamKind::Buffer;
  case GemmParam::M:
  case GemmParam::N:
  case GemmParam::K:
    return KernelParamKind::I32;
  }
  llvm_unreachable("unknown GEMM parameter");
}

SmallVector<GemmParam> ScaledGemmConfig::getParams() const {
  SmallVector<GemmParam> params{GemmParam::TensorMapA, GemmParam::TensorMapB,
                                GemmParam::Out, GemmParam::ScaleA,
                                GemmParam::ScaleB};
  if (bias)
    params.push_back(GemmParam::Bias);
  if (globalScales)
    params.append({GemmParam::GlobalScaleA, GemmParam::GlobalScaleB});
  if (fp8Out)
    params.push_back(GemmParam::OutScale);
  if (outAmax)
    params.push_back(GemmParam::Amax);
  params.append({GemmParam::M, GemmParam::N, GemmParam::K});
  return params;
}

std::string
ScaledGemmConfig::getKernelNamePrefix(StringRef chip,
                                      StringRef blockScaling) const {
  StringRef scales;
  switch (scaling) {
  case GemmScaling::Tensor:
    scales = "tensor";
    break;
  case GemmScaling::RowCol:
    scales = "rowcol";
    break;
  case GemmScaling::Block:
    scales = blockScaling;
    break;
  }
  return llvm::formatv("fp8_gemm_{0}_{1}{2}_{3}_{4}", chip,
                       getKernelTag(aFormat), getKernelTag(bFormat),
                       fp8Out ? getKernelTag(*fp8Out) : getKernelTag(out),
                       scales);
}

std::string ScaledGemmConfig::getKernelNameEpilogue() const {
  std::string name;
  if (bias)
    name += ("_bias" + getKernelTag(*bias)).str();
  if (outAmax)
    name += "_amax";
  return name;
}
