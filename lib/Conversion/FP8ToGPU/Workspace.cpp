//===- Workspace.cpp - Temporaries of a launch plan in one workspace ------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// A plan's temporaries live in one workspace. Launches run in order on one
// stream, so a temporary needs its bytes only from the first launch that
// names it to the last: two temporaries whose ranges are disjoint may share
// bytes. The placement is the greedy one by size: largest first, each at the
// lowest aligned offset that no placed temporary live during its range
// holds. No placement needs fewer bytes than are live at the busiest
// launch.
//
//===----------------------------------------------------------------------===//

#include "fp8/Conversion/FP8ToGPU/LaunchPlan.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fp8;

void mlir::fp8::forEachLaunchBuffer(const Launch &launch,
                                    llvm::function_ref<void(int64_t)> fn) {
  if (auto *fill = std::get_if<FillLaunch>(&launch)) {
    fn(fill->buffer);
  } else if (auto *copy = std::get_if<CopyLaunch>(&launch)) {
    fn(copy->from);
    fn(copy->to);
  } else {
    for (const LaunchParam &param : std::get<KernelLaunch>(launch).params) {
      if (auto *p = std::get_if<BufferParam>(&param))
        fn(p->buffer);
      else if (auto *p = std::get_if<TensorMapParam>(&param))
        fn(p->buffer);
    }
  }
}

SmallVector<std::optional<LiveRange>>
mlir::fp8::getLiveRanges(const LaunchPlan &plan) {
  SmallVector<std::optional<LiveRange>> ranges(plan.buffers.size());
  for (auto [i, launch] : llvm::enumerate(plan.launches))
    forEachLaunchBuffer(launch, [&, i = i](int64_t buffer) {
      assert(buffer >= 0 && buffer < int64_t(ranges.size()) &&
             "a launch of an unverified plan");
      std::optional<LiveRange> &range = ranges[buffer];
      if (!range)
        range = LiveRange{i, i};
      range->last = i;
    });
  return ranges;
}

void mlir::fp8::assignWorkspace(LaunchPlan &plan, bool reuse) {
  SmallVector<std::optional<LiveRange>> ranges = getLiveRanges(plan);
  SmallVector<int64_t> temps;
  for (PlanBuffer &buffer : plan.buffers) {
    buffer.offset.reset();
    if (buffer.kind == PlanBuffer::Kind::Temp)
      temps.push_back(buffer.id);
  }
  // Largest first; equal sizes in id order, so the placement is a function
  // of the plan alone.
  llvm::stable_sort(temps, [&](int64_t a, int64_t b) {
    return plan.buffers[a].bytes > plan.buffers[b].bytes;
  });

  struct Extent {
    int64_t begin, end;
  };
  SmallVector<int64_t> placed;
  int64_t workspaceBytes = 0;
  for (int64_t id : temps) {
    PlanBuffer &buffer = plan.buffers[id];
    const std::optional<LiveRange> &range = ranges[id];
    // The bytes taken while this temporary is live: without reuse, all of
    // them; a temporary no launch names conflicts with none.
    SmallVector<Extent> taken;
    for (int64_t other : placed) {
      const std::optional<LiveRange> &otherRange = ranges[other];
      if (reuse && (!range || !otherRange || !range->overlaps(*otherRange)))
        continue;
      int64_t begin = *plan.buffers[other].offset;
      taken.push_back({begin, begin + plan.buffers[other].bytes});
    }
    llvm::sort(taken, [](const Extent &a, const Extent &b) {
      return a.begin < b.begin;
    });
    int64_t offset = 0;
    for (const Extent &extent : taken) {
      if (offset + buffer.bytes <= extent.begin)
        break;
      offset = std::max<int64_t>(
          offset, llvm::alignTo(extent.end, kWorkspaceAlignment));
    }
    buffer.offset = offset;
    workspaceBytes = std::max(workspaceBytes, offset + buffer.bytes);
    placed.push_back(id);
  }
  plan.workspaceBytes = llvm::alignTo(workspaceBytes, kWorkspaceAlignment);
}
