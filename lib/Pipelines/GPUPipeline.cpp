//===- GPUPipeline.cpp - fp8-gpu-pipeline ---------------------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Conversion/Passes.h"
#include "fp8/Dialect/FP8/Transforms/Passes.h"
#include "fp8/Pipelines/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void fp8::buildFP8GPUGraphPipeline(OpPassManager &pm,
                                   const GPUGraphPipelineOptions &options) {
  // The graph for the chip: aggregates as the reductions and elementwise ops
  // the CPU reference runs, one read per tensor, quantization before layout
  // ops, K-major operands (or an error), frozen weights and their K-major
  // copies as FP8 constants, other transposed copies folded into their
  // quantization, elementwise chains
  // fused (into the GEMMs' epilogues where they follow one), block scales
  // stored as the GEMMs read them.
  pm.addPass(fp8::createFP8DecomposeAggregates());
  pm.addPass(fp8::createFP8FuseDynamicQuantize());
  pm.addPass(fp8::createFP8PropagateScales());
  pm.addPass(createCSEPass());
  fp8::FP8LegalizeLayoutOptions legalize;
  legalize.chip = options.chip;
  pm.addPass(fp8::createFP8LegalizeLayout(legalize));
  // Frozen weights become FP8 constants, and so do the transposed copies
  // that the legalization asked for: no kernel transposes them on every
  // call (none moves E2M1 codes).
  pm.addPass(fp8::createFP8QuantizeConstants());
  pm.addPass(fp8::createFP8FuseDynamicQuantize());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // What only the weights determine, K-major copies included, runs once per
  // weight update rather than on every call.
  if (options.prepareWeights)
    pm.addPass(fp8::createFP8PrepareWeights());
  // Chains of elementwise ops as one generic each: one kernel per chain,
  // then a chain that reads a GEMM's product in that GEMM's epilogue.
  pm.addPass(fp8::createFP8FuseElementwise());
  pm.addPass(fp8::createFP8FuseEpilogue());
  // Last, on the quantizations the fusions left: scales stored as the GEMMs
  // that read them copy them.
  fp8::FP8AssignScaleLayoutsOptions scaleLayouts;
  scaleLayouts.chip = options.chip;
  pm.addPass(fp8::createFP8AssignScaleLayouts(scaleLayouts));
}

void fp8::buildFP8GPUPipeline(OpPassManager &pm,
                              const GPUPipelineOptions &options) {
  // One definition of the graph stages, so that what fp8-gpu-graph-pipeline
  // checks on the CPU is what the kernels are built from.
  GPUGraphPipelineOptions graph;
  graph.chip = options.chip;
  graph.prepareWeights = options.prepareWeights;
  buildFP8GPUGraphPipeline(pm, graph);

  // Kernels and the launch plan.
  fp8::ConvertFP8ToGPUOptions lower;
  lower.chip = options.chip;
  lower.numSMs = options.numSMs;
  lower.reuseTemporaries = options.reuseTemporaries;
  lower.fusePrologues = options.fusePrologues;
  lower.fuseRows = options.fuseRows;
  lower.sm90TileN = options.sm90TileN;
  lower.stageEpilogueInputs = options.stageEpilogueInputs;
  lower.sm90EpilogueWarpgroup = options.sm90EpilogueWarpgroup;
  lower.sm90MNMajorOperands = options.sm90MNMajorOperands;
  lower.sm90HeadMajorResults = options.sm90HeadMajorResults;
  lower.sm90TmaStore = options.sm90TmaStore;
  lower.sm90Multicast = options.sm90Multicast;
  lower.sm90AlternateConsumers = options.sm90AlternateConsumers;
  lower.sm90ProducerColumnScales = options.sm90ProducerColumnScales;
  lower.entryPoints.assign(options.entryPoints.begin(),
                           options.entryPoints.end());
  pm.addPass(fp8::createConvertFP8ToGPU(lower));

  // The kernels to NVVM and PTX.
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(createConvertNVVMToLLVMPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions binary;
  switch (options.format) {
  case BinaryFormat::Isa:
    binary.compilationTarget = "isa";
    break;
  case BinaryFormat::Bin:
    binary.compilationTarget = "bin";
    break;
  case BinaryFormat::Fatbin:
    binary.compilationTarget = "fatbin";
    break;
  }
  pm.addPass(createGpuModuleToBinaryPass(binary));
  if (!options.compileTimes)
    pm.addPass(fp8::createFP8StripCompileTimes());
  if (!options.artifacts.empty()) {
    fp8::FP8WriteArtifactsOptions write;
    write.dir = options.artifacts;
    write.ptxas = options.ptxas;
    pm.addPass(fp8::createFP8WriteArtifacts(write));
  }
}
