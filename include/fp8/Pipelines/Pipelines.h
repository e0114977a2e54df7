//===- Pipelines.h - Registered fp8-mlir pipelines --------------*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_PIPELINES_PIPELINES_H
#define FP8_PIPELINES_PIPELINES_H

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

/// fp8 + linalg + tensor + arith (elementwise ops on tensors included) down to
/// the LLVM dialect: reference lowering of the fp8 ops, software float
/// conversions, bufferization, loops, LLVM. The result runs with mlir-runner
/// and the runner utility libraries only.
void buildFP8CPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);

/// Registers `fp8-cpu-pipeline` with the global pass registry.
void registerFP8Pipelines();

} // namespace fp8
} // namespace mlir

#endif // FP8_PIPELINES_PIPELINES_H
