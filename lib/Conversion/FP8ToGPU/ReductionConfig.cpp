//===- ReductionConfig.cpp - What a reduction configuration implies -------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Which reductions the row and column kernels generate, their names and
// their parameters.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "fp8/Conversion/FP8ToGPU/Kernels.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fp8;

StringRef mlir::fp8::stringifyReductionCombiner(ReductionCombiner combiner) {
  switch (combiner) {
  case ReductionCombiner::Add:
    return "add";
  case ReductionCombiner::Mul:
    return "mul";
  case ReductionCombiner::Maximum:
    return "maximum";
  case ReductionCombiner::Minimum:
    return "minimum";
  case ReductionCombiner::MaxNum:
    return "maxnum";
  case ReductionCombiner::MinNum:
    return "minnum";
  }
  llvm_unreachable("unknown combiner");
}

LogicalResult ReductionConfig::verify(std::string &reason) const {
  if (axis == Axis::Rows && rowThreads != 32 && rowThreads != kThreads) {
    reason = llvm::formatv("a row is reduced by a warp (32 threads) or a CTA "
                           "({0} threads)",
                           kThreads);
    return failure();
  }
  if (epilogue &&
      !getWideElement(getElementTypeOrSelf(epilogue->getResult(0).getType()))) {
    reason = "an epilogue stores f32, bf16 or f16 results";
    return failure();
  }
  if (axis == Axis::Rows && amax) {
    reason = "only column reductions measure the amax of their input";
    return failure();
  }
  if (axis == Axis::Rows && partial) {
    reason = "rows are reduced in one launch; only column reductions split "
             "into partials";
    return failure();
  }
  return success();
}

int64_t ReductionConfig::getVectorWidth() const {
  if (!vectorLoads)
    return 1;
  return 16 / getInputBytes();
}

int64_t ReductionConfig::getSharedMemoryBytes() const {
  // Rows: one f32 per warp of a CTA-wide row. Columns: every thread's f32
  // sums, for the row lanes to be combined in order.
  if (axis == Axis::Rows)
    return rowThreads > 32 ? rowThreads / 32 * 4 : 0;
  return kThreads * getVectorWidth() * 4;
}

std::string ReductionConfig::getKernelName() const {
  std::string name =
      llvm::formatv("fp8_reduce_{0}_{1}", axis == Axis::Rows ? "rows" : "cols",
                    getKernelTag(input))
          .str();
  if (!partial)
    name += ("_" + getKernelTag(out)).str();
  name += ("_" + stringifyReductionCombiner(combiner)).str();
  if (axis == Axis::Rows)
    name += rowThreads == 32 ? "_warp" : "_cta";
  if (partial)
    name += "_partial";
  if (vectorLoads)
    name += "_vl";
  if (amax)
    name += *amax == NanPolicy::Propagate ? "_amaxnan" : "_amax";
  if (prologue) {
    // Ops cloned from the body make the kernel: name it by them, so that
    // equal bodies share one kernel.
    name += "_p" + getBodyDigest(prologue->getRegion(0).front());
  }
  if (partial)
    return name;
  if (initValue)
    name +=
        llvm::formatv("_i{0:x-8}", llvm::bit_cast<uint32_t>(*initValue)).str();
  if (epilogue)
    name += "_e" + getBodyDigest(epilogue->getRegion(0).front());
  return name;
}

SmallVector<ReductionParam> ReductionConfig::getParams() const {
  using P = ReductionParam;
  SmallVector<P> params = {P::Input};
  if (partial) {
    params.push_back(P::Partials);
  } else {
    if (!initValue)
      params.push_back(P::Init);
    params.push_back(P::Out);
  }
  if (amax)
    params.push_back(P::Amax);
  if (axis == Axis::Rows)
    llvm::append_range(params, ArrayRef<P>{P::Rows, P::Cols});
  else
    llvm::append_range(params,
                       ArrayRef<P>{P::Batches, P::Rows, P::Cols, P::SplitRows});
  return params;
}

KernelParamKind mlir::fp8::getParamKind(ReductionParam param) {
  switch (param) {
  case ReductionParam::Input:
  case ReductionParam::Init:
  case ReductionParam::Out:
  case ReductionParam::Partials:
  case ReductionParam::Amax:
    return KernelParamKind::Buffer;
  case ReductionParam::Batches:
  case ReductionParam::Rows:
  case ReductionParam::Cols:
  case ReductionParam::SplitRows:
    return KernelParamKind::I32;
  }
  llvm_unreachable("unknown reduction parameter");
}
