//===- Pipelines.cpp - Registration of the fp8-mlir pipelines -------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void fp8::registerFP8Pipelines() {
  PassPipelineRegistration<CPUPipelineOptions>(
      "fp8-cpu-pipeline",
      "Lower fp8, linalg, tensor and arith to the LLVM dialect for the CPU: "
      "reference semantics of the fp8 ops, software float conversions, "
      "bufferization and loops. The result runs with mlir-runner and the "
      "runner utility libraries only.",
      buildFP8CPUPipeline);
  PassPipelineRegistration<GPUGraphPipelineOptions>(
      "fp8-gpu-graph-pipeline",
      "The graph stages of fp8-gpu-pipeline for chip=sm_90a|sm_100a: "
      "aggregate decomposition, fusion, scale propagation, constant "
      "quantization, layout legality and scale layouts. The result is an fp8 "
      "graph on tensors that fp8-cpu-pipeline runs with the same results as "
      "the graph it was given.",
      buildFP8GPUGraphPipeline);
  PassPipelineRegistration<GPUPipelineOptions>(
      "fp8-gpu-pipeline",
      "Lower an fp8 graph to GPU kernels for chip=sm_90a|sm_100a: the graph "
      "passes for the chip, convert-fp8-to-gpu (kernels and a launch plan), "
      "NVVM, and a gpu.binary holding PTX (format=isa); artifacts=<dir> "
      "writes the PTX, cubin and JSON manifests.",
      buildFP8GPUPipeline);
}
