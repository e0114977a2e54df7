//===- Pipelines.h - Registered fp8-mlir pipelines --------------*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_PIPELINES_PIPELINES_H
#define FP8_PIPELINES_PIPELINES_H

#include "fp8/Target/Chip.h"

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;

namespace fp8 {

/// Options of `fp8-cpu-pipeline`.
struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {
  PassOptions::Option<bool> emitCInterface{
      *this, "emit-c-interface",
      llvm::cl::desc("Give every function a C-compatible wrapper "
                     "(_mlir_ciface_<name>) that takes memref descriptors by "
                     "pointer"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> deallocate{
      *this, "deallocate",
      llvm::cl::desc("Free intermediate buffers (ownership-based buffer "
                     "deallocation)"),
      llvm::cl::init(true)};
};

/// Options of `fp8-gpu-graph-pipeline`.
struct GPUGraphPipelineOptions
    : public PassPipelineOptions<GPUGraphPipelineOptions> {
  PassOptions::Option<Chip> chip{
      *this, "chip", llvm::cl::desc("The target: sm_90a or sm_100a"),
      llvm::cl::init(Chip::SM90a)};
  PassOptions::Option<bool> prepareWeights{
      *this, "prepare-weights",
      llvm::cl::desc("Move what only the arguments marked fp8.weight "
                     "determine (their quantization, transposed copies) into "
                     "a prepare function per function (fp8-prepare-weights)"),
      llvm::cl::init(false)};
};

/// What the gpu.binary of fp8-gpu-pipeline holds (gpu-module-to-binary's
/// format).
enum class BinaryFormat { Isa, Bin, Fatbin };

/// Options of `fp8-gpu-pipeline`.
struct GPUPipelineOptions : public PassPipelineOptions<GPUPipelineOptions> {
  PassOptions::Option<Chip> chip{
      *this, "chip", llvm::cl::desc("The target: sm_90a or sm_100a"),
      llvm::cl::init(Chip::SM90a)};
  PassOptions::Option<bool> prepareWeights{
      *this, "prepare-weights",
      llvm::cl::desc("Move what only the arguments marked fp8.weight "
                     "determine (their quantization, transposed copies) into "
                     "a prepare function per function (fp8-prepare-weights)"),
      llvm::cl::init(false)};
  PassOptions::Option<BinaryFormat> format{
      *this, "format", llvm::cl::desc("What the gpu.binary holds"),
      llvm::cl::init(BinaryFormat::Isa),
      llvm::cl::values(
          clEnumValN(BinaryFormat::Isa, "isa", "PTX"),
          clEnumValN(BinaryFormat::Bin, "bin", "a cubin, assembled by ptxas"),
          clEnumValN(BinaryFormat::Fatbin, "fatbin", "a fatbin"))};
  PassOptions::Option<std::string> artifacts{
      *this, "artifacts",
      llvm::cl::desc("A directory to write the PTX, cubin and JSON launch "
                     "manifests to (fp8-write-artifacts); none if empty"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> ptxas{
      *this, "ptxas",
      llvm::cl::desc("With artifacts: the ptxas that assembles the cubin "
                     "('auto' finds one, 'none' writes PTX only)"),
      llvm::cl::init("auto")};
  PassOptions::Option<int64_t> numSMs{
      *this, "num-sms",
      llvm::cl::desc("Streaming multiprocessors of the device (persistent "
                     "grids)"),
      llvm::cl::init(132)};
  PassOptions::Option<bool> reuseTemporaries{
      *this, "reuse-temporaries",
      llvm::cl::desc("Let temporaries never live at once share workspace "
                     "bytes (see convert-fp8-to-gpu)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fusePrologues{
      *this, "fuse-prologues",
      llvm::cl::desc("Compute an elementwise op whose result only "
                     "quantizations read in their kernels (see "
                     "convert-fp8-to-gpu)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseRows{
      *this, "fuse-rows",
      llvm::cl::desc("Compute a reduction of rows and the ops over the same "
                     "rows around it in one kernel (see convert-fp8-to-gpu)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> compileTimes{
      *this, "compile-times",
      llvm::cl::desc("Keep the compile times gpu-module-to-binary records in "
                     "the gpu.binary (the output then differs from run to "
                     "run)"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> sm90TileN{
      *this, "sm90-tile-n",
      llvm::cl::desc("Columns of the sm_90a GEMMs' output tiles where their "
                     "scaling allows: auto, 128 or 192 (see "
                     "convert-fp8-to-gpu)"),
      llvm::cl::init("auto")};
  PassOptions::Option<bool> stageEpilogueInputs{
      *this, "stage-epilogue-inputs",
      llvm::cl::desc("Stage the same-shape tensors sm_90a GEMM epilogues "
                     "read in shared memory with TMA (see "
                     "convert-fp8-to-gpu)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> sm90MNMajorOperands{
      *this, "sm90-mn-major-operands",
      llvm::cl::desc("sm_90a high-precision GEMMs read MN-major 16-bit "
                     "operands where they are, without a transposed copy "
                     "(see convert-fp8-to-gpu)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> sm90HeadMajorResults{
      *this, "sm90-head-major-results",
      llvm::cl::desc("sm_90a GEMMs store results that attention splits into "
                     "heads head-major, and batches of GEMMs results that it "
                     "merges back token-major, without a layout kernel (see "
                     "convert-fp8-to-gpu)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> sm90TmaStore{
      *this, "sm90-tma-store",
      llvm::cl::desc("sm_90a GEMMs store their results by TMA from a tile "
                     "in shared memory, overlapped with the next tile's K "
                     "loop (see convert-fp8-to-gpu)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> sm90Multicast{
      *this, "sm90-multicast",
      llvm::cl::desc("sm_90a GEMMs run in clusters of two CTAs on pairs of "
                     "tile rows that share B, each CTA copying half of it "
                     "into both (see convert-fp8-to-gpu; off by default: "
                     "correct on an H100 but slower)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> sm90AlternateConsumers{
      *this, "sm90-alternate-consumers",
      llvm::cl::desc("The two consumer warpgroups of sm_90a GEMMs that "
                     "promote partial sums issue each K tile's wgmmas in "
                     "turn (see convert-fp8-to-gpu; off by default, not yet "
                     "measured)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> sm90ProducerColumnScales{
      *this, "sm90-producer-column-scales",
      llvm::cl::desc("The producer warp of sm_90a GEMMs with per-column "
                     "block scales of B (DeepSeek's weight gradients) copies "
                     "each K tile's column scales into the ring (see "
                     "convert-fp8-to-gpu; off by default, not yet measured)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> sm90EpilogueWarpgroup{
      *this, "sm90-epilogue-warpgroup",
      llvm::cl::desc("Run the transcendental epilogues of sm_90a GEMMs in a "
                     "warpgroup of their own (see convert-fp8-to-gpu; off "
                     "by default, measured slower)"),
      llvm::cl::init(false)};
  PassOptions::ListOption<std::string> entryPoints{
      *this, "entry-points",
      llvm::cl::desc("The functions to compile, with the functions they call "
                     "(default: every public function with statically shaped "
                     "tensor arguments and results and at least one result; "
                     "see convert-fp8-to-gpu)")};
};

/// The graph stages of fp8-gpu-pipeline: an fp8 graph (after fp8-autocast)
/// rewritten for the chip (aggregate decomposition, fusion, scale
/// propagation, constant quantization, layout legality, scale layouts). The
/// result is still a graph on tensors, which fp8-cpu-pipeline runs: the
/// stages must not change a bit of its results.
void buildFP8GPUGraphPipeline(OpPassManager &pm,
                              const GPUGraphPipelineOptions &options);

/// An fp8 graph (after fp8-autocast) to GPU kernels in a gpu.binary and a
/// launch plan: the graph stages (buildFP8GPUGraphPipeline),
/// convert-fp8-to-gpu, the NVVM lowering of the kernels and
/// gpu-module-to-binary.
void buildFP8GPUPipeline(OpPassManager &pm, const GPUPipelineOptions &options);

/// fp8 + linalg + tensor + arith (elementwise ops on tensors included) down to
/// the LLVM dialect: reference lowering of the fp8 ops, software float
/// conversions, bufferization, loops, LLVM. The result runs with mlir-runner
/// and the runner utility libraries only.
void buildFP8CPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);

/// Registers `fp8-cpu-pipeline`, `fp8-gpu-graph-pipeline` and
/// `fp8-gpu-pipeline` with the global pass registry.
void registerFP8Pipelines();

} // namespace fp8
} // namespace mlir

#endif // FP8_PIPELINES_PIPELINES_H
