//===- ComputeScale.cpp - The kernel of fp8.compute_scale -----------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Scales from amaxes, one per thread of a grid-stride loop: the op's rule by
// the builders of ScaleRules.h, the ones the CPU reference lowers it with, so
// that both compute the same f32 operations in the same order.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "fp8/Conversion/FP8ToGPU/Kernels.h"
#include "fp8/Dialect/FP8/Utils/ScaleRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fp8;

std::string ComputeScaleConfig::getKernelName() const {
  return llvm::formatv("fp8_compute_scale_{0}_{1}{2}{3}", getKernelTag(rule),
                       getKernelTag(format), global ? "_global" : "",
                       inverse ? "_inv" : "")
      .str();
}

SmallVector<ComputeScaleParam> ComputeScaleConfig::getParams() const {
  using P = ComputeScaleParam;
  SmallVector<P> params{P::Amax};
  if (global)
    params.push_back(P::GlobalScale);
  params.push_back(P::Scale);
  if (inverse)
    params.push_back(P::ScaleInv);
  params.push_back(P::Count);
  return params;
}

KernelParamKind mlir::fp8::getParamKind(ComputeScaleParam param) {
  return param == ComputeScaleParam::Count ? KernelParamKind::I32
                                           : KernelParamKind::Buffer;
}

static void emitComputeScale(KernelBuilder &kb,
                             const ComputeScaleConfig &config,
                             LLVM::LLVMFuncOp func) {
  using P = ComputeScaleParam;
  KernelArgs<P> args(func, config.getParams());
  auto f32At = [&](Value base, Value index) {
    return kb.byteOffset(base, kb.mul(kb.zext64(index), kb.i64(4)));
  };
  Value global;
  if (config.global)
    global = kb.load(kb.f32(), args[P::GlobalScale], 4);
  constexpr int64_t kThreads = ComputeScaleConfig::kThreads;
  Value first = kb.add(kb.mul(kb.blockId(), kb.i32(kThreads)), kb.threadId());
  Value stride = kb.mul(kb.gridDim(), kb.i32(kThreads));
  kb.forLoop(
      first, args[P::Count], stride, ValueRange{},
      [&](Value i, ValueRange) -> SmallVector<Value> {
        Value amax = kb.load(kb.f32(), f32At(args[P::Amax], i), 4);
        Value scale = emitScaleRule(kb.b, kb.loc, config.rule, config.format,
                                    amax, global);
        if (scale.getType().isF32()) {
          kb.store(scale, f32At(args[P::Scale], i), 4);
        } else {
          // E8M0 and E4M3 codes, a byte each.
          kb.store(kb.bitcast(kb.i8(), scale),
                   kb.byteOffset(args[P::Scale], kb.zext64(i)), 1);
        }
        if (config.inverse)
          kb.store(emitReciprocal(kb.b, kb.loc, scale),
                   f32At(args[P::ScaleInv], i), 4);
        return {};
      },
      /*unsignedBounds=*/true);
  LLVM::ReturnOp::create(kb.b, kb.loc, ValueRange{});
  expandForNVVM(func);
}

LLVM::LLVMFuncOp
mlir::fp8::buildComputeScaleKernel(OpBuilder &builder, Location loc,
                                   const ComputeScaleConfig &config) {
  return buildKernel(builder, loc, config, emitComputeScale);
}
