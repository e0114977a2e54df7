//===- TmaPipeline.h - TMA loads into mbarrier-guarded rings ----*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// The software pipeline of the tensor-core GEMMs: a producer fills a ring of
// shared-memory slots by TMA while consumers drain it, each slot guarded by
// two mbarriers. "Full" completes when the slot's bytes have arrived (the
// producer arms it with arrive.expect_tx, the copies complete the
// transaction); "empty" completes when every consumer has released the slot.
//
// Both sides count ring positions across tiles: position `it` is slot
// it % size in phase it / size, and a wait names the phase by its parity.
// A freshly initialized barrier counts as having completed the phase before
// its first, so the producer's first lap waits on the empty barriers with
// parity 1 and passes.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_LIB_CONVERSION_FP8TOGPU_TMAPIPELINE_H
#define FP8_LIB_CONVERSION_FP8TOGPU_TMAPIPELINE_H

#include "KernelBuilder.h"

namespace mlir::fp8 {

/// Shared memory one block may use on sm_90a and sm_100a (227 KiB, the
/// opt-in maximum of both).
constexpr int64_t kSharedMemoryBudget = 232448;

/// The deepest ring a kernel builds.
constexpr int64_t kMaxStages = 8;
/// The shallowest ring a GEMM that stages its epilogue's inputs in shared
/// memory keeps: staging does not trade the main loop's depth below this.
constexpr int64_t kMinStagedStages = 4;

/// The suspend-time hint of mbarrier.try_wait, in nanoseconds: how long a
/// waiting thread may sleep before it tests the phase again. The wait loops
/// until the phase completes, so the hint bounds no wait.
constexpr int64_t kWaitSuspendTimeHintNs = 10'000'000;

/// A ring of `size` slots, each with a full and an empty mbarrier (8 bytes
/// each) at byte `fullOffset` + 8 * slot and `emptyOffset` + 8 * slot of the
/// kernel's shared memory `smem`.
class MbarrierRing {
public:
  MbarrierRing() = default;
  MbarrierRing(KernelBuilder &kb, Value smem, int64_t size, int64_t fullOffset,
               int64_t emptyOffset)
      : kb(&kb), smem(smem), size(size), fullOffset(fullOffset),
        emptyOffset(emptyOffset) {}

  int64_t getSize() const { return size; }

  /// The slot and the phase parity of ring position `position`.
  std::pair<Value, Value> getSlot(Value position);
  Value getFullBarrier(Value slot) { return getBarrier(fullOffset, slot); }
  Value getEmptyBarrier(Value slot) { return getBarrier(emptyOffset, slot); }

  /// Initializes every slot's barriers to expect `fullArrivals` and
  /// `emptyArrivals` arrivals per phase. One thread runs it, then
  /// fence.mbarrier_init and a block barrier publish the barriers.
  void emitInit(int64_t fullArrivals, int64_t emptyArrivals);

  /// Waits until the slot's full barrier has completed phase `phase`.
  void waitFull(Value slot, Value phase) {
    emitWait(getFullBarrier(slot), phase);
  }
  /// Waits until the consumers have released the slot in the previous lap.
  void waitEmpty(Value slot, Value phase);
  /// One arrival (release, CTA scope) on the slot's empty barrier.
  void arriveEmpty(Value slot);
  /// One arrival (release, CTA scope) on the slot's empty barrier in the
  /// shared memory of CTA `rank` of the cluster.
  void arriveEmptyInCta(Value slot, Value rank);
  /// One arrival (release, CTA scope) on the slot's full barrier, for a
  /// ring that threads fill without asynchronous copies.
  void arriveFull(Value slot);

  /// The producer's loop over the `steps` stages of a tile from ring
  /// position `position`: each waits until its slot is free, then (when
  /// given) every thread runs `everyThread(step, slot, fullBarrier)`, then
  /// thread `elected` arms the slot's full barrier for `bytes` and has
  /// `issue(step, slot, fullBarrier)` issue the copies. Returns the ring
  /// position after the loop.
  Value emitProducerLoop(
      Value steps, Value position, Value elected, Value bytes,
      function_ref<void(Value, Value, Value)> issue,
      function_ref<void(Value, Value, Value)> everyThread = nullptr);

private:
  Value getBarrier(int64_t offset, Value slot);
  /// One arrival (release, CTA scope) on `barrier`.
  void arrive(Value barrier);
  void emitWait(Value barrier, Value parity);

  KernelBuilder *kb = nullptr;
  Value smem;
  int64_t size = 0;
  int64_t fullOffset = 0, emptyOffset = 0;
};

/// Arms `barrier` for `bytes` bytes of asynchronous copies (one arrival).
void emitExpectTx(KernelBuilder &kb, Value barrier, Value bytes);

/// Copies the box of `tensorMap` at `coordinates` (innermost first: two for
/// a 2-D map, three for a 3-D one) into shared memory at `dst`, completing
/// its bytes on `barrier`. With an i16 `ctaMask`, into the shared memory of
/// every CTA of the cluster whose rank's bit is set, at the same offsets of
/// `dst` and `barrier` in each (multicast).
void emitTmaLoad(KernelBuilder &kb, Value tensorMap, Value dst,
                 ValueRange coordinates, Value barrier,
                 Value ctaMask = Value());

/// Copies shared memory at `src` into the box of `tensorMap` at
/// `coordinates` (innermost first), clipped to the tensor, in the issuing
/// thread's current bulk async-group (emitBulkCommit). The writes to `src`
/// must be made visible to the async proxy first (fence.proxy.async).
void emitTmaStore(KernelBuilder &kb, Value tensorMap, Value src,
                  ValueRange coordinates);
/// Commits the issuing thread's bulk copies since its last commit as one
/// bulk async-group.
void emitBulkCommit(KernelBuilder &kb);
/// Waits until none of the issuing thread's bulk async-groups is pending:
/// until they have read their sources (`read`), or until they have
/// completed.
void emitBulkWait(KernelBuilder &kb, bool read);

/// Copies `bytes` contiguous bytes from global `src` into shared memory at
/// `dst` (cp.async.bulk, 16-byte aligned), completing them on `barrier`.
void emitBulkLoad(KernelBuilder &kb, Value dst, Value src, int64_t bytes,
                  Value barrier);

} // namespace mlir::fp8

#endif // FP8_LIB_CONVERSION_FP8TOGPU_TMAPIPELINE_H
