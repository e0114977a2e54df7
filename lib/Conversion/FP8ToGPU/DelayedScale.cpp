//===- DelayedScale.cpp - The delayed-scaling update kernel ---------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// fp8.update_delayed_scale in one CTA: every thread records, rolls and
// reduces a strided part of the amax history; thread 0 derives the new scale
// from the reduced amax by the rule the CPU reference uses.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "fp8/Conversion/FP8ToGPU/Kernels.h"
#include "fp8/Dialect/FP8/IR/FormatInfo.h"
#include "fp8/Dialect/FP8/Utils/ScaleRules.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fp8;

std::string DelayedScaleConfig::getKernelName() const {
  return llvm::formatv("fp8_update_delayed_{0}_m{1}_{2}_{3}",
                       getKernelTag(format), margin, stringifyAmaxAlgo(algo),
                       stringifyZeroAmaxPolicy(zeroAmax))
      .str();
}

SmallVector<DelayedScaleParam> DelayedScaleConfig::getParams() const {
  using P = DelayedScaleParam;
  return {P::Amax,     P::History,     P::Scale,        P::NewHistory,
          P::NewScale, P::NewScaleInv, P::HistoryLength};
}

KernelParamKind mlir::fp8::getParamKind(DelayedScaleParam param) {
  return param == DelayedScaleParam::HistoryLength ? KernelParamKind::I32
                                                   : KernelParamKind::Buffer;
}

static void emitDelayedScale(KernelBuilder &kb,
                             const DelayedScaleConfig &config,
                             LLVM::LLVMFuncOp func) {
  using P = DelayedScaleParam;
  KernelArgs<P> args(func, config.getParams());
  Value history = args[P::History], length = args[P::HistoryLength];
  Value smem = kb.dynamicSharedMemory(func);
  Value tid = kb.threadId();
  auto at = [&](Value base, Value index) {
    return kb.byteOffset(base, kb.mul(kb.zext64(index), kb.i64(4)));
  };

  Value amax = kb.load(kb.f32(), args[P::Amax], 4);
  Value zero = kb.f32(0.0f);
  Value skip = config.zeroAmax == ZeroAmaxPolicy::Skip
                   ? arith::CmpFOp::create(
                         kb.b, kb.loc, arith::CmpFPredicate::OEQ, amax, zero)
                         .getResult()
                   : kb.boolean(false);
  Value last = kb.sub(length, kb.i32(1));
  // Each thread records, rolls and reduces a strided part of the window:
  // recorded = history with slot 0 = amax; new[j] = recorded[(j + 1) % L],
  // then new[0] = 0.
  ValueRange partial = kb.forLoop(
      tid, length, kb.i32(DelayedScaleConfig::kThreads), ValueRange{zero},
      [&](Value j, ValueRange carried) -> SmallVector<Value> {
        Value recorded = kb.select(kb.eq(j, kb.i32(0)), amax,
                                   kb.load(kb.f32(), at(history, j), 4));
        Value next = kb.select(kb.eq(j, last), kb.i32(0), kb.add(j, kb.i32(1)));
        Value nextRecorded = kb.select(kb.eq(next, kb.i32(0)), amax,
                                       kb.load(kb.f32(), at(history, next), 4));
        Value rolled = kb.select(kb.eq(j, kb.i32(0)), zero, nextRecorded);
        Value kept = kb.load(kb.f32(), at(history, j), 4);
        kb.store(kb.select(skip, kept, rolled), at(args[P::NewHistory], j), 4);
        return {kb.maxf(carried[0], recorded, /*propagateNaN=*/true)};
      });
  Value reduced = amax;
  if (config.algo == AmaxAlgo::Max) {
    Value max = kb.warpMax(partial[0], 32, /*propagateNaN=*/true);
    Value warp = kb.udiv(tid, kb.i32(32));
    kb.ifThen(kb.eq(kb.urem(tid, kb.i32(32)), kb.i32(0)), [&] {
      kb.store(max, kb.byteOffset(smem, kb.mul(warp, kb.i32(4))), 4);
    });
    kb.barrier();
    reduced = kb.f32(0.0f);
    for (int64_t w = 0; w < DelayedScaleConfig::kThreads / 32; ++w)
      reduced =
          kb.maxf(reduced, kb.load(kb.f32(), kb.byteOffset(smem, w * 4), 4),
                  /*propagateNaN=*/true);
  }
  kb.ifThen(kb.eq(tid, kb.i32(0)), [&] {
    float fmax = getFormatInfo(config.format).maxFinite;
    Value ratio = emitRatioScale(kb.b, kb.loc, reduced, fmax, config.margin,
                                 llvm::APFloat(0.0f));
    Value old = kb.load(kb.f32(), args[P::Scale], 4);
    Value valid = arith::AndIOp::create(
        kb.b, kb.loc,
        arith::CmpFOp::create(kb.b, kb.loc, arith::CmpFPredicate::OGT, reduced,
                              zero),
        arith::CmpFOp::create(kb.b, kb.loc, arith::CmpFPredicate::OLT, reduced,
                              kb.f32(INFINITY)));
    Value scale = kb.select(valid, ratio, old);
    scale = kb.select(skip, old, scale);
    kb.store(scale, args[P::NewScale], 4);
    kb.store(emitReciprocal(kb.b, kb.loc, scale), args[P::NewScaleInv], 4);
  });
  LLVM::ReturnOp::create(kb.b, kb.loc, ValueRange{});
  expandForNVVM(func);
}

LLVM::LLVMFuncOp
mlir::fp8::buildDelayedScaleKernel(OpBuilder &builder, Location loc,
                                   const DelayedScaleConfig &config) {
  return buildKernel(builder, loc, config, emitDelayedScale);
}
